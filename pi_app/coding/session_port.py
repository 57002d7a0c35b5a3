"""What a shell may ask of a session, and what it may show of one (issue 21, decision D-13).

A shell (the Textual app; any future one) drives an ``AgentSession`` that lives on another
thread's asyncio loop. Two things cross that boundary, and only these:

* ``SessionControl``: the typed protocol of the requests a shell may make (prompt, steer,
  follow-up, abort, compact, navigate the tree, set the model and thinking level, …). The shell
  never calls them directly: it hands a callable to its bridge, which runs it on the session's
  loop (``pi_app.tui.bridge.session.SessionBridge``).
* ``SessionSnapshot``: a frozen record of everything a shell may show (model, thinking level,
  name, usage totals, context usage, queues, busy / compacting / retrying). The session builds
  it on its own loop (``AgentSession.snapshot``) and publishes a fresh one with each batch of
  events (``EventBatch``, from ``AgentSession.subscribe_batches``), so a shell never reads
  entries, usage or queues of the session from its own thread, and everything it shows at one
  moment comes from one snapshot: the fields of two moments are never mixed.

Batches: events are collected on the session's loop and delivered together once the loop is
free (``call_soon``), so a burst of events (a tool's end, the next message's start) costs the
shell one crossing and one snapshot. Streamed deltas (``message_update``) are coalesced to at
most one batch per ``delta_interval`` (a frame): a 200 KB answer in 5-character chunks would
otherwise cross the thread 40 000 times. Every other event is delivered on the next loop turn.

No import of Textual or of the session itself: ``pi_app.coding.agent_session`` imports this
module, and shells type against it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from pi_app.agent.events import AgentEvent
    from pi_app.ai.types import ImageContent, Model
    from pi_app.coding.session_events import (
        AgentSettledEvent,
        AutoRetryEndEvent,
        AutoRetryStartEvent,
        CompactionEndEvent,
        CompactionStartEvent,
        QueueUpdateEvent,
        SessionInfoChangedEvent,
        ThinkingLevelChangedEvent,
    )

    SessionEvent: TypeAlias = (
        AgentEvent
        | AgentSettledEvent
        | QueueUpdateEvent
        | CompactionStartEvent
        | CompactionEndEvent
        | SessionInfoChangedEvent
        | ThinkingLevelChangedEvent
        | AutoRetryStartEvent
        | AutoRetryEndEvent
    )
else:
    SessionEvent = Any

__all__ = [
    "BatchListener",
    "EventBatch",
    "EventBatcher",
    "SessionControl",
    "SessionEvent",
    "SessionSnapshot",
    "TimedEvent",
    "UsageTotals",
]

log = logging.getLogger(__name__)

DELTA_INTERVAL_S = 1 / 60
"""At most one batch of streamed deltas per frame (the transcript paints at most once per frame)."""


@dataclass(frozen=True)
class UsageTotals:
    """Token and cost totals over the session's recorded assistant messages."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def plus(self, messages: Sequence[Any]) -> UsageTotals:
        """These totals with the assistant messages among ``messages`` added."""
        inp, out, read, write, cost = self.input, self.output, self.cache_read, self.cache_write, self.cost
        for message in messages:
            if getattr(message, "role", None) != "assistant":
                continue
            usage = message.usage
            inp += usage.input
            out += usage.output
            read += usage.cache_read
            write += usage.cache_write
            cost += usage.cost.total
        return UsageTotals(inp, out, read, write, cost)


@dataclass(frozen=True)
class SessionSnapshot:
    """What a shell may show of the session, all taken at one moment on the session's loop.

    ``seq`` grows by one with each snapshot the session builds: a shell keeps the newest it has
    seen and ignores an older one that arrives late. Equality ignores it: two snapshots are equal
    when they show the same.
    """

    seq: int = field(default=0, compare=False)
    session_id: str = ""
    session_file: str | None = None
    cwd: str = ""
    """The session's working folder (its manager's)."""
    session_dir: str = ""
    """Where the session's folder keeps its files (``/resume`` lists them)."""
    session_name: str | None = None
    model_id: str | None = None
    provider: str | None = None
    reasoning: bool = False
    """The model can think: the footer names the thinking level and the editor border shows it."""
    thinking_level: str = "off"
    thinking_levels: tuple[str, ...] = ("off",)
    """The levels the model supports (``off`` alone without a reasoning model): ``/thinking``."""
    usage: UsageTotals = field(default_factory=UsageTotals)
    subscription: bool = False
    """The model's provider is signed in with OAuth (the footer's ``(sub)``)."""
    context_tokens: int | None = 0
    """Tokens in the context (None: unknown right after a compaction until a fresh reply)."""
    context_window: int = 0
    auto_compact: bool = True
    steering: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    streaming: bool = False
    busy: bool = False
    """A run, retry wait or compaction is in progress (the session is not settled)."""
    compacting: bool = False
    retrying: bool = False
    save_error: str | None = None
    """Why the session file is not being saved (None once a write works again)."""

    @property
    def has_model(self) -> bool:
        return self.model_id is not None


