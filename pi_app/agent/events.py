"""Agent events (spec 20 §2.8) and their JSON form.

Every event is a frozen dataclass with a ``type`` class variable; ``AgentEvent`` is their union and
``AGENT_EVENT_TYPES`` the declared vocabulary (R-PHIL-10). ``agent_event_to_dict`` produces pi
1.6.0's wire shape (``toolCallId``, ``partialResult``, a delta-only ``message_update`` …), built on
``pi_app.ai.codec``; messages that are not L1 kinds are converted by the caller-supplied
``message_to_dict`` (the coding layer knows its custom roles).

The order in which a run emits these events (the run grammar and its invariants I1–I7) is
documented in ``pi_app.agent.loop`` and checked by ``pi_app.agent.testing.check_event_grammar``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from pi_app.agent.types import AgentMessage, AgentToolResult
from pi_app.ai import codec


@dataclass(frozen=True)
class AgentStartEvent:
    """A run of the agent loop begins."""

    type: ClassVar[str] = "agent_start"


@dataclass(frozen=True)
class AgentEndEvent:
    """The run is over; ``messages`` are the ones it added."""

    messages: list[AgentMessage] = field(default_factory=list)
    will_retry: bool = False  # set by the session: an automatic retry follows (pi 1.6.0)
    type: ClassVar[str] = "agent_end"


@dataclass(frozen=True)
class TurnStartEvent:
    """A turn (one reply plus its tool calls) begins."""

    type: ClassVar[str] = "turn_start"


@dataclass(frozen=True)
class TurnEndEvent:
    """The turn is over: the reply and its tool results."""

    message: Any
    tool_results: list[Any] = field(default_factory=list)
    type: ClassVar[str] = "turn_end"


@dataclass(frozen=True)
class MessageStartEvent:
    """A message enters the conversation (a reply: as it starts streaming)."""

    message: AgentMessage
    type: ClassVar[str] = "message_start"


@dataclass(frozen=True)
class MessageUpdateEvent:
    """The streaming reply changed; ``assistant_message_event`` says how."""

    message: AgentMessage
    assistant_message_event: Any
    type: ClassVar[str] = "message_update"


@dataclass(frozen=True)
class MessageEndEvent:
    """The message is complete."""

    message: AgentMessage
    type: ClassVar[str] = "message_end"


@dataclass(frozen=True)
class ToolExecutionStartEvent:
    """A tool call starts running."""

    tool_call_id: str
    tool_name: str
    args: Any
    type: ClassVar[str] = "tool_execution_start"


@dataclass(frozen=True)
class ToolExecutionUpdateEvent:
    """A running tool reported partial output."""

    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: AgentToolResult
    type: ClassVar[str] = "tool_execution_update"


@dataclass(frozen=True)
class ToolExecutionEndEvent:
    """A tool call finished with its result (``is_error`` when it raised)."""

    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool
    duration_ms: int | None = None  # how long execute() took; None when the tool did not run
    type: ClassVar[str] = "tool_execution_end"


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)

AGENT_EVENT_TYPES: tuple[str, ...] = (
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
)

MessageEncoder: TypeAlias = Callable[[Any], Any]


def tool_result_to_dict(result: AgentToolResult) -> dict[str, Any]:
    """``{content, details?, addedToolNames?}``; ``terminate`` is runtime-only and never written."""
    out: dict[str, Any] = {"content": [codec.to_dict(b) for b in (result.content or [])]}
    if result.details is not None:
        out["details"] = codec.to_json_value(result.details)
    if result.added_tool_names:
        out["addedToolNames"] = list(result.added_tool_names)
    if getattr(result, "structured_content", None) is not None:
        out["structuredContent"] = codec.to_json_value(result.structured_content)
    return out


def agent_event_to_dict(event: Any, message_to_dict: MessageEncoder = codec.to_dict) -> dict[str, Any]:
    """pi 1.6.0's JSON shape of an agent event (``message_update`` is delta-only, see json.md)."""
    t = event.type
    if t in ("agent_start", "turn_start"):
        return {"type": t}
    if t == "agent_end":
        return {
            "type": t,
            "messages": [message_to_dict(m) for m in event.messages],
            "willRetry": bool(getattr(event, "will_retry", False)),
        }
    if t == "turn_end":
        return {
            "type": t,
            "message": message_to_dict(event.message),
            "toolResults": [message_to_dict(m) for m in event.tool_results],
        }
    if t in ("message_start", "message_end"):
        return {"type": t, "message": message_to_dict(event.message)}
    if t == "message_update":  # pi 1.6.0: the delta and the latest usage, never the whole message
        usage = getattr(event.message, "usage", None)
        return {
            "type": t,
            "usage": codec.to_dict(usage) if usage is not None else codec.to_dict(codec.Usage()),
            "assistantMessageEvent": codec.event_to_wire_dict(event.assistant_message_event),
        }
    if t == "tool_execution_start":
        return {
            "type": t,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "args": codec.to_json_value(event.args),
        }
    if t == "tool_execution_update":
        return {
            "type": t,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "args": codec.to_json_value(event.args),
            "partialResult": tool_result_to_dict(event.partial_result),
        }
    if t == "tool_execution_end":
        result = tool_result_to_dict(event.result)
        if event.result.terminate:  # the event carries the finalized result; messages never do
            result["terminate"] = True
        out = {
            "type": t,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "result": result,
            "isError": event.is_error,
        }
        duration = getattr(event, "duration_ms", None)
        if duration is not None:
            out["durationMs"] = duration
        return out
    raise ValueError(f"Unknown agent event type: {t!r}")
