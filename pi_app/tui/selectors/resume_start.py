"""``pi -r`` / ``pi --resume``: pick the session to resume before the app starts (spec 30 R-LIST-09).

A small full-screen app shows the session picker over this folder's sessions (Tab: every
project's). The chosen file becomes ``options.session`` and the normal start-up opens it with the
usual restore rules (R-NAV-09); choosing nothing prints ``No session selected`` and pi exits 0.
Renaming writes a ``session_info`` entry into the chosen file; deleting is as in ``/resume``.
"""

from __future__ import annotations

import os
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.containers import Vertical

from pi_app.coding.launch import LaunchOptions, session_dir_for
from pi_app.tui.selectors.navigation import rename_in_file, session_picker
from pi_app.tui.selectors.sessions import SessionPicker


class ResumePickerApp(App[str | None]):
    """Only the picker, at the bottom of the screen like the editor slot it normally sits in."""

    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; }
    #spacer { height: 1fr; }
    """

    def __init__(self, cwd: str, session_dir: str | None, **picker_options: Any) -> None:
        super().__init__()
        self.picker = session_picker(cwd, session_dir, None, rename_in_file, **picker_options)

    def compose(self) -> ComposeResult:
        yield Vertical(id="spacer")
        yield self.picker

    def on_mount(self) -> None:
        self.picker.model.cursor.page_size = max(5, self.size.height // 2)
        self.picker.focus()

    @on(SessionPicker.Selected)
    def _selected(self, message: SessionPicker.Selected) -> None:
        self.exit(message.path)

    @on(SessionPicker.Cancelled)
    def _cancelled(self, message: SessionPicker.Cancelled) -> None:
        self.exit(None)


def choose_session_to_resume(options: LaunchOptions, app: ResumePickerApp | None = None) -> bool:
    """Run the picker and point ``options`` at the chosen file; False when nothing was chosen."""
    cwd = os.path.abspath(options.cwd or os.getcwd())
    picker_app = app or ResumePickerApp(cwd, session_dir_for(options, cwd))
    chosen = picker_app.run()
    if not chosen:
        return False
    options.session = chosen
    options.resume = False
    return True
