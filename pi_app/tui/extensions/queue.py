"""The queue of extension dialogs in the editor slot (UI thread only).

An extension's question (``ctx.ui.select``, ``confirm``, ``input``, ``editor``, ``custom``) reaches
the UI thread as a flow of the bridge's ``ask_user``: ``ExtensionDialogs.ask(request)``. It waits
for the request's turn (one dialog at a time; two tools asking at once get two dialogs, one after
the other), builds the widget and shows it through the editor slot's one way to wait for an
answer (``slot.ask``), on top of whatever selector is open there (which comes back when the dialog
closes; ``editor_slot``). When the asking side gives up (timeout, abort, the app closing) the
bridge cancels the flow: the request leaves the queue, or its widget the slot, and the editor
comes back with its text intact (R-UI-01, R-XUI-01).

The dialog widgets live in ``ext_dialogs``; this module does not import them, so the app starts
(and paints its first frame) without the selector widgets.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

if TYPE_CHECKING:
    from pi_app.tui.host import ExtensionHost

EXTENSION = "extension"
"""The editor-slot owner of extension dialogs: they stack over the app's selectors and vice versa."""


@dataclass(eq=False)
class DialogRequest:
    """One extension question waiting for, or shown in, the editor slot."""

    kind: str
    """``select``, ``confirm``, ``input``, ``editor`` or ``custom``."""
    title: str
    build: Callable[[DialogRequest], Any]
    """Makes the widget (may return an awaitable for ``custom`` factories)."""
    widget: Widget | None = None
    origin: Any = None
    reply_to: Callable[[Any], object] | None = None
    """Where a custom component's ``done(value)`` goes; set by whoever shows the widget."""
    replied_early: tuple[Any] | None = None
    """``done(value)`` called before the widget was shown (from inside its factory)."""

    def reply(self, value: Any) -> None:
        """A custom component's ``done(value)`` (UI thread)."""
        if self.reply_to is None:
            self.replied_early = (value,)
        else:
            self.reply_to(value)


class ExtensionDialogs:
    """The queue of extension dialogs and editor-replacing components (UI thread only)."""

    def __init__(self, app: ExtensionHost) -> None:
        self.app = app
        self.current: DialogRequest | None = None
        self._turns: dict[DialogRequest, asyncio.Future[None]] = {}
        """The requests waiting for their turn, in order, each with the future that starts it."""

    @property
    def waiting(self) -> list[DialogRequest]:
        return list(self._turns)

    async def ask(self, request: DialogRequest) -> Any:
        """The flow of one extension question: its turn, its widget in the slot, its answer (the
        option or text, a custom component's value); None when it is cancelled or its factory
        fails. However it ends, the request leaves the queue and its widget the slot."""
        from pi_app.tui.extensions.dialogs import Replied
        from pi_app.tui.selectors.slot import ask

        turn = self._turns[request] = asyncio.get_running_loop().create_future()
        try:
            self._next()
            await turn
            widget = request.widget = await build_widget(self.app, request)
            if widget is None:
                return None
            if request.replied_early is not None:
                return request.replied_early[0]
            request.reply_to = lambda value: widget.post_message(Replied(value))  # to its host
            answer = await ask(self.app, widget, owner=EXTENSION, close=True)
            return answer.value if isinstance(answer, Replied) else None
        finally:
            self._leave(request)

    def retitle(self, request: DialogRequest, text: str) -> None:
        request.title = text
        setter = getattr(request.widget, "set_title", None)
        if setter is not None and request.widget is not None and request.widget.is_mounted:
            setter(text)

    def _next(self) -> None:
        """The first waiting request gets its turn when none is shown."""
        if self.current is None and self._turns and self.app.has_screen:
            request = self.current = next(iter(self._turns))
            turn = self._turns.pop(request)
            if not turn.done():
                turn.set_result(None)

    def _leave(self, request: DialogRequest) -> None:
        """``request`` is answered, cancelled or failed: out of the queue; the next one's turn."""
        self._turns.pop(request, None)
        if self.current is request:
            self.current = None
            widget, request.widget = request.widget, None
            if widget is not None:
                dispose_widget(widget)
            self._next()


async def build_widget(app: ExtensionHost, request: DialogRequest) -> Widget | None:
    """The request's widget; None (and one error line naming the extension) when its factory fails."""
    try:
        built = request.build(request)
        if inspect.isawaitable(built):
            built = await built
        if not isinstance(built, Widget):
            raise TypeError(f"the factory returned {type(built).__name__}, not a widget")
    except Exception as exc:
        app.ext.report_exception(request.origin or request.build, "ui", exc)
        return None
    return built


def dispose_widget(widget: Widget) -> None:
    dispose = getattr(widget, "dispose", None)
    if callable(dispose):
        try:
            dispose()
        except Exception:
            pass
