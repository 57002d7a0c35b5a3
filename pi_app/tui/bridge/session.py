"""The bridge between the Textual app and the ``AgentSession`` running on its own loop (D-13).

The session lives on a private asyncio loop in a worker thread, so nothing the agent does (SSE
parsing, tools, token counting) can stall typing or painting. The bridge is the only thing that
crosses the two threads:

* Events go out. The bridge subscribes to the session's batches (``subscribe_batches``: events
  collected on the agent loop, each batch with a fresh ``SessionSnapshot``) and posts every
  event as its own typed message (``bridge.messages``), then ``SnapshotPublished``; the app
  routes each to the part that owns it. Consecutive deltas of one batch are posted as their
  last one (the message object is the same growing reply; the transcript needs the latest).
  What a handler would otherwise read from the session on the UI thread (the cache-miss notice
  of a reply, what a compaction cost and the context to redraw) is looked up here, on the loop.
* Calls come in: ``call`` (fire and forget), ``request`` (await a result; the snapshot taken
  right after it is handed to ``on_snapshot`` before the caller resumes, so what the caller
  shows next is current) and ``call_soon`` (abort, queue changes) hop onto the agent loop.
* Questions go to the user: ``ask_user`` is the one way any other thread (the agent loop, an
  extension's loop) waits for an answer from the screen (the trust question, an extension's
  dialog, a login code): it posts the question's flow (``QuestionAsked``), the app runs it in a
  worker, the flow shows the question in the editor slot and waits for it there (``slot.ask``),
  and its answer comes back through a future. The asker may stop waiting (a timeout, an abort):
  the flow is then cancelled and its widget leaves the slot. When the app closes, every asker
  still waiting gets its default answer.

The app never waits for the agent; the agent waits for the user only through ``ask_user``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from textual.message import Message

from pi_app.coding.session_port import EventBatch, SessionEvent, SessionSnapshot, TimedEvent
from pi_app.tui.bridge.messages import (
    AgentEnded,
    AgentStarted,
    CompactionEnded,
    CompactionStarted,
    MessageEnded,
    MessageStarted,
    MessageUpdated,
    QuestionAsked,
    QueueUpdated,
    RetryEnded,
    RetryStarted,
    SessionCallFailed,
    SessionInfoChanged,
    SessionMessage,
    SessionReady,
    SnapshotPublished,
    ThinkingLevelChanged,
    ToolEnded,
    ToolStarted,
    ToolUpdated,
)

if TYPE_CHECKING:
    from pi_app.agent.events import MessageUpdateEvent
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.sdk import CreatedSession

log = logging.getLogger(__name__)
T = TypeVar("T")
SessionFactory = Callable[[], Awaitable["CreatedSession"]]
_ASKERS_GRACE_S = 1.0
"""How long the ending agent loop lets the askers of pending questions take their default answers."""

_MESSAGE_OF: dict[str, type[SessionMessage]] = {
    "agent_start": AgentStarted,
    "agent_end": AgentEnded,
    "message_start": MessageStarted,
    "message_update": MessageUpdated,
    "message_end": MessageEnded,
    "tool_execution_start": ToolStarted,
    "tool_execution_update": ToolUpdated,
    "tool_execution_end": ToolEnded,
    "queue_update": QueueUpdated,
    "compaction_start": CompactionStarted,
    "compaction_end": CompactionEnded,
    "auto_retry_start": RetryStarted,
    "auto_retry_end": RetryEnded,
    "thinking_level_changed": ThinkingLevelChanged,
    "session_info_changed": SessionInfoChanged,
}
"""The message class of each event type the app shows (the event's declared ``type``)."""


def _reply(event: SessionEvent) -> object:
    """The growing reply of a ``message_update`` event."""
    return cast("MessageUpdateEvent", event).message


class SessionBridge:
    """Owns the agent thread and loop; all public methods are safe to call from the UI thread."""

    def __init__(
        self,
        post: Callable[[Message], Any],
        factory: SessionFactory,
        *,
        on_snapshot: Callable[[SessionSnapshot], None] | None = None,
    ) -> None:
        self._post = post
        self._factory = factory
        self._on_snapshot = on_snapshot
        self._questions: set[_Question[Any]] = set()
        """The questions whose askers are waiting (``ask_user``)."""
        self._questions_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop_requested = threading.Event()
        self.session: AgentSession | None = None
        self.created: CreatedSession | None = None

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
                self._let_askers_return(loop)
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
        session = self.session = created.session
        session.subscribe_batches(self._publish)
        self._post(SessionReady(created, snapshot=session.snapshot()))

    def warm_up(self) -> None:
        """Load the tokenizer on a thread of its own. The footer's context estimates need it and
        its first load takes a few hundred milliseconds: not on the UI thread at the first reply,
        not on the agent loop (a prompt typed meanwhile would wait for it), and not before the app
        has painted the session (model in the footer) either — the app calls this after that
        frame (issue 20)."""
        threading.Thread(target=self._load_tokenizer, name="pi-tokenizer", daemon=True).start()

    @staticmethod
    def _load_tokenizer() -> None:
        from pi_app.coding.compaction.estimate import using_tiktoken

        using_tiktoken()

    # -- events out (agent loop) --------------------------------------------------------------------

    def _publish(self, batch: EventBatch) -> None:
        """One batch: each event as its typed message, then the batch's snapshot. The snapshot is
        posted whatever happens before it: the app holds painting until it arrives."""
        snapshot = batch.snapshot
        events = batch.events
        try:
            for index, timed in enumerate(events):
                event = timed.event
                cls = _MESSAGE_OF.get(event.type)
                if cls is None:
                    continue
                if cls is MessageUpdated and index + 1 < len(events):
                    following = events[index + 1].event
                    if following.type == "message_update" and _reply(following) is _reply(event):
                        continue  # the next delta of the same reply carries everything this one did
                self._post(self._message(cls, timed, snapshot))
        finally:
            self._post(SnapshotPublished(snapshot))

    def _message(
        self, cls: type[SessionMessage], timed: TimedEvent, snapshot: SessionSnapshot
    ) -> SessionMessage:
        event: Any = timed.event
        try:
            if cls is MessageEnded:
                return MessageEnded(timed.at, snapshot, event, self._cache_notice(event.message))
            if cls is CompactionEnded:
                usage, context = self._after_compaction(event)
                return CompactionEnded(timed.at, snapshot, event, usage, context)
        except Exception:  # an extra that cannot be looked up must not lose the event
            log.exception("looking up what %s needs failed", event.type)
        return cls(timed.at, snapshot, event)  # type: ignore[call-arg]  # the others take (at, snapshot, event)

    def _cache_notice(self, message: Any) -> str | None:
        """``showCacheMissNotices`` (pi 1.6.0): the warning for a reply that re-paid a cached prompt."""
        session = self.session
        if session is None or getattr(message, "role", None) != "assistant":
            return None
        if not session.settings_manager.get_show_cache_miss_notices():
            return None
        from pi_app.coding.cache_notices import detect_cache_miss, notice_text

        messages = session.messages
        end = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is message), len(messages))
        previous = None
        for earlier in reversed(messages[:end]):
            if getattr(earlier, "timestamp", None) == getattr(message, "timestamp", 0):
                continue  # the answer itself, as a copy
            if getattr(earlier, "role", None) == "assistant":
                previous = earlier
                break
        return notice_text(detect_cache_miss(previous, message, session.model))

    def _after_compaction(self, event: Any) -> tuple[Any, list[Any] | None]:
        """The compaction's usage (its entry) and the context to redraw, when it produced one."""
        session = self.session
        if session is None or event.result is None or event.aborted:
            return None, None
        manager = session.session_manager
        usage = None
        for entry in reversed(manager.get_entries()[-50:]):
            if entry.type == "compaction":
                usage = entry.raw.get("usage")
                break
        from pi_app.tui.transcript.history import context_messages  # loaded by the app long before

        return usage, context_messages(session)

    # -- calls from the UI thread -------------------------------------------------------------------

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def call(self, fn: Callable[[AgentSession], Any]) -> Future[Any] | None:
        """Run ``fn(session)`` (sync or async) on the agent loop; failures are posted, not raised."""
        loop = self._loop
        session = self.session
        if loop is None or session is None or loop.is_closed():
            return None

        async def invoke() -> Any:
            try:
                result = fn(session)
                if asyncio.iscoroutine(result):
                    result = await result
                return result
            except Exception as exc:
                self._post(SessionCallFailed(str(exc) or type(exc).__name__))
                return None

        return asyncio.run_coroutine_threadsafe(invoke(), loop)

    async def request(self, fn: Callable[[AgentSession], Any]) -> Any:
        """Run ``fn(session)`` on the agent loop and await its result here (exceptions propagate).

        For UI code that needs an answer (available models, compaction results); fire-and-forget
        calls use ``call``. The snapshot taken right after ``fn`` reaches ``on_snapshot`` before
        this returns, so the footer already shows what ``fn`` changed.
        """
        loop = self._loop
        session = self.session
        if loop is None or session is None or loop.is_closed():
            raise RuntimeError("The session is not running")

        async def invoke() -> tuple[Any, SessionSnapshot]:
            try:
                result = fn(session)
                if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
                    result = await result
            except BaseException:
                self._post(SnapshotPublished(session.snapshot()))
                raise
            return result, session.snapshot()

        result, snapshot = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(invoke(), loop))
        if self._on_snapshot is not None:
            self._on_snapshot(snapshot)
        return result

    def call_soon(self, fn: Callable[[AgentSession], Any]) -> None:
        """Run the synchronous ``fn(session)`` on the agent loop as soon as possible (abort, steer)."""
        loop = self._loop
        session = self.session
        if loop is None or session is None or loop.is_closed():
            return

        def invoke() -> None:
            try:
                fn(session)
            except Exception as exc:
                self._post(SessionCallFailed(str(exc) or type(exc).__name__))

        loop.call_soon_threadsafe(invoke)

    def publish_snapshot(self) -> None:
        """Take a fresh snapshot on the agent loop and post it (after a change made on the UI side)."""
        self.call_soon(lambda session: self._post(SnapshotPublished(session.snapshot())))

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def abort(self) -> None:
        loop = self._loop
        session = self.session
        if loop is not None and session is not None and not loop.is_closed():
            loop.call_soon_threadsafe(session.abort)

    def stop(self) -> None:
        """End the agent thread (safe at any time, even while the session is still being built);
        the questions still waiting for the user get their default answers."""
        self._stop_requested.set()
        self._withdraw_questions()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(loop.stop)
            except RuntimeError:  # closed meanwhile
                pass

    # -- questions to the user (from the agent thread, or any other) ----------------------------------

    async def ask_user(self, flow: Callable[[], Awaitable[T]], default: T) -> T:
        """Ask the user something from any thread: ``flow`` (a coroutine function that shows the
        question in the editor slot and returns the answer, ``slot.ask``) runs in a worker on the
        UI thread, and the caller waits here, on its own loop, for the answer. ``default`` is the
        answer when the flow fails or is cancelled and when the app closes (or is gone).

        When the caller stops waiting (its task is cancelled: a timeout, an abort, the agent loop
        ending), the flow is cancelled on the UI thread, which takes its widget off the screen."""
        question = _Question(flow, default, asyncio.get_running_loop())
        with self._questions_lock:
            self._questions.add(question)
        try:
            if self._stop_requested.is_set():  # closing already: stop() may have withdrawn the rest
                return default
            try:
                posted = self._post(QuestionAsked(question.run))
            except RuntimeError:  # the app's loop is closed
                posted = False
            if posted is False:  # the app is closing: its queue takes nothing any more
                return default
            return await asyncio.wrap_future(question.answered)
        except asyncio.CancelledError:
            question.withdraw()
            raise
        finally:
            with self._questions_lock:
                self._questions.discard(question)

    def _withdraw_questions(self) -> None:
        """The app is closing: every question still waiting gets its default answer."""
        with self._questions_lock:
            pending = list(self._questions)
        for question in pending:
            question.withdraw()

    def _waiting_on(self, loop: asyncio.AbstractEventLoop) -> bool:
        with self._questions_lock:
            return any(question.asker_loop is loop for question in self._questions)

    def _let_askers_return(self, loop: asyncio.AbstractEventLoop) -> None:
        """The agent loop is ending (the app closed) while askers on it wait: each gets its
        default answer and ``ask_user`` returns it, before the loop's tasks are cancelled."""
        self._withdraw_questions()
        if not self._waiting_on(loop):
            return

        async def returned() -> None:
            while self._waiting_on(loop):
                await asyncio.sleep(0.005)  # not 0: a spin would hold the interpreter from the UI

        try:
            loop.run_until_complete(asyncio.wait_for(returned(), _ASKERS_GRACE_S))
        except TimeoutError:  # an asker that does not wake up is cancelled with the rest
            log.warning("a question's asker did not take its default answer in time")


