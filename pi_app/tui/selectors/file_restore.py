"""After ``/tree`` or ``/fork``: offer to put the files back as they were at the chosen point.

Asked only when the file checkpoints (``pi_app.coding.checkpoints``) say the disk differs from that
point: "Restore files" / "Keep files as they are" / "Show diff" (the diff goes into the transcript
and the question comes back). Files changed outside pi since pi last wrote them are never
overwritten without a second question naming them. The result is one status line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.slot import ask

if TYPE_CHECKING:
    from pi_app.coding.checkpoints.restore import RestorePlan, RestoreResult
    from pi_app.tui.host import SessionHost

RESTORE_CHOICES = ("Restore files", "Keep files as they are", "Show diff")
CONFLICT_CHOICES = ("Keep those files as they are", "Overwrite them too")


def _files(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


async def offer_file_restore(
    app: SessionHost, from_id: str | None, to_id: str | None, plan: RestorePlan | None = None
) -> None:
    """Ask and restore; ``plan`` when it was made before the move (``/fork`` plans in the session
    it leaves, whose checkpoints the new session does not all have)."""
    from pi_app.tui.selectors.navigation import request

    keys = app.keybindings
    if plan is None:
        plan = await request(app, lambda s: s.plan_file_restore(from_id, to_id))
    if not plan:
        return
    found = plan
    if not plan.changes:
        app.show_warning(f"Not restorable (too big to keep): {', '.join(plan.unrestorable)}")
        return
    title = f"{_files(len(plan.changes))} changed since this point. Restore them?"
    while True:
        answer = await ask(app, ChoiceSelector(title, RESTORE_CHOICES, keys=keys))
        app.restore_editor()
        index = answer.index if isinstance(answer, ChoiceSelector.Chosen) else None
        if index is None or index == 1:
            app.show_status("Files kept as they are")
            return
        if index == 0:
            break
        app.transcript.add_note(await request(app, lambda s: s.file_restore_diff(found)), "status")
    overwrite = False
    if plan.conflicts:
        names = ", ".join(c.path for c in plan.conflicts[:3]) + (" …" if len(plan.conflicts) > 3 else "")
        question = f"{_files(len(plan.conflicts))} changed outside pi since ({names}). Overwrite?"
        answer = await ask(app, ChoiceSelector(question, CONFLICT_CHOICES, keys=keys))
        app.restore_editor()
        overwrite = isinstance(answer, ChoiceSelector.Chosen) and answer.index == 1
    result: RestoreResult = await request(
        app, lambda s: s.restore_files(found, overwrite_conflicts=overwrite)
    )
    parts = [f"Restored {_files(len(result.restored))}"]
    if result.skipped:
        parts.append(f"kept {_files(len(result.skipped))} changed outside pi")
    if plan.unrestorable:
        parts.append(f"{_files(len(plan.unrestorable))} too big to have been kept")
    app.show_status("; ".join(parts))
    for path, reason in result.failed:
        app.show_error(f"Could not restore {path}: {reason}")
