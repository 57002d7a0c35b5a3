"""``ExtensionUIContext``: what extensions may ask of the user interface (spec 40 §2.6, R-UI-01..07).

Each mode supplies one implementation: the TUI (Textual dialogs and widgets), RPC (the
``extension_ui_request``/``extension_ui_response`` sub-protocol) and ``NoOpUIContext`` for print and
JSON modes, whose dialogs return their cancel values at once.

Implementations share ``settle_dialog``: it waits for the user's answer, a timeout or an abort
signal, whichever comes first, and returns the cancel value in the last two cases; the caller
removes the dialog from the screen when the answer future is cancelled. ``countdown_title`` is the
title a timed dialog shows (``Title (5s)``), refreshed every second.

Persistent elements (footer, header, widgets, editor, custom components) are always given as
factories, never instances: ``pi_app.coding`` stores and forwards them; only the TUI calls them.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pi_app.ai.event_stream import AbortSignal

T = TypeVar("T")
NotifyLevel = Literal["info", "warning", "error"]
WidgetPlacement = Literal["aboveEditor", "belowEditor"]


@runtime_checkable
class ExtensionUIContext(Protocol):
    # dialogs: cancel / timeout / abort -> None, False, None, None
    async def select(
        self,
        title: str,
        options: list[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None: ...

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool: ...

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None: ...

    async def editor(
        self,
        title: str,
        prefill: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None: ...

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], None] | None = None,
    ) -> Any: ...

    # fire-and-forget and state
    def notify(self, message: str, level: NotifyLevel = "info") -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_working_message(self, message: str | None = None) -> None: ...

    def set_widget(self, key: str, content: Any, *, placement: WidgetPlacement = "aboveEditor") -> None: ...

    def set_footer(self, factory: Callable[..., Any] | None) -> None: ...

    def set_header(self, factory: Callable[..., Any] | None) -> None: ...

    def set_title(self, title: str) -> None: ...

    def paste_to_editor(self, text: str) -> None: ...

    def set_editor_text(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None: ...

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]: ...

    @property
    def theme(self) -> Any: ...

    def get_all_themes(self) -> list[dict[str, Any]]: ...

    def get_theme(self, name: str) -> Any: ...

    def set_theme(self, name_or_theme: Any) -> dict[str, Any]: ...

    def get_tools_expanded(self) -> bool: ...

    def set_tools_expanded(self, expanded: bool) -> None: ...

    def set_working_visible(self, visible: bool) -> None: ...

    def set_working_indicator(
        self, frames: list[str] | None = None, interval_ms: int | None = None
    ) -> None: ...

    def set_hidden_thinking_label(self, label: str | None = None) -> None: ...


class NoOpUIContext:
    """Print and JSON modes: extensions run but cannot prompt (R-EXT-49)."""

    async def select(self, title: str, options: list[str], **_: Any) -> str | None:
        return None

    async def confirm(self, title: str, message: str, **_: Any) -> bool:
        return False

    async def input(self, title: str, placeholder: str | None = None, **_: Any) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None, **_: Any) -> str | None:
        return None

    async def custom(self, factory: Callable[..., Any], **_: Any) -> Any:
        return None

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_working_message(self, message: str | None = None) -> None:
        return None

    def set_widget(self, key: str, content: Any, **_: Any) -> None:
        return None

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        return None

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def paste_to_editor(self, text: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        return None

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        return lambda: None

    @property
    def theme(self) -> Any:
        return None

    def get_all_themes(self) -> list[dict[str, Any]]:
        return []

    def get_theme(self, name: str) -> Any:
        return None

    def set_theme(self, name_or_theme: Any) -> dict[str, Any]:
        return {"success": False, "error": "UI not available"}

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def set_working_visible(self, visible: bool) -> None:
        return None

    def set_working_indicator(self, frames: list[str] | None = None, interval_ms: int | None = None) -> None:
        return None

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        return None


def countdown_title(title: str, remaining_s: float) -> str:
    """``Title (5s)``: whole seconds left, rounded up."""
    return f"{title} ({max(0, math.ceil(remaining_s))}s)"


async def settle_dialog(
    answer: Awaitable[T],
    *,
    cancel_value: T,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    on_tick: Callable[[float], None] | None = None,
) -> T:
    """The answer, or ``cancel_value`` on timeout or abort (the answer is then cancelled).

    ``on_tick(remaining_s)`` is called at once and then every second while a timeout runs, so the
    caller can refresh a ``countdown_title``.
    """
    future = asyncio.ensure_future(answer)
    if signal is not None and signal.aborted:
        future.cancel()
        return cancel_value
    loop = asyncio.get_running_loop()
    aborted = loop.create_future()

    def on_abort() -> None:
        if not aborted.done():
            aborted.set_result(None)

    remove = signal.add_listener(on_abort) if signal else None
    deadline = loop.time() + timeout if timeout is not None else None
    try:
        while True:
            wait_for: float | None = None
            if deadline is not None:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return cancel_value
                if on_tick is not None:
                    on_tick(remaining)
                wait_for = min(1.0, remaining) if on_tick is not None else remaining
            done, _ = await asyncio.wait(
                {future, aborted}, timeout=wait_for, return_when=asyncio.FIRST_COMPLETED
            )
            if future in done:
                if future.cancelled():
                    return cancel_value
                return future.result()
            if aborted in done:
                return cancel_value
    finally:
        if remove is not None:
            remove()
        if not future.done():
            future.cancel()
        if not aborted.done():
            aborted.cancel()