@dataclass(frozen=True)
class TimedEvent:
    """One session event and when it happened on the session's thread (``time.monotonic``): a
    busy shell may handle a tool's start and end together, and a tool's ``Took N.Ns`` must
    measure the tool, not the delivery."""

    event: SessionEvent
    at: float


@dataclass(frozen=True)
class EventBatch:
    """Events delivered together, in order, and the snapshot taken right after the last one."""

    events: tuple[TimedEvent, ...]
    snapshot: SessionSnapshot


BatchListener: TypeAlias = Callable[[EventBatch], None]


class SessionControl(Protocol):
    """The requests a shell may make of a session (run on the session's loop by the shell's bridge)."""

    @property
    def cwd(self) -> str: ...

    def snapshot(self) -> SessionSnapshot:
        """What a shell may show, as of now (call it on the session's loop)."""
        ...

    def subscribe_batches(self, listener: BatchListener) -> Callable[[], None]:
        """Deliver every event in batches with a fresh snapshot each; returns the unsubscribe."""
        ...

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        source: str = "interactive",
        expand: bool = True,
        on_accepted: Callable[[str], None] | None = None,
    ) -> None: ...

    def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None: ...

    def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None: ...

    def clear_queue(self) -> list[str]: ...

    def abort(self) -> None: ...

    def abort_retry(self) -> None: ...

    def abort_compaction(self) -> None: ...

    def abort_branch_summary(self) -> None: ...

    def abort_bash(self) -> None: ...

    async def compact(self, custom_instructions: str | None = None) -> Any: ...

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> Any: ...

    async def fork(self, entry_id: str, position: str = "before") -> Any: ...

    async def clone(self) -> Any: ...

    async def new_session(self, parent_session: str | None = None) -> bool: ...

    async def switch_session(self, path: str) -> Any: ...

    async def set_model(self, model: Model, *, persist_default: bool = True, source: str = "set") -> None: ...

    async def cycle_model(self, direction: int = 1) -> Any: ...

    def set_thinking_level(self, level: str, *, persist_default: bool = True) -> None: ...

    def cycle_thinking_level(self) -> str: ...

    def set_session_name(self, name: str) -> None: ...

    async def wait_for_idle(self) -> None: ...


class EventBatcher:
    """Collects one session's events on its loop and hands them to ``listener`` in batches.

    ``build_snapshot`` runs on the session's loop right before each delivery. Used by
    ``AgentSession.subscribe_batches``; the listener must be quick (the app's bridge only posts).
    """

    def __init__(
        self,
        listener: BatchListener,
        build_snapshot: Callable[[], SessionSnapshot],
        *,
        delta_interval: float = DELTA_INTERVAL_S,
    ) -> None:
        self._listener = listener
        self._build_snapshot = build_snapshot
        self._delta_interval = delta_interval
        self._events: list[TimedEvent] = []
        self._handle: asyncio.Handle | asyncio.TimerHandle | None = None
        self._soon = False
        self._last_flush = 0.0
        self._last_snapshot = SessionSnapshot()
        self.closed = False

    def __call__(self, event: SessionEvent) -> None:
        """The session listener: note the event and make sure a delivery is scheduled."""
        if self.closed:
            return
        now = time.monotonic()
        self._events.append(TimedEvent(event, now))
        delta = event.type == "message_update"
        if self._handle is not None and (self._soon or delta):
            return  # a delivery is coming at least as soon as this event needs
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the loop (a synchronous caller): deliver now
            self.flush()
            return
        if self._handle is not None:  # a delta's delivery was waiting for the frame: sooner now
            self._handle.cancel()
        wait = self._last_flush + self._delta_interval - now if delta else 0.0
        if wait > 0:
            self._soon = False
            self._handle = loop.call_later(wait, self.flush)
        else:
            self._soon = True
            self._handle = loop.call_soon(self.flush)

    def flush(self) -> None:
        """Deliver what was collected (nothing when empty) with a snapshot taken now."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._soon = False
        if not self._events or self.closed:
            return
        events, self._events = tuple(self._events), []
        self._last_flush = time.monotonic()
        try:
            snapshot = self._last_snapshot = self._build_snapshot()
        except Exception:  # the events still go out, with the last snapshot that could be built
            log.exception("building the session snapshot failed")
            snapshot = self._last_snapshot
        self._listener(EventBatch(events, snapshot))

    def close(self) -> None:
        self.closed = True
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._events.clear()
