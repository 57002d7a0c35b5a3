"""The editor slot: the prompt editor, or whatever temporarily replaces it (spec 60 §2.1 item 6).

Selectors, dialogs, the login flow, loaders and extension components are not screens: they take
the editor's place below the transcript, so the conversation stays visible and the layout does
not jump (R-SEL-00, style guide 2.7). ``show(widget)`` hides the editor (it stays mounted, so its
text, undo history and cursor survive), mounts ``widget`` in its place and focuses it;
``restore()`` removes the widget and gives the focus back to the editor. Showing a second
widget replaces the first one.

A replacement widget closes itself by calling ``app.restore_editor()`` (or ``slot.restore()``);
it may also post ``EditorSlot.Closed`` from deep inside its own children.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget


class EditorSlot(Vertical):
    DEFAULT_CSS = """
    EditorSlot { height: auto; }
    """

    class Closed(Message):
        """Posted by a replacement widget that wants the editor back."""

    def __init__(self, editor: Widget, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.editor = editor
        self.replacement: Widget | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.editor

    @property
    def is_replaced(self) -> bool:
        return self.replacement is not None

    def show(self, widget: Widget) -> None:
        """Put ``widget`` where the editor is and focus it (the editor keeps its state)."""
        if self.replacement is not None:
            self.replacement.remove()
        self.replacement = widget
        self.editor.display = False
        self.mount(widget)
        self.call_after_refresh(self._focus_replacement, widget)

    def _focus_replacement(self, widget: Widget) -> None:
        if self.replacement is widget and widget.is_mounted:
            target = getattr(widget, "focus_target", None) or widget
            if target.focusable:
                target.focus()

    def restore(self) -> None:
        """Remove the replacement (if any) and give the focus back to the editor."""
        replacement, self.replacement = self.replacement, None
        if replacement is not None:
            replacement.remove()
        self.editor.display = True
        self.editor.focus()

    def on_editor_slot_closed(self, message: Closed) -> None:
        message.stop()
        self.restore()
