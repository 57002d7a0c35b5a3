"""Session-level events of ``AgentSession`` and the JSON form of the whole event stream.

``AgentSessionEvent`` = the ten agent events plus pi's session events (decision D-2):
``agent_settled`` (pi 1.6.0), ``queue_update``, ``compaction_start``, ``compaction_end``, ``session_info_changed``,
``thinking_level_changed``, ``auto_retry_start``, ``auto_retry_end``. JSON mode and RPC print this
stream through :func:`session_event_to_dict`; the serializer never drops an unknown type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pi_app.agent.events import AGENT_EVENT_TYPES, agent_event_to_dict
from pi_app.ai import codec
from pi_app.coding.messages import message_to_dict


@dataclass(frozen=True)
class QueueUpdateEvent:
    """The steering and follow-up queues changed."""

    steering: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)
    type: ClassVar[str] = "queue_update"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "steering": list(self.steering), "followUp": list(self.follow_up)}


@dataclass(frozen=True)
class CompactionStartEvent:
    """A compaction starts (``manual``, ``threshold`` or ``overflow``)."""

    reason: str  # "manual" | "threshold" | "overflow"
    type: ClassVar[str] = "compaction_start"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}


@dataclass(frozen=True)
class CompactionEndEvent:
    """A compaction ended: its result, or aborted, or failed."""

    reason: str
    result: Any = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    type: ClassVar[str] = "compaction_end"

    def to_dict(self) -> dict[str, Any]:
        result = self.result
        if result is not None and not isinstance(result, dict):
            result = result.to_dict() if hasattr(result, "to_dict") else codec.to_json_value(result)
        out: dict[str, Any] = {
            "type": self.type,
            "reason": self.reason,
            "result": result,
            "aborted": self.aborted,
            "willRetry": self.will_retry,
        }
        if self.error_message is not None:
            out["errorMessage"] = self.error_message
        return out


@dataclass(frozen=True)
class SessionInfoChangedEvent:
    """The session's name changed."""

    name: str | None
    type: ClassVar[str] = "session_info_changed"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name}


@dataclass(frozen=True)
class ThinkingLevelChangedEvent:
    """The thinking level changed."""

    level: str
    type: ClassVar[str] = "thinking_level_changed"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "level": self.level}


@dataclass(frozen=True)
class AutoRetryStartEvent:
    """A failed reply will be retried after ``delay_ms``."""

    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: ClassVar[str] = "auto_retry_start"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }


@dataclass(frozen=True)
class AutoRetryEndEvent:
    """Auto-retry is over: it succeeded, or gave up with ``final_error``."""

    success: bool
    attempt: int
    final_error: str | None = None
    type: ClassVar[str] = "auto_retry_end"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "success": self.success, "attempt": self.attempt}
        if self.final_error is not None:
            out["finalError"] = self.final_error
        return out


@dataclass(frozen=True)
class AgentSettledEvent:
    """The session-level run is over: no retry, compaction recovery or queued message follows.

    pi 1.6.0 sends it after the last ``agent_end`` of a prompt; ``aborted`` when the run was aborted.
    """

    aborted: bool = False
    type: ClassVar[str] = "agent_settled"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "aborted": self.aborted}


SESSION_EVENT_TYPES: tuple[str, ...] = (
    "agent_settled",
    "queue_update",
    "compaction_start",
    "compaction_end",
    "session_info_changed",
    "thinking_level_changed",
    "auto_retry_start",
    "auto_retry_end",
)
AGENT_SESSION_EVENT_TYPES: tuple[str, ...] = AGENT_EVENT_TYPES + SESSION_EVENT_TYPES


def session_event_to_dict(event: Any) -> dict[str, Any]:
    """pi 0.73.1's JSON shape of any ``AgentSessionEvent`` (agent events included)."""
    if event.type in AGENT_EVENT_TYPES:
        return agent_event_to_dict(event, message_to_dict)
    to_dict = getattr(event, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    data = codec.to_json_value(event)
    if isinstance(data, dict):
        data.setdefault("type", event.type)
        return data
    return {"type": event.type}
