"""Every eval task, in the order the table shows them."""

from __future__ import annotations

from evals.harness import Task
from evals.tasks import editing, search, sessions, skills

ALL_TASKS: list[Task] = [*editing.TASKS, *search.TASKS, *sessions.TASKS, *skills.TASKS]


def select(names: list[str] | None) -> list[Task]:
    """The tasks named (all when None); ``ValueError`` for an unknown name."""
    if not names:
        return list(ALL_TASKS)
    by_name = {t.name: t for t in ALL_TASKS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown task {unknown[0]!r} (known: {', '.join(by_name)})")
    return [by_name[n] for n in names]
