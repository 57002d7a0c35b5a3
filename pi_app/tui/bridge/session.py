"""The bridge between the Textual app and the ``AgentSession`` running on its own loop (D-13).

The session lives on a private asyncio loop in a worker thread, so nothing the agent does (SSE
parsing, tools, token counting) can stall typing or painting. Each session event is wrapped in one
``SessionEvent`` message and posted to the app (``post_message`` is thread-safe). The app calls in
with ``submit``/``call``/``abort``, which hop onto the agent loop; it never waits for the agent.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

SessionFactory = Callable[[], Awaitable[Any]]


@dataclass
class SessionEvent(Message):
    """One ``AgentSessionEvent`` from the agent loop, stamped with the agent thread's clock when it
    happened (``time.monotonic``): a busy UI may handle a tool's start and end together, and the
    bash block's ``Took N.Ns`` must measure the tool, not the delivery."""

    event: Any
    at: float = field(default_factory=time.monotonic)


@dataclass
class SessionReady(Message):
    """The session was built; ``created`` is the ``CreatedSession`` (or None on failure)."""

    created: Any
    error: str | None = None


@dataclass
class SessionCallFailed(Message):
    """A call into the session raised; ``error`` is the one-line message to show."""

    error: str


class SessionBridge:
    """Owns the agent thread and loop; all methods are safe to call from the UI thread."""

    def __init__(self, post: Callable[[Message], Any], factory: SessionFactory) -> None:
        self._post = post
        self._factory = factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop_requested = threading.Event()
        self.session: Any = None
        self.created: Any = None

    # -- thread body ------------------------------------------------------------------------------

    def run(self) -> None:
        """Body of the agent worker thread: build the session, then serve calls until stopped."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            start = loop.create_task(self._start())
            while not start.done() and not self._stop_requested.is_set():
                try:
                    loop.run_until_complete(start)
                except RuntimeError:  # stop() landed while the session was being built
                    pass
            self._ready.set()
            if not self._stop_requested.is_set():
                loop.run_forever()
        finally:
            self._ready.set()
            try:
                if self.session is not None:
                    self.session.dispose()
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            finally:
                loop.close()

    async def _start(self) -> None:
        try:
            created = await self._factory()
        except Exception as exc:
            self._post(SessionReady(None, str(exc) or type(exc).__name__))
            return
        self.created = created
        self.session = created.session
        self.session.subscribe(lambda event: self._post(SessionEvent(event)))
        self._post(SessionReady(created))

    def warm_up(self) -> None:
        """Load the tokenizer on the agent thread. The footer's context estimates need it and its
        first load takes a few hundred milliseconds: not on the UI thread at the first reply, and
        not before the app has painted the session (model in the footer) either — the app calls
        this after that frame (issue 20)."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._load_tokenizer)
        except RuntimeError:  # the loop closed meanwhile (the app is quitting)
            pass

    @staticmethod
    def _load_tokenizer() -> None:
        from pi_app.coding.compaction.estimate import using_tiktoken

        using_tiktoken()

    # -- calls from the UI thread -----------------------------------------------------------------

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def call(self, fn: Callable[[Any], Any]) -> Future[Any] | None:
        """Run ``fn(session)`` (sync or async) on the agent loop; failures are posted, not raised."""
        loop = self._loop
        if loop is None or self.session is None or loop.is_closed():
            return None

        async def invoke() -> Any:
            try:
                result = fn(self.session)
                if asyncio.iscoroutine(result):
                    result = await result
                return result
            except Exception as exc:
                self._post(SessionCallFailed(str(exc) or type(exc).__name__))
                return None

        return asyncio.run_coroutine_threadsafe(invoke(), loop)

    async def request(self, fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(session)`` on the agent loop and await its result here (exceptions propagate).

        For UI code that needs an answer (available models, compaction results); fire-and-forget
        calls use ``call``.
        """
        loop = self._loop
        if loop is None or self.session is None or loop.is_closed():
            raise RuntimeError("The session is not running")

        async def invoke() -> Any:
            result = fn(self.session)
            if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
                result = await result
            return result

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(invoke(), loop))

    def call_soon(self, fn: Callable[[Any], Any]) -> None:
        """Run the synchronous ``fn(session)`` on the agent loop as soon as possible (abort, steer)."""
        loop = self._loop
        if loop is None or self.session is None or loop.is_closed():
            return

        def invoke() -> None:
            try:
                fn(self.session)
            except Exception as exc:
                self._post(SessionCallFailed(str(exc) or type(exc).__name__))

        loop.call_soon_threadsafe(invoke)

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def abort(self) -> None:
        loop = self._loop
        if loop is not None and self.session is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.session.abort)

    def stop(self) -> None:
        """End the agent thread (safe at any time, even while the session is still being built)."""
        self._stop_requested.set()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(loop.stop)
            except RuntimeError:  # closed meanwhile
                pass
