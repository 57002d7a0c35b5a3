"""Async event channels and the one cancellation primitive of every layer.

``EventStream`` is a single-producer/single-consumer channel: the producer ``push``es events
synchronously, a consumer iterates with ``async for``, and anyone may ``await result()`` any number
of times (spec 10 §2.9). ``AssistantMessageEventStream`` completes on ``done``/``error`` and
resolves to the final ``AssistantMessage``.

``AbortController``/``AbortSignal``/``AbortError`` are defined here once and re-exported by the
agent and extension layers (00-index.md, decision D-14). They are confined to the event loop that
created them; other threads abort through the session that owns them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from pi_app.ai.types import AssistantMessage

T = TypeVar("T")
R = TypeVar("R")


class AbortError(Exception):
    """Raised by ``AbortSignal.raise_if_aborted()``; tools raise it to report cancellation."""

    def __init__(self, message: str = "Operation aborted") -> None:
        super().__init__(message)


class StreamProtocolError(RuntimeError):
    """A stream ended without a terminal event and without an explicit result."""


class AbortSignal:
    """Read side of an :class:`AbortController`."""

    def __init__(self) -> None:
        self._aborted = False
        self._reason: Any = None
        self._listeners: list[Callable[[], object]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> Any:
        return self._reason

    def add_listener(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` once when aborted (at once if already aborted; what it returns is
        ignored). Returns a remover."""
        if self._aborted:
            callback()
            return lambda: None
        self._listeners.append(callback)

        def remove() -> None:
            try:
                self._listeners.remove(callback)
            except ValueError:
                pass

        return remove

    async def wait(self) -> None:
        if self._aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def raise_if_aborted(self) -> None:
        if self._aborted:
            raise AbortError()

    def _fire(self, reason: Any) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        listeners, self._listeners = self._listeners, []
        if self._event is not None:
            self._event.set()
        for callback in listeners:
            try:
                callback()
            except Exception:  # a listener must never break abort for the others
                pass


class AbortController:
    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: Any = None) -> None:
        """Idempotent."""
        self.signal._fire(reason)


class EventStream(Generic[T, R]):
    """Unbounded async channel with a completion predicate and a result extractor."""

    def __init__(self, is_complete: Callable[[T], bool], extract_result: Callable[[T], R]) -> None:
        self._is_complete = is_complete
        self._extract_result = extract_result
        self._queue: deque[T] = deque()
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._done = False
        self._result: asyncio.Future[R] | None = None
        self._result_value: tuple[bool, Any] | None = None  # (is_error, value)
        self._iterated = False
        # Keeps the producer task alive (a task only weakly referenced by the loop may be collected).
        self.producer: asyncio.Task[Any] | None = None

    # -- producer side ------------------------------------------------------------------------

    def push(self, event: T) -> None:
        if self._done:
            return
        if self._is_complete(event):
            self._done = True
            self._set_result(False, self._extract_result(event))
        self._queue.append(event)
        self._wake()

    def end(self, result: R | None = None) -> None:
        if self._done and self._result_value is not None:
            self._wake()
            return
        self._done = True
        if result is not None:
            self._set_result(False, result)
        elif self._result_value is None:
            self._set_result(True, StreamProtocolError("stream ended without a terminal event"))
        self._wake()

    def _set_result(self, is_error: bool, value: Any) -> None:
        if self._result_value is not None:
            return
        self._result_value = (is_error, value)
        if self._result is not None and not self._result.done():
            self._apply_result(self._result)

    def _apply_result(self, fut: asyncio.Future[R]) -> None:
        assert self._result_value is not None
        is_error, value = self._result_value
        if is_error:
            fut.set_exception(value)
            fut.exception()  # mark retrieved: nobody may ever await result()
        else:
            fut.set_result(value)

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    # -- consumer side ------------------------------------------------------------------------

    async def __aiter__(self) -> AsyncIterator[T]:
        if self._iterated and self._done and not self._queue:
            return
        self._iterated = True
        while True:
            if self._queue:
                yield self._queue.popleft()
                continue
            if self._done:
                return
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    async def result(self) -> R:
        if self._result is None:
            self._result = asyncio.get_running_loop().create_future()
            if self._result_value is not None:
                self._apply_result(self._result)
        return await asyncio.shield(self._result)

    @property
    def done(self) -> bool:
        return self._done


def _is_terminal(event: Any) -> bool:
    return event.type in ("done", "error")


def _terminal_message(event: Any) -> AssistantMessage:
    return event.message if event.type == "done" else event.error


class AssistantMessageEventStream(EventStream[Any, AssistantMessage]):
    """Completes on ``done``/``error``; ``result()`` is the final ``AssistantMessage``."""

    def __init__(self) -> None:
        super().__init__(_is_terminal, _terminal_message)
