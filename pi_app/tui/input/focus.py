"""Who gets the focus back when the surface on top closes (spec 60 R-OVL-02/03, issue 9).

Several things can sit above the prompt editor at once: selectors and dialogs stacked in the editor
slot (``editor_slot``) and extension overlays floating on the overlay layer (``ext_surface``). Each
registers here when it is shown, in the order shown; showing, re-showing or ``focus()``-ing one
raises it to the top. Only the top one has the keyboard: when it closes or hides, the focus goes to
the topmost remaining layer that can take it (mounted, displayed, capturing), else back to what was
focused before the first layer opened (normally the editor; the editor when that is gone). The agent is never paused by any of
this: layers are plain widgets on the main screen, not modal screens.

Decision (the spec covers overlays only): slot entries and overlays share one order, so a dialog
an overlay opened returns the focus to that overlay, and an overlay opened over a dialog returns it
to the dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.widget import Widget


def focus_target_of(widget: Widget) -> Widget:
    """What takes the keys when ``widget`` is shown: its ``focus_target`` (a dialog's input, a
    prompt's text area) or the widget itself."""
    target = getattr(widget, "focus_target", None)
    return target if isinstance(target, Widget) else widget


def shows(widget: Widget) -> bool:
    """Mounted and displayed, with every ancestor displayed."""
    if not (widget.is_mounted and widget.is_attached) or not widget.display:
        return False
    return all(node.display for node in widget.ancestors if isinstance(node, Widget))


def contains_focus(app: App[Any], widget: Widget) -> bool:
    focused = app.focused
    return focused is not None and (focused is widget or widget in focused.ancestors)


class FocusLayers:
    """The show order of the surfaces above the editor, and the focus that goes with it."""

    def __init__(self, app: App[Any], fallback: Callable[[], Widget | None]) -> None:
        self.app = app
        self._fallback = fallback
        """What takes the focus when no layer can (the prompt editor)."""
        self._layers: list[Widget] = []
        self._capturing: dict[Widget, bool] = {}
        self._before: Widget | None = None
        """What had the focus when the first layer opened."""

    def opened(self, layer: Widget, *, capturing: bool = True, focus: bool = True) -> None:
        """``layer`` is shown (or shown again): it goes on top and, when capturing, takes the focus."""
        if not self._layers:
            focused = self.app.focused
            self._before = None if focused is None or contains_focus(self.app, layer) else focused
        self.raise_(layer)
        self._capturing[layer] = capturing
        if focus and capturing:
            self.focus(layer)

    def forget(self, layer: Widget) -> None:
        """``layer`` is gone without a focus change."""
        if layer in self._layers:
            self._layers.remove(layer)
        self._capturing.pop(layer, None)

    def raise_(self, layer: Widget) -> None:
        if layer in self._layers:
            self._layers.remove(layer)
        self._layers.append(layer)

    def closed(self, layer: Widget) -> None:
        """``layer`` is going away: if it had the focus (or nothing has), give it to the one below."""
        had_focus = contains_focus(self.app, layer) or self.app.focused is None
        self.forget(layer)
        if had_focus:
            self.focus_top(avoid=layer)

    def hidden(self, layer: Widget) -> None:
        """``layer`` stays open but is not shown: the focus moves on as if it had closed."""
        if contains_focus(self.app, layer) or self.app.focused is None:
            self.focus_top(avoid=layer)

    def top(self, avoid: Widget | None = None) -> Widget | None:
        """The topmost layer that can take the focus now."""
        for layer in reversed(self._layers):
            if layer is avoid or not self._capturing.get(layer, True):
                continue
            if shows(layer):
                return layer
        return None

    def focus_top(self, avoid: Widget | None = None) -> None:
        layer = self.top(avoid)
        if layer is not None:
            self.focus(layer)
            return
        before = self._before
        if before is not None and before is not avoid and shows(before) and before.focusable:
            before.focus()
            return
        fallback = self._fallback()
        if fallback is not None and fallback.is_mounted:
            fallback.focus()

    def focus(self, layer: Widget) -> None:
        """Focus ``layer``'s target once it is laid out (a just-mounted widget cannot take it yet)."""

        def apply() -> None:
            if not shows(layer) or contains_focus(self.app, layer):
                return
            target = focus_target_of(layer)
            if target.focusable:
                target.focus()
            else:
                chain = [w for w in self.app.screen.focus_chain if w is layer or layer in w.ancestors]
                if chain:
                    chain[0].focus()

        layer.call_after_refresh(apply)  # the layer's own queue: runs once it is mounted and laid out
