"""Types of the agent layer: messages, context, tools, hook contexts and the loop configuration.

``AgentMessage`` is any L1 message or an application-defined ``AgentCustomMessage`` subclass
(spec 20 §2.1). The loop never inspects custom kinds; only the ``convert_to_llm`` callback supplied
by the upper layer understands them.

A tool is anything with the ``AgentTool`` attributes (structural typing; R-PHIL-07): a plain
dataclass with ``name``, ``label``, ``description``, ``parameters`` and ``execute`` works.
``parameters`` is a pydantic model class, a ``StructParams`` Struct (the built-in tools') or a
JSON-Schema dict (00-index.md, decision D-15; ``pi_app.ai.util.validation``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeAlias, runtime_checkable

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    SimpleStreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
)

AgentThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
ToolExecutionMode: TypeAlias = Literal["sequential", "parallel"]
QueueMode: TypeAlias = Literal["all", "one-at-a-time"]

# How long an aborted tool may keep running before its task is cancelled (decision D-20). Issue 19
# item 2 asks every tool to stop within 100 ms of an abort; the built-in ones stop on their own.
TOOL_ABORT_GRACE_S = 0.1


@dataclass(kw_only=True)
class AgentCustomMessage:
    """Base class of application-defined message kinds (``bashExecution``, ``custom`` …).

    Like the L1 messages, the ``role`` discriminator is a class variable; ``timestamp`` (Unix ms)
    is a keyword-only field, so subclasses may add fields without defaults::

        @dataclass
        class Notification(AgentCustomMessage):
            text: str
            role: ClassVar[str] = "notification"

        Notification("build finished", timestamp=now_ms())

    A subclass whose role varies per instance may declare ``role`` as an ordinary (keyword-only)
    field instead. The loop passes such messages through untouched; ``convert_to_llm`` decides
    what the model sees.
    """

    timestamp: int = 0

    role: ClassVar[str] = "custom"


AgentMessage: TypeAlias = Message | AgentCustomMessage

_MESSAGE_ROLES: dict[str, type] = {}


def register_message_role(role: str, cls: type) -> None:
    """Optional role -> class registry for upper layers' deserialisation."""
    _MESSAGE_ROLES[role] = cls


def message_class_for_role(role: str) -> type | None:
    return _MESSAGE_ROLES.get(role)


@dataclass
class AgentToolResult:
    """What a tool returns: content for the model, ``details`` for the UI."""

    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: Any = None
    terminate: bool = False
    added_tool_names: list[str] | None = None
    structured_content: Any = None  # pi 1.6.0: data for programmatic callers (bash, read)
    is_error: bool = False  # pi 1.6.0: a returned failure that keeps its details and structured content


ToolUpdateCallback: TypeAlias = Callable[[AgentToolResult], None]


@runtime_checkable
class AgentTool(Protocol):
    """What the loop needs of a tool (spec 20 §2.3); any object with these attributes will do.

    Optional attributes, read with ``getattr``: ``execution_mode`` (``"sequential"`` serialises
    the whole batch), ``prepare_arguments(raw) -> raw`` (a compatibility shim run before
    validation) and ``constrained_sampling`` (forwarded to the LLM tool definition). ``execute``
    raises to report failure and should honour ``signal``; ``on_update`` is synchronous.
    """

    name: str
    label: str
    description: str
    parameters: Any

    async def execute(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult: ...


@dataclass
class AgentContext:
    """The agent's view of a conversation: system prompt, messages and tools."""

    system_prompt: str = ""
    messages: list[AgentMessage] = field(default_factory=list)
    tools: list[Any] | None = None


@dataclass
class BeforeToolCallContext:
    """What the ``before_tool_call`` hook sees."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    context: AgentContext


@dataclass
class BeforeToolCallResult:
    """The ``before_tool_call`` hook's answer: block the call, or end the run."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass
class AfterToolCallContext:
    """What the ``after_tool_call`` hook sees."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass
class AfterToolCallResult:
    """The ``after_tool_call`` hook's changes to the result (None keeps a field)."""

    content: list[Any] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


@dataclass
class TurnContext:
    """What the end-of-turn hook sees."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    new_messages: list[AgentMessage]


@dataclass
class AgentLoopTurnUpdate:
    """Changes the end-of-turn hook makes for the next turn (None keeps a field)."""

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: AgentThinkingLevel | None = None


MaybeAwaitable: TypeAlias = Any


@dataclass
class AgentLoopConfig:
    """Everything the loop knows (spec 20 §2.5). Only ``model`` and ``convert_to_llm`` are required."""

    model: Model
    convert_to_llm: Callable[[list[AgentMessage]], MaybeAwaitable]
    stream_options: SimpleStreamOptions = field(default_factory=SimpleStreamOptions)
    transform_context: (
        Callable[[list[AgentMessage], AbortSignal | None], Awaitable[list[AgentMessage]]] | None
    ) = None
    get_api_key: Callable[[str], MaybeAwaitable] | None = None
    get_steering_messages: Callable[[], Awaitable[list[AgentMessage]]] | None = None
    get_follow_up_messages: Callable[[], Awaitable[list[AgentMessage]]] | None = None
    should_stop_after_turn: Callable[[TurnContext], MaybeAwaitable] | None = None
    prepare_next_turn: Callable[[TurnContext], MaybeAwaitable] | None = None
    before_tool_call: (
        Callable[[BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]] | None
    ) = None
    after_tool_call: (
        Callable[[AfterToolCallContext, AbortSignal | None], Awaitable[AfterToolCallResult | None]] | None
    ) = None
    tool_execution: ToolExecutionMode = "parallel"
    tool_abort_grace_s: float | None = TOOL_ABORT_GRACE_S
