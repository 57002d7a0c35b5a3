"""The inter-extension event bus ``pi.events`` (spec 40 §2.3, R-EXT-16).

``emit(channel, data)`` delivers to every subscriber of the channel; a subscriber exception is
reported and never reaches the emitter or other subscribers; coroutine subscribers are scheduled as
tasks on the running loop. One bus per runtime generation: ``clear()`` at teardown drops every
subscription, so handlers of a reloaded runtime never fire again.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

BusHandler = Callable[[Any], Any]


class EventBus:
    def __init__(self, on_error: Callable[[str, BaseException], None] | None = None) -> None:
        self._subscribers: dict[str, list[BusHandler]] = {}
        self._on_error = on_error
        self._tasks: set[asyncio.Task[Any]] = set()

    def on(self, channel: str, handler: BusHandler) -> Callable[[], None]:
        self._subscribers.setdefault(channel, []).append(handler)

        def unsubscribe() -> None:
            handlers = self._subscribers.get(channel, [])
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def _report(self, channel: str, exc: BaseException) -> None:
        if self._on_error is not None:
            self._on_error(channel, exc)
        else:
            log.warning("event bus subscriber for %r failed: %s", channel, exc)

    def emit(self, channel: str, data: Any = None) -> None:
        for handler in list(self._subscribers.get(channel, [])):
            try:
                result = handler(data)
            except Exception as exc:
                self._report(channel, exc)
                continue
            if inspect.isawaitable(result):
                self._schedule(channel, result)

    def _schedule(self, channel: str, awaitable: Any) -> None:
        async def run() -> None:
            try:
                await awaitable
            except Exception as exc:
                self._report(channel, exc)

        try:
            task = asyncio.get_running_loop().create_task(run())
        except RuntimeError:
            asyncio.run(run())
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def subscriber_count(self, channel: str | None = None) -> int:
        if channel is not None:
            return len(self._subscribers.get(channel, []))
        return sum(len(v) for v in self._subscribers.values())

    def clear(self) -> None:
        self._subscribers.clear()


class ScopedEventBus:
    """One extension's view of the bus: its subscriptions can be dropped together (R-EXT-05)."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._unsubscribers: list[Callable[[], None]] = []

    def on(self, channel: str, handler: BusHandler) -> Callable[[], None]:
        unsubscribe = self._bus.on(channel, handler)
        self._unsubscribers.append(unsubscribe)
        return unsubscribe

    def emit(self, channel: str, data: Any = None) -> None:
        self._bus.emit(channel, data)

    def discard(self) -> None:
        for unsubscribe in self._unsubscribers:
            unsubscribe()
        self._unsubscribers.clear()
