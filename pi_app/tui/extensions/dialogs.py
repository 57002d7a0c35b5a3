"""Extension dialog widgets for the editor slot: select, confirm, input and editor.

The queue that shows them one at a time (``ExtensionDialogs``, ``DialogRequest``) is in
``ext_queue``. Widgets: ``SelectDialog`` (select and confirm: title, optional message, options;
↑↓ enter, escape cancels), ``InputDialog`` (one line), ``EditorDialog`` (several lines; enter
submits, shift+enter adds a line). Each answers with ``Replied(value)`` (the option or the text;
None when cancelled), which ends the wait in the editor slot (``slot.ask``); a custom component's
``done(value)`` is turned into the same message. Each has ``set_title`` so a timed dialog can show
its countdown (``Title (5s)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual.widgets import Static

from pi_app.tui.extensions.queue import DialogRequest
from pi_app.tui.selectors.choice import ChoiceSelector, TextPrompt
from pi_app.tui.selectors.dialogs import PanelDialog
from pi_app.tui.selectors.slot import Answer


@dataclass
class Replied(Answer):
    """An extension dialog's answer: the chosen option, the text, or a custom component's
    ``done(value)``; None when the user cancelled."""

    value: Any


class SelectDialog(ChoiceSelector):
    """Title, an optional message, the options; answers with the chosen option."""

    def __init__(self, request: DialogRequest, options: Sequence[str], *, message: str | None = None) -> None:
        super().__init__(request.title, options, message=message)
        self.request = request

    def set_title(self, text: str) -> None:
        self.title = text
        self.view.repaint()

    def on_choice_selector_chosen(self, message: ChoiceSelector.Chosen) -> None:
        message.stop()
        self.post_message(Replied(message.option))


class InputDialog(PanelDialog):
    def __init__(self, request: DialogRequest, placeholder: str) -> None:
        super().__init__(request.title, hint="enter submit · esc cancel")
        self.request = request
        self.placeholder = placeholder

    def on_mount(self) -> None:
        super().on_mount()
        self.open_question("", self.placeholder)

    def on_panel_dialog_submitted(self, message: PanelDialog.Submitted) -> None:
        message.stop()
        self.post_message(Replied(message.text))

    def set_title(self, text: str) -> None:
        self.title_text = text
        self._paint()


class EditorDialog(TextPrompt):
    def __init__(self, request: DialogRequest, prefill: str) -> None:
        super().__init__(request.title, prefill)
        self.request = request

    def on_mount(self) -> None:
        super().on_mount()
        self.area.move_cursor(self.area.document.end)  # continue after the prefill

    def set_title(self, text: str) -> None:
        self.title = text
        for title in self.query(".-title").results(Static):
            title.update(text)

    def on_text_prompt_submitted(self, message: TextPrompt.Submitted) -> None:
        message.stop()
        self.post_message(Replied(message.text))
