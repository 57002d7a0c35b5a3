"""Discovery of context files (AGENTS.md / CLAUDE.md) and prompt files (SYSTEM.md, APPEND_SYSTEM.md).

Context files (spec 30 §2.14, decision D-23): the global one in the agent dir first, then one per
directory from the filesystem root down to ``cwd``. In each directory ``AGENTS.override.md`` (pi
1.6.0: it replaces that directory's ``AGENTS.md``/``CLAUDE.md`` and nothing elsewhere), ``AGENTS.md``,
``AGENTS.MD``, ``CLAUDE.md``, ``CLAUDE.MD`` are tried in that order; the first regular readable file wins (a
directory of that name is skipped; an unreadable file gives a warning and the next candidate is
tried). Context files are not gated by project trust (D-22).

Prompt files (R-CTX-03): ``<cwd>/.pi/SYSTEM.md`` (trusted projects only), else
``<agentDir>/SYSTEM.md``; the same for ``APPEND_SYSTEM.md``. CLI values that name a file are read
(R-CTX-04). Discovery runs at (re)load time only, never per turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_app.coding import paths

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")

Warn = Callable[[str], None]


@dataclass(frozen=True)
class ContextFile:
    """A context file (``AGENTS.md``, ``CLAUDE.md``) and its text."""

    path: str
    content: str


def _read_candidate(directory: Path, warn: Warn | None) -> ContextFile | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        try:
            if not candidate.is_file():
                continue
            # On case-insensitive file systems AGENTS.MD resolves to AGENTS.md: keep the real name.
            content = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            if warn is not None:
                warn(f"Could not read {candidate}: {exc}")
            continue
        return ContextFile(str(candidate), content)
    return None


def load_context_files(
    cwd: str | Path, agent_dir: str | Path | None = None, warn: Warn | None = None
) -> list[ContextFile]:
    """Global context file first, then ancestors of ``cwd`` from the root side down to ``cwd``."""
    base = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
    found: list[ContextFile] = []
    seen: set[str] = set()
    global_file = _read_candidate(base, warn)
    if global_file is not None:
        found.append(global_file)
        seen.add(os.path.realpath(global_file.path))
    here = Path(os.path.abspath(cwd))
    ancestors: list[ContextFile] = []
    for directory in (here, *here.parents):
        item = _read_candidate(directory, warn)
        if item is None:
            continue
        real = os.path.realpath(item.path)
        if real in seen:
            continue
        seen.add(real)
        ancestors.append(item)
    found.extend(reversed(ancestors))
    return found


def _read_optional(path: Path, warn: Warn | None) -> str | None:
    try:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        if warn is not None:
            warn(f"Could not read {path}: {exc}")
    return None


def find_prompt_file(
    name: str,
    cwd: str | Path,
    agent_dir: str | Path | None = None,
    project_trusted: bool = True,
    warn: Warn | None = None,
) -> str | None:
    """Content of ``<cwd>/.pi/<name>`` (if trusted) else ``<agentDir>/<name>``, or None."""
    base = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
    if project_trusted:
        content = _read_optional(paths.project_config_dir(cwd) / name, warn)
        if content is not None:
            return content
    return _read_optional(base / name, warn)


def load_prompt_files(
    cwd: str | Path,
    agent_dir: str | Path | None = None,
    project_trusted: bool = True,
    warn: Warn | None = None,
) -> tuple[str | None, str | None]:
    """``(SYSTEM.md content, APPEND_SYSTEM.md content)``, each None when absent."""
    return (
        find_prompt_file("SYSTEM.md", cwd, agent_dir, project_trusted, warn),
        find_prompt_file("APPEND_SYSTEM.md", cwd, agent_dir, project_trusted, warn),
    )


def resolve_cli_text(value: str, cwd: str | Path, warn: Warn | None = None) -> str:
    """A ``--system-prompt``/``--append-system-prompt`` value: a file's content if it names one."""
    candidate = Path(paths.expand_user(value))
    if not candidate.is_absolute():
        candidate = Path(cwd) / candidate
    try:
        if len(value) < 4096 and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if warn is not None:
            warn(f"Could not read {candidate}: {exc}; using the text as given")
    return value
