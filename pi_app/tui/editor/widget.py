"""The prompt editor widget: multi-line input where Enter submits and Shift+Enter / Ctrl+J insert
a newline (so do ``\\`` + Enter, for terminals that cannot report Shift+Enter)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

from pi_app.tui.editor.cursor import publish_caret

NEWLINE_KEYS = ("shift+enter", "ctrl+j", "alt+enter")


class PromptEditor(TextArea):
    DEFAULT_CSS = """
    PromptEditor {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: none;
        border-top: solid $primary-muted;
        border-bottom: solid $primary-muted;
        padding: 0 1;
        background: $background;
    }
    PromptEditor:focus { border: none; border-top: solid $primary; border-bottom: solid $primary; }
    """

    @dataclass
    class Submitted(Message):
        editor: PromptEditor
        text: str

    def __init__(self, **kwargs: object) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)  # type: ignore[arg-type]

    async def _on_key(self, event: events.Key) -> None:
        if event.key in NEWLINE_KEYS:
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            row, col = self.cursor_location
            line = self.document.get_line(row)
            if col > 0 and line[col - 1 : col] == "\\":
                self.replace("\n", (row, col - 1), (row, col))
                return
            self.post_message(self.Submitted(self, self.text))
            return
        await super()._on_key(event)

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        # R-IME-02: at paint time the layout is final, so the terminal cursor (the IME anchor)
        # lands on the caret even right after the editor grew, moved or wrapped.
        publish_caret(self, self.cursor_screen_offset)
        return lines

    def on_focus(self, event: events.Focus) -> None:
        self._set_hardware_cursor(True)

    def on_blur(self, event: events.Blur) -> None:
        self._set_hardware_cursor(False)

    def _set_hardware_cursor(self, visible: bool) -> None:
        terminal = getattr(self.app, "terminal", None)
        if terminal is not None:
            terminal.show_hardware_cursor(visible)
