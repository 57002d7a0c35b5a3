"""The editor slot: the prompt editor, or whatever temporarily replaces it (spec 60 §2.1 item 6).

Selectors, dialogs, the login flow, loaders and extension components are not screens: they take
the editor's place below the transcript, so the conversation stays visible and the layout does
not jump (R-SEL-00, style guide 2.7). ``show(widget)`` hides the editor (it stays mounted, so its
text, undo history and cursor survive), mounts ``widget`` in its place and focuses it;
``restore()`` removes it and gives the focus back to what is below.

The slot is a stack of owners (issue 9, R-OVL-03 applied to the slot): the app's own selectors
(owner ``"app"``) replace each other — a flow's next step takes its previous step's place, as in
pi, even while covered (it is mounted when uncovered) — but a widget of another owner (an extension dialog, ``"extension"``) goes on top and hides the
one below without closing it. So ``/model`` opened over an extension's question, or a question
asked while ``/settings`` is open, closes alone and the widget below comes back, focused, with its
state; when the stack is empty the editor comes back. ``restore(owner)`` closes the topmost widget
of that owner, ``close(widget)`` a given one wherever it is. Focus moves through the app's
``FocusLayers``, which also knows the extension overlays floating above.

A replacement widget closes itself by calling ``app.restore_editor()`` (or ``slot.restore()``);
it may also post ``EditorSlot.Closed`` from deep inside its own children.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

from pi_app.tui.input.focus import focus_target_of

APP = "app"


@dataclass(eq=False)
class _Entry:
    """A widget shown in the slot, who opened it, and whether it is mounted."""

    widget: Widget
    owner: str
    mounted: bool = True


class EditorSlot(Vertical):
    DEFAULT_CSS = """
    EditorSlot { height: auto; }
    """

    class Closed(Message):
        """Posted by a replacement widget that wants the editor back."""

    def __init__(
        self, editor: Widget, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.editor = editor
        self._stack: list[_Entry] = []

    def compose(self) -> ComposeResult:
        yield self.editor

    @property
    def replacement(self) -> Widget | None:
        """The widget shown in the editor's place (the top of the stack), if any."""
        return self._stack[-1].widget if self._stack else None

    @property
    def stacked(self) -> list[Widget]:
        """Every widget in the slot, bottom first (only the last one is shown)."""
        return [entry.widget for entry in self._stack]

    @property
    def is_replaced(self) -> bool:
        return bool(self._stack)

    @property
    def _layers(self) -> Any:
        return getattr(self.app, "focus_layers", None)

    def show(self, widget: Widget, owner: str = APP) -> None:
        """Put ``widget`` where the editor is and focus it (the editor keeps its state).

        It replaces the topmost widget of the same owner; when that one is covered by another
        owner's widget, the new one takes its place there, hidden until the cover closes."""
        own = next((e for e in reversed(self._stack) if e.owner == owner), None)
        if own is not None and own is not self._stack[-1]:
            # mounted only when the cover closes: many widgets take the focus when they mount
            self._stack[self._stack.index(own)] = _Entry(widget, owner, mounted=False)
            layers = self._layers
            if layers is not None:
                layers.forget(own.widget)
            if own.mounted:
                own.widget.remove()
            else:  # replaced before it ever showed: no unmount will tell its flow
                abandoned = getattr(own.widget, "abandoned", None)
                if callable(abandoned):
                    abandoned()
            return
        if own is not None:
            self._drop(self._stack.pop())
        elif self._stack:
            self._stack[-1].widget.display = False
        self._stack.append(_Entry(widget, owner))
        self.editor.display = False
        self.mount(widget)
        self._focus(widget)

    def restore(self, owner: str = APP) -> None:
        """Close the topmost widget of ``owner`` (the editor comes back when none is left)."""
        entry = next((e for e in reversed(self._stack) if e.owner == owner), None)
        if entry is None:
            if not self._stack:
                self.editor.display = True
                self.editor.focus()
            return
        self.close(entry.widget)

    def close(self, widget: Widget) -> None:
        """Remove ``widget`` wherever it is; the widget below (or the editor) shows when it was on top."""
        entry = next((e for e in self._stack if e.widget is widget), None)
        if entry is None:
            return
        was_top = entry is self._stack[-1]
        self._stack.remove(entry)
        revealed = self._stack[-1] if was_top and self._stack else None
        layers = self._layers
        if revealed is not None and not revealed.mounted:  # a step shown while it was covered
            revealed.mounted = True
            if layers is not None:
                layers.forget(widget)
            self.mount(revealed.widget)
            self._focus(revealed.widget)
        else:
            if revealed is not None:
                revealed.widget.display = True
            elif was_top:
                self.editor.display = True
            if layers is not None:
                layers.closed(widget)
            elif was_top:
                self._focus_top()
        if entry.mounted:
            widget.remove()

    def _drop(self, entry: _Entry) -> None:
        layers = self._layers
        if layers is not None:
            layers.forget(entry.widget)
        entry.widget.remove()

    def _focus(self, widget: Widget) -> None:
        layers = self._layers
        if layers is not None:
            layers.opened(widget)
        else:
            self.call_after_refresh(self._focus_top)

    def _focus_top(self) -> None:
        widget = self.replacement
        if widget is None:
            self.editor.focus()
            return
        if widget.is_mounted:
            target = focus_target_of(widget)
            if target.focusable:
                target.focus()

    def on_editor_slot_closed(self, message: Closed) -> None:
        message.stop()
        self.restore(self._stack[-1].owner if self._stack else APP)
