"""Extension dialogs in the editor slot: select, confirm, input, editor and ``custom`` components.

``ExtensionDialogs`` (one per app, UI thread only) shows one ``DialogRequest`` at a time in the
editor slot, on top of whatever selector is open there (which comes back when the dialog closes;
``editor_slot``); further requests wait in order (two tools asking at once get two dialogs, one after
the other). A request carries a ``concurrent.futures.Future``: the dialog resolves it with the
user's answer, the asking side (``ext_ui``) cancels it on timeout or abort, and either way the
request is closed and the editor comes back with its text intact (R-UI-01, R-XUI-01).

Widgets: ``SelectDialog`` (select and confirm: title, optional message, options; ↑↓ enter, escape
cancels), ``InputDialog`` (one line), ``EditorDialog`` (several lines; enter submits, shift+enter
adds a line). Each has ``set_title`` so a timed dialog can show its countdown (``Title (5s)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from pi_app.tui.dialogs import PanelDialog
from pi_app.tui.selectors.choice import ChoiceSelector, TextPrompt
from pi_app.tui.selectors.lines import styled, theme_of

EXTENSION = "extension"
"""The editor-slot owner of extension dialogs: they stack over the app's selectors and vice versa."""


@dataclass(eq=False)
class DialogRequest:
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


class SelectDialog(ChoiceSelector):
    """Title, an optional message, the options; posts nothing: it resolves its request."""

    def __init__(self, request: DialogRequest, options: Sequence[str], *, message: str | None = None) -> None:
        super().__init__(request.title, options)
        self.request = request
        self.message = message

    def _paint(self, width: int) -> list[Strip]:
        """Like ``ChoiceSelector`` but titles and messages may span several lines."""
        lines = super()._paint(width)
        theme = theme_of(self)
        title = [styled([(f"  {line}", None)], theme, width, bold=True) for line in self.title.split("\n")]
        body = []
        if self.message:
            body = [styled([(f"  {line}", None)], theme, width) for line in self.message.split("\n")]
            body.append(styled([("", None)], theme, width))
        return [lines[0], *title, *body, *lines[2:]]

    def set_title(self, text: str) -> None:
        self.title = text
        self.view.repaint()

    def on_choice_selector_chosen(self, message: ChoiceSelector.Chosen) -> None:
        message.stop()
        self.request.resolve(message.option)


class InputDialog(PanelDialog):
    def __init__(self, request: DialogRequest, placeholder: str) -> None:
        super().__init__(
            request.title, hint="enter submit · esc cancel", on_cancel=lambda: request.resolve(None)
        )
        self.request = request
        self.placeholder = placeholder

    def on_mount(self) -> None:
        super().on_mount()
        answer = self.ask("", self.placeholder)
        answer.add_done_callback(lambda f: None if f.cancelled() else self.request.resolve(f.result()))

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
        self.request.resolve(message.text)


class ExtensionDialogs:
    """The queue of extension dialogs and editor-replacing components (UI thread only)."""

    def __init__(self, app: Any) -> None:
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
            _dispose(widget)
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


def _dispose(widget: Widget) -> None:
    dispose = getattr(widget, "dispose", None)
    if callable(dispose):
        try:
            dispose()
        except Exception:
            pass
