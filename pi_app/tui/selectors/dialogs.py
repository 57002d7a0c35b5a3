"""Small dialogs that take the editor's place: a titled panel with text and an optional input.

``PanelDialog`` is a vertical stack between two rules: a title, body lines (progress, URLs,
instructions) and, while a question is pending, a Textual ``Input`` (IME-aware, R-IME-02; single
line). ``ask(message, placeholder)`` returns a ``concurrent.futures.Future`` that the dialog
resolves with the typed text when Enter is pressed (questions from the agent thread await it with
``asyncio.wrap_future``, decision D-13). Escape calls ``on_cancel`` and cancels a pending question.
The login flow and the extension dialogs (``ext_ui``) are built on it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from pi_app.tui.input.keys import key_press

if TYPE_CHECKING:
    from pi_app.tui.input.keybindings import Keybindings


class PanelDialog(Vertical, can_focus=True):
    DEFAULT_CSS = """
    PanelDialog { height: auto; border-top: solid $pi-border; border-bottom: solid $pi-border; padding: 0 1; }
    PanelDialog > Static { height: auto; }
    PanelDialog > Input { border: none; height: 1; padding: 0; background: $background; }
    PanelDialog > Input:focus { border: none; }
    """

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
        self._answer: Future[str] | None = None
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

    def ask(
        self, question: str, placeholder: str = "", prefill: str = "", secret: bool = False
    ) -> Future[str]:
        """Show an input for ``question`` (masked when ``secret``); the future gets the text entered."""
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()
        self._answer = Future()
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
        return self._answer

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        answer, self._answer = self._answer, None
        self._question = None
        if self._input is not None:
            self._input.display = False
            self.focus()
        self._paint()
        if answer is not None and not answer.done():
            answer.set_result(event.value)

    def cancel(self) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()
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
