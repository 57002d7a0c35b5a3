"""The Textual messages the bridge posts to the app: one class per kind of session event.

Each message carries its typed event, ``at`` (when it happened on the agent thread:
``time.monotonic``) and ``snapshot``, the ``SessionSnapshot`` published with the batch it came in
(``pi_app.coding.session_port``): what a handler shows of the session comes from there, never
from the session itself. After a batch's events the bridge posts ``SnapshotPublished`` with the
same snapshot (the footer, the pending area, the editor border and the title follow it).

Extra fields are what the handler would otherwise have read from the session on the UI thread,
looked up on the agent loop instead: the cache-miss notice of a reply (``MessageEnded``), the
cost of a compaction and the context to redraw after it (``CompactionEnded``).

``turn_start``/``turn_end`` and ``agent_settled`` have no message: nothing on screen follows them.

One message is not an event: ``QuestionAsked`` carries a question for the user from another
thread (``SessionBridge.ask_user``); the app runs its flow in a worker.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

from pi_app.coding.session_port import SessionSnapshot

if TYPE_CHECKING:
    from pi_app.agent.events import (
        AgentEndEvent,
        AgentStartEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
    )
    from pi_app.coding.sdk import CreatedSession
    from pi_app.coding.session_events import (
        AutoRetryEndEvent,
        AutoRetryStartEvent,
        CompactionEndEvent,
        CompactionStartEvent,
        QueueUpdateEvent,
        SessionInfoChangedEvent,
        ThinkingLevelChangedEvent,
    )


@dataclass
class SessionMessage(Message):
    """Base of the messages that carry one session event."""

    at: float
    snapshot: SessionSnapshot


@dataclass
class AgentStarted(SessionMessage):
    event: AgentStartEvent


@dataclass
class AgentEnded(SessionMessage):
    event: AgentEndEvent


@dataclass
class MessageStarted(SessionMessage):
    event: MessageStartEvent


@dataclass
class MessageUpdated(SessionMessage):
    """The streaming reply changed (the bridge posts the last of a batch's consecutive deltas)."""

    event: MessageUpdateEvent


@dataclass
class MessageEnded(SessionMessage):
    event: MessageEndEvent
    cache_notice: str | None = None
    """``showCacheMissNotices``: the warning for a reply that re-paid a cached prompt."""


@dataclass
class ToolStarted(SessionMessage):
    event: ToolExecutionStartEvent


@dataclass
class ToolUpdated(SessionMessage):
    event: ToolExecutionUpdateEvent


@dataclass
class ToolEnded(SessionMessage):
    event: ToolExecutionEndEvent


@dataclass
class QueueUpdated(SessionMessage):
    event: QueueUpdateEvent


@dataclass
class CompactionStarted(SessionMessage):
    event: CompactionStartEvent


@dataclass
class CompactionEnded(SessionMessage):
    event: CompactionEndEvent
    usage: Any = None
    """The compaction's own usage from its session entry (for ``showCacheMissNotices``)."""
    context: list[Any] | None = None
    """The session's context after a successful compaction (what the transcript redraws)."""


@dataclass
class RetryStarted(SessionMessage):
    event: AutoRetryStartEvent


@dataclass
class RetryEnded(SessionMessage):
    event: AutoRetryEndEvent


@dataclass
class ThinkingLevelChanged(SessionMessage):
    event: ThinkingLevelChangedEvent


@dataclass
class SessionInfoChanged(SessionMessage):
    event: SessionInfoChangedEvent


@dataclass
class SnapshotPublished(Message):
    """A fresh snapshot: after each batch of events, and after each request into the session."""

    snapshot: SessionSnapshot


@dataclass
class SessionReady(Message):
    """The session was built (``created``), or could not be (``error``)."""

    created: CreatedSession | None
    error: str | None = None
    snapshot: SessionSnapshot = field(default_factory=SessionSnapshot)


@dataclass
class SessionCallFailed(Message):
    """A call into the session raised; ``error`` is the one-line message to show."""

    error: str


@dataclass
class StartupWarning(Message):
    """A start-up report from the agent thread (``build_session``): one warning line. Posted, never
    waited for: the app may be closing while the session is still being built."""

    text: str


@dataclass
class QuestionAsked(Message):
    """A question for the user (``SessionBridge.ask_user``): ``flow`` is run in a worker on the UI
    thread; it shows the question in the editor slot and hands the answer to the bridge."""

    flow: Callable[[], Coroutine[Any, Any, None]]
