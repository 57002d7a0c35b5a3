"""The queue of extension dialogs in the editor slot (UI thread only).

``ExtensionDialogs`` (one per app) shows one ``DialogRequest`` at a time in the editor slot, on top
of whatever selector is open there (which comes back when the dialog closes; ``editor_slot``);
further requests wait in order (two tools asking at once get two dialogs, one after the other). A
request carries a ``concurrent.futures.Future``: the dialog resolves it with the user's answer, the
asking side (``ext_ui``) cancels it on timeout or abort, and either way the request is closed and
the editor comes back with its text intact (R-UI-01, R-XUI-01).

The dialog widgets live in ``ext_dialogs``; this module does not import them, so the app starts
(and paints its first frame) without the selector widgets.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
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
    future: Future[Any]
    widget: Widget | None = None
    origin: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def resolve(self, value: Any) -> None:
        if not self.future.done():
            self.future.set_result(value)


class ExtensionDialogs:
    """The queue of extension dialogs and editor-replacing components (UI thread only)."""

    def __init__(self, app: ExtensionHost) -> None:
        self.app = app
        self.waiting: list[DialogRequest] = []
        self.current: DialogRequest | None = None

    def open(self, request: DialogRequest) -> None:
        if request.future.done():
            return
        self.waiting.append(request)
        if self.current is None:
            self._show_next()

    def retitle(self, request: DialogRequest, text: str) -> None:
        request.title = text
        setter = getattr(request.widget, "set_title", None)
        if setter is not None and request.widget is not None and request.widget.is_mounted:
            setter(text)

    def close(self, request: DialogRequest) -> None:
        """Remove ``request`` (answered, timed out, aborted or failed); show the next one."""
        if request in self.waiting:
            self.waiting.remove(request)
            return
        if self.current is not request:
            return
        self.current = None
        widget, request.widget = request.widget, None
        if widget is not None:
            dispose_widget(widget)
            if self.app.has_screen:
                self.app.editor_slot.close(widget)  # wherever it is: a selector may sit on top
        self._show_next()

    def cancel_all(self) -> None:
        """The app is closing: every pending question gets its cancel value."""
        for request in [*self.waiting, *([self.current] if self.current else [])]:
            request.future.cancel()
        self.waiting.clear()
        self.current = None

    def _show_next(self) -> None:
        while self.waiting and self.app.has_screen:
            request = self.waiting.pop(0)
            if request.future.done():
                continue
            self.current = request
            try:
                built = request.build(request)
            except Exception as exc:
                self._failed(request, exc)
                continue
            if inspect.isawaitable(built):
                self.app.run_worker(
                    self._await_widget(request, built), group="ext-dialog", exit_on_error=False
                )
                return
            self._mount(request, built)
            return

    async def _await_widget(self, request: DialogRequest, built: Any) -> None:
        try:
            widget = await built
        except Exception as exc:
            self._failed(request, exc)
            self._show_next()
            return
        if self.current is request and not request.future.done():
            self._mount(request, widget)

    def _mount(self, request: DialogRequest, widget: Any) -> None:
        if not isinstance(widget, Widget):
            self._failed(request, TypeError(f"the factory returned {type(widget).__name__}, not a widget"))
            self._show_next()
            return
        request.widget = widget
        self.app.show_in_editor_slot(widget, owner=EXTENSION)

    def _failed(self, request: DialogRequest, exc: BaseException) -> None:
        self.current = None
        request.future.cancel()
        self.app.ext.report_exception(request.origin or request.build, "ui", exc)


def dispose_widget(widget: Widget) -> None:
    dispose = getattr(widget, "dispose", None)
    if callable(dispose):
        try:
            dispose()
        except Exception:
            pass
