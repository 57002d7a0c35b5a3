"""Git checkpoints: snapshot the working tree at the start of every turn; restore on demand.

At ``turn_start`` the extension runs ``git stash create`` (which records the working tree without
touching it) and keeps the commit under ``refs/pi-checkpoints/<session>/<n>``; each checkpoint is
also stored as a ``git-checkpoint`` custom entry so it survives a resume. ``/checkpoints`` lists
them and ``/restore <n>`` puts the files of checkpoint ``n`` back (after a confirmation when a UI
exists). Outside a git repository the extension stays quiet.
"""

from __future__ import annotations

from typing import Any

from pi_app.ext import ExtensionAPI

ENTRY_TYPE = "git-checkpoint"


def setup(pi: ExtensionAPI) -> None:
    checkpoints: list[dict[str, Any]] = []
    session_key = {"id": "session"}

    async def git(*args: str, cwd: str):
        return await pi.exec("git", list(args), cwd=cwd, timeout=30)

    async def head_or_none(cwd: str) -> str | None:
        result = await git("rev-parse", "--verify", "-q", "HEAD", cwd=cwd)
        return result.stdout.strip() or None if result.code == 0 else None

    @pi.on("session_start")
    def restore_list(event, ctx) -> None:
        checkpoints.clear()
        session_key["id"] = ctx.session_manager.get_session_id() or "session"
        for entry in ctx.session_manager.get_branch():
            if (
                isinstance(entry, dict)
                and entry.get("type") == "custom"
                and entry.get("customType") == ENTRY_TYPE
            ):
                checkpoints.append(dict(entry.get("data") or {}))

    @pi.on("turn_start")
    async def snapshot(event, ctx) -> None:
        inside = await git("rev-parse", "--is-inside-work-tree", cwd=ctx.cwd)
        if inside.code != 0:
            return
        stash = await git("stash", "create", f"pi checkpoint turn {event.turn_index}", cwd=ctx.cwd)
        commit = stash.stdout.strip() or await head_or_none(ctx.cwd)
        if not commit:
            return
        number = len(checkpoints) + 1
        ref = f"refs/pi-checkpoints/{session_key['id']}/{number}"
        await git("update-ref", ref, commit, cwd=ctx.cwd)
        data = {"n": number, "ref": ref, "commit": commit, "turn": event.turn_index}
        checkpoints.append(data)
        pi.append_entry(ENTRY_TYPE, data)

    async def list_checkpoints(args: str, ctx) -> None:
        if not checkpoints:
            ctx.ui.notify("No checkpoints yet", "info")
            return
        ctx.ui.notify(
            "\n".join(f"{c['n']}: {c['commit'][:10]} (turn {c['turn']})" for c in checkpoints), "info"
        )

    async def restore(args: str, ctx) -> None:
        wanted = args.strip()
        target = next((c for c in checkpoints if str(c["n"]) == wanted), None)
        if target is None:
            ctx.ui.notify(f"No checkpoint {wanted or '?'}; see /checkpoints", "error")
            return
        if ctx.has_ui and not await ctx.ui.confirm(
            "Restore files?", f"Overwrite files with checkpoint {wanted}?"
        ):
            return
        result = await git("checkout", target["commit"], "--", ".", cwd=ctx.cwd)
        if result.code != 0:
            ctx.ui.notify(f"Restore failed: {result.stderr.strip()}", "error")
            return
        ctx.ui.notify(f"Restored checkpoint {wanted}", "info")

    pi.register_command("checkpoints", handler=list_checkpoints, description="List git checkpoints")
    pi.register_command(
        "restore", handler=restore, description="Restore files from a git checkpoint: /restore <n>"
    )
