"""Small dialogs that take the editor's place: a titled panel with text and an optional input.

``PanelDialog`` is a vertical stack between two rules: a title, body lines (progress, URLs,
instructions) and, while a question is pending, a Textual ``Input`` (IME-aware, R-IME-02; single
line). ``open_question(message, placeholder)`` shows the input; Enter posts ``Submitted(text)``,
Escape ``Submitted(None)`` (and calls ``on_cancel``). Those are ``Answer`` messages: whoever shows
the dialog waits for them through the editor slot's one way to wait (``slot.ask``, or
``slot.answer_in`` for the next question in the same dialog); a question from the agent thread
gets there through the bridge's ``ask_user``. The login flow and the extensions' input dialog are
built on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from pi_app.tui.input.keys import key_press
from pi_app.tui.selectors.slot import Answer

if TYPE_CHECKING:
    from pi_app.tui.input.keybindings import Keybindings


class PanelDialog(Vertical, can_focus=True):
    DEFAULT_CSS = """
    PanelDialog { height: auto; border-top: solid $pi-border; border-bottom: solid $pi-border; padding: 0 1; }
    PanelDialog > Static { height: auto; }
    PanelDialog > Input { border: none; height: 1; padding: 0; background: $background; }
    PanelDialog > Input:focus { border: none; }
    """

    @dataclass
    class Submitted(Answer):
        """The text entered for the pending question; None when it was cancelled (Escape)."""

        dialog: PanelDialog
        text: str | None

    def __init__(
        self,
        title: str,
        *,
        lines: list[str] | None = None,
        hint: str = "esc cancel",
        on_cancel: Callable[[], Any] | None = None,
        keybindings: Keybindings | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.lines: list[str] = list(lines or [])
        self.hint = hint
        self.on_cancel = on_cancel
        self.keybindings = keybindings
        self._body = Static("", classes="body")
        self._input: Input | None = None
        self._question: str | None = None

    def compose(self) -> ComposeResult:
        yield self._body

    def on_mount(self) -> None:
        self._paint()

    @property
    def focus_target(self) -> Input | PanelDialog:
        return self._input or self

    def _paint(self) -> None:
        text = Text()
        text.append(self.title_text, Style(bold=True))
        for line in self.lines:
            text.append("\n" + line)
        if self._question:
            text.append("\n" + self._question)
        text.append("\n" + self.hint, Style(dim=True))
        self._body.update(text)

    def add_line(self, line: str) -> None:
        self.lines.append(line)
        self._paint()

    def open_question(
        self, question: str, placeholder: str = "", prefill: str = "", secret: bool = False
    ) -> None:
        """Show an input for ``question`` (masked when ``secret``); Enter or Escape answers it."""
        self._question = question
        if self._input is None:
            self._input = Input(placeholder=placeholder, value=prefill, password=secret)
            self.mount(self._input)
        else:
            self._input.placeholder = placeholder
            self._input.value = prefill
            self._input.password = secret
            self._input.display = True
        self.call_after_refresh(self._input.focus)
        self._paint()

    def withdraw_question(self) -> None:
        """The question is no longer asked (answered another way): its input goes, nothing is posted."""
        self._question = None
        if self._input is not None:
            self._input.display = False
            self.focus()
        self._paint()

    def _close_question(self, text: str | None) -> None:
        self.withdraw_question()
        self.post_message(self.Submitted(self, text))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._question is not None:
            self._close_question(event.value)

    def cancel(self) -> None:
        if self._question is not None:
            self._close_question(None)
        if self.on_cancel is not None:
            self.on_cancel()

    def on_key(self, event: events.Key) -> None:
        press = key_press(event)
        if self.keybindings is not None:
            cancel = self.keybindings.matches(press, "tui.select.cancel")
        else:
            cancel = press.key_id == "escape"
        if cancel:
            event.stop()
            event.prevent_default()
            self.cancel()
