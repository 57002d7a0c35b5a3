"""``InlineInput``: a caption, a one-line text field and a key hint, shown inside a selector.

The tree's label editor and the session picker's rename field. Enter posts ``Saved(value)``
(trimmed), the cancel key posts ``Closed``; the owner hides it and takes the focus back. It opens
with the current value and the caret at its end, never with the text selected (typing must not
replace it by surprise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from pi_app.tui.input.keys import key_press

if TYPE_CHECKING:
    from pi_app.tui.selectors.bindings import KeyMap


class InlineInput(Vertical):
    DEFAULT_CSS = """
    InlineInput { height: auto; display: none; padding: 0 2; }
    InlineInput.-open { display: block; }
    InlineInput Input { border: none; height: 1; padding: 0; }
    InlineInput Static { color: $text-muted; }
    """

    @dataclass
    class Saved(Message):
        field: InlineInput
        value: str

    @dataclass
    class Closed(Message):
        field: InlineInput

    def __init__(self, caption: str, keys: KeyMap, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.caption = caption
        self.keys = keys
        self.input = Input(select_on_focus=False)

    def compose(self) -> ComposeResult:
        yield Static(self.caption)
        yield self.input
        k = self.keys
        yield Static(f"{k.hint('tui.select.confirm')} save · {k.hint('tui.select.cancel')} cancel")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self, value: str) -> None:
        self.input.value = value
        self.input.cursor_position = len(value)
        self.add_class("-open")
        self.input.focus()

    def close(self) -> None:
        self.remove_class("-open")

    def on_key(self, event: events.Key) -> None:
        if self.keys.first_match(key_press(event), ("tui.select.cancel",)):
            event.stop()
            event.prevent_default()
            self.post_message(self.Closed(self))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Saved(self, event.value.strip()))
