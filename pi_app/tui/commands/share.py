"""``/share``: the session as a secret GitHub gist of its HTML export (spec 60 R-CMD-05).

The GitHub CLI does the work: ``gh auth status`` must succeed (else one error line says what to
install or run), the active branch is written with the same exporter as ``/export`` to
``session.html`` in a fresh temporary folder, and ``gh gist create --public=false <file>`` runs
behind a loader in the editor slot; Escape kills it (``Share cancelled``). ``gh`` prints the gist's
URL; the status shows the share-viewer URL (``$PI_SHARE_VIEWER_URL`` or ``https://pi.dev/session/``,
then ``#<gist id>``) and the gist URL. The temporary folder is removed whatever happens. Nothing
here blocks the UI: ``gh`` runs as an asyncio subprocess on the app's loop.

Decisions where the spec is silent: the file is named ``session.html`` (the gist shows that name)
but lives in its own temporary folder, so two ``/share`` runs never overwrite each other's file;
``gh`` is looked up on ``PATH`` before it is run, so a missing CLI is told apart from a failing one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.tui.host import CommandHost

DEFAULT_SHARE_VIEWER_URL = "https://pi.dev/session/"
NOT_INSTALLED = "GitHub CLI (gh) is not installed. Install it from https://cli.github.com/"
NOT_LOGGED_IN = "GitHub CLI is not logged in. Run 'gh auth login' first."


def share_viewer_url(gist_id: str, env: dict[str, str] | None = None) -> str:
    base = (env if env is not None else os.environ).get("PI_SHARE_VIEWER_URL") or DEFAULT_SHARE_VIEWER_URL
    return f"{base}#{gist_id}"


def gist_id_of(output: str) -> str | None:
    """The last path segment of the URL ``gh gist create`` printed (its last non-empty line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if not lines:
        return None
    return lines[-1].rstrip("/").rsplit("/", 1)[-1] or None


async def _run(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=os.name == "posix",  # its own group: a cancel stops its children too
    )
    try:
        out, err = await process.communicate()
    except asyncio.CancelledError:
        _kill(process)  # Escape on the loader: the gist is not created
        await process.wait()
        raise
    return process.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


async def share_command(app: CommandHost, args: str) -> None:
    from pi_app.tui.commands.builtin import export_page

    if app.session is None:
        app.show_status("Still starting up…")
        return
    gh = shutil.which("gh")
    if gh is None:
        app.show_error(NOT_INSTALLED)
        return
    try:
        status, _, _ = await _run(gh, "auth", "status")
    except OSError:
        app.show_error(NOT_INSTALLED)
        return
    if status != 0:
        app.show_error(NOT_LOGGED_IN)
        return

    folder = Path(tempfile.mkdtemp(prefix="pi-share-"))
    try:
        page = await export_page(app, str(folder / "session.html"))
        if page is None:
            return
        await _create_gist(app, gh, str(page))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _create_gist(app: CommandHost, gh: str, page: str) -> None:
    from pi_app.tui.selectors.choice import BusyPanel

    task = asyncio.ensure_future(_run(gh, "gist", "create", "--public=false", page))
    aborted: list[bool] = []

    def abort() -> None:
        aborted.append(True)
        task.cancel()

    hint = app.hint("app.interrupt") or "escape"
    loader = BusyPanel(f"Creating gist... ({hint} to cancel)", abort, animate=app.animations)
    app.show_in_editor_slot(loader)
    try:
        code, out, err = await task
    except asyncio.CancelledError:
        if not aborted:  # the command itself is being cancelled (the app closes)
            raise
        app.editor_slot.close(loader)
        app.show_status("Share cancelled")
        return
    except OSError as exc:
        app.editor_slot.close(loader)
        app.show_error(f"Failed to create gist: {exc}")
        return
    app.editor_slot.close(loader)
    if code != 0:
        app.show_error(f"Failed to create gist: {err.strip() or 'Unknown error'}")
        return
    gist_id = gist_id_of(out)
    if gist_id is None:
        app.show_error("Failed to parse gist ID from gh output")
        return
    gist_url = out.strip().splitlines()[-1].strip()
    app.show_status(f"Share URL: {share_viewer_url(gist_id)}\nGist: {gist_url}")