class _Question(Generic[T]):
    """One question on its way to the user: the flow the UI thread runs and the answer the asking
    thread waits for. Either side may end it first; the answer is set once."""

    def __init__(
        self, flow: Callable[[], Awaitable[T]], default: T, asker_loop: asyncio.AbstractEventLoop
    ) -> None:
        self._flow = flow
        self._default = default
        self.answered: Future[T] = Future()
        self.asker_loop = asker_loop
        """The loop the asking side waits on."""
        self._lock = threading.Lock()
        self._task: asyncio.Task[None] | None = None
        self._withdrawn = False

    async def run(self) -> None:
        """On the UI thread, in a worker: the flow's answer, or the default however it ends."""
        with self._lock:
            if self._withdrawn:
                return
            self._task = asyncio.current_task()
        try:
            self._answer(await self._flow())
        finally:  # cancelled or failed (the app is closing): the default answer
            self._answer(self._default)

    def withdraw(self) -> None:
        """The asking side stopped waiting, or the app is closing (any thread): the flow is
        cancelled on the UI loop, and the answer is the default unless the flow gave one."""
        with self._lock:
            self._withdrawn = True
            task = self._task
        if task is not None and not task.done():
            try:
                task.get_loop().call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the UI loop is closed: nothing left to cancel
                pass
        self._answer(self._default)

    def _answer(self, value: T) -> None:
        try:
            self.answered.set_result(value)
        except InvalidStateError:  # answered already (the flow and a withdrawal raced)
            pass
