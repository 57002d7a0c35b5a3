"""The data model of L1: content blocks, messages, usage, models, tools, contexts, options, events.

Everything here is a plain mutable dataclass with snake_case attributes. The JSON form (session
files, JSON mode, RPC, fixtures) uses pi's camelCase names and is produced only by
``pi_app.ai.codec``; nothing in this module knows about JSON.

Each block and message keeps an ``extra`` mapping for keys it does not know, so that data written by
a newer program survives a round trip unchanged (R-AI-08).

The ``type``/``role`` discriminators are class variables: ``TextContent().type == "text"``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

if TYPE_CHECKING:
    from pi_app.ai.event_stream import AbortSignal

Api: TypeAlias = str
ProviderId: TypeAlias = str
StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
ThinkingLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]
CacheRetention: TypeAlias = Literal["none", "short", "long"]
Transport: TypeAlias = Literal["sse", "websocket", "websocket-cached", "auto"]


# ---------------------------------------------------------------------------------------------
# Content blocks
# ---------------------------------------------------------------------------------------------


@dataclass
class TextContent:
    """A text block of a message."""

    text: str = ""
    text_signature: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "text"


@dataclass
class ThinkingContent:
    """A reasoning block of an assistant message (``redacted``: encrypted by the provider)."""

    thinking: str = ""
    thinking_signature: str | None = None
    redacted: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "thinking"


@dataclass
class ImageContent:
    """An image block: base64 ``data`` of type ``mime_type``."""

    data: str = ""
    mime_type: str = "image/png"
    extra: dict[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "image"


@dataclass
class ToolCall:
    """A tool call of an assistant message; ``arguments`` as parsed from the model's JSON."""

    id: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    thought_signature: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "toolCall"


@dataclass
class UnknownContent:
    """A block whose ``type`` this version does not know; kept verbatim (``raw`` includes ``type``)."""

    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.raw.get("type", ""))


ContentBlock: TypeAlias = TextContent | ThinkingContent | ImageContent | ToolCall | UnknownContent
UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall


# ---------------------------------------------------------------------------------------------
# Usage
# ---------------------------------------------------------------------------------------------


@dataclass
class Cost:
    """US dollars."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    total: float = 0


@dataclass
class Usage:
    """Token counts and cost of one reply."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = field(default_factory=Cost)
    cache_write_1h: int | None = None
    reasoning: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


@dataclass
class UserMessage:
    """A user turn: a string or a list of text and image blocks."""

    content: str | list[Any] = field(default_factory=list)
    timestamp: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    role: ClassVar[str] = "user"


@dataclass
class AssistantMessage:
    """A model reply with its usage, stop reason and (on failure) error message."""

    content: list[Any] = field(default_factory=list)
    api: Api = ""
    provider: ProviderId = ""
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    timestamp: int = 0
    response_id: str | None = None
    response_model: str | None = None
    error_message: str | None = None
    diagnostics: list[dict[str, Any]] | None = None
    duration_ms: int | None = None  # pi 1.6.0: request start to final message (set by the agent loop)
    thinking_level: str | None = None  # pi 1.6.0: the level requested for this response
    extra: dict[str, Any] = field(default_factory=dict)

    role: ClassVar[str] = "assistant"


@dataclass
class ToolResultMessage:
    """The result of one tool call, sent back to the model."""

    tool_call_id: str = ""
    tool_name: str = ""
    content: list[Any] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = 0
    usage: Usage | None = None
    added_tool_names: list[str] | None = None
    duration_ms: int | None = None  # pi 1.6.0: how long the tool's execute() took
    extra: dict[str, Any] = field(default_factory=dict)

    role: ClassVar[str] = "toolResult"


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


# ---------------------------------------------------------------------------------------------
# Model, tools, context
# ---------------------------------------------------------------------------------------------


@dataclass
class ModelCost:
    """US dollars per million tokens."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cache_write_1h: float | None = None
    # prices that apply instead once a request's input (incl. cache) exceeds ``inputTokensAbove``
    tiers: list[dict[str, float]] | None = None


@dataclass
class Model:
    """One model of a provider: where and how to call it, what it can take and what it costs."""

    id: str
    name: str = ""
    api: Api = "openai-completions"
    provider: ProviderId = ""
    base_url: str = ""
    reasoning: bool = False
    input: list[str] = field(default_factory=lambda: ["text"])
    cost: ModelCost = field(default_factory=ModelCost)
    context_window: int = 128000
    max_tokens: int = 16384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, str | None] | None = None
    # pi 1.6.0 models.json fields, camelCase as in the file (see pi_app.coding.models.model_config)
    input_limits: dict[str, Any] | None = None
    prompt_cache: dict[str, float] | None = None
    sampling_params: dict[str, Any] | None = None
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.id


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    return a is not None and b is not None and a.id == b.id and a.provider == b.provider


@dataclass
class Tool:
    """A tool as the LLM sees it. ``parameters`` is always a JSON-Schema dict on the wire."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    constrained_sampling: dict[str, Any] | None = None


@dataclass
class Context:
    """What a request sends: system prompt, messages and tools."""

    system_prompt: str | None = None
    messages: list[Message] = field(default_factory=list)
    tools: list[Tool] | None = None


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------

PayloadHook: TypeAlias = Callable[
    [dict[str, Any], Model], "dict[str, Any] | None | Awaitable[dict[str, Any] | None]"
]
ResponseHook: TypeAlias = Callable[[int, Mapping[str, str]], "None | Awaitable[None]"]


@dataclass
class StreamOptions:
    """Per-request options common to every API."""

    temperature: float | None = None
    max_tokens: int | None = None
    signal: AbortSignal | None = None
    api_key: str | None = None
    transport: Transport | None = None
    cache_retention: CacheRetention | None = None
    session_id: str | None = None
    on_payload: PayloadHook | None = None
    on_response: ResponseHook | None = None
    headers: dict[str, str] | None = None
    max_retries: int | None = None
    max_retry_delay_ms: int | None = None
    timeout_ms: int | None = None
    metadata: dict[str, Any] | None = None
    env: dict[str, str] | None = None
    # The httpx.AsyncClient to send with; ``Models`` fills it (one client per collection and event
    # loop, R-AI-84). None: the adapter opens a client for the request and closes it afterwards.
    http_client: Any = None


@dataclass
class SimpleStreamOptions(StreamOptions):
    """``StreamOptions`` plus a provider-neutral reasoning level."""

    reasoning: ThinkingLevel | None = None
    thinking_budgets: dict[str, int] | None = None


# ---------------------------------------------------------------------------------------------
# Assistant message events (the 12-event protocol, spec 10 §2.8)
# ---------------------------------------------------------------------------------------------


@dataclass
class StartEvent:
    """The stream has started; ``partial`` is the message being built."""

    partial: AssistantMessage
    type: ClassVar[str] = "start"


@dataclass
class TextStartEvent:
    """A text block starts at ``content_index``."""

    content_index: int
    partial: AssistantMessage
    type: ClassVar[str] = "text_start"


@dataclass
class TextDeltaEvent:
    """More text for the block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: ClassVar[str] = "text_delta"


@dataclass
class TextEndEvent:
    """The text block at ``content_index`` is complete."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: ClassVar[str] = "text_end"


@dataclass
class ThinkingStartEvent:
    """A thinking block starts at ``content_index``."""

    content_index: int
    partial: AssistantMessage
    type: ClassVar[str] = "thinking_start"


@dataclass
class ThinkingDeltaEvent:
    """More reasoning for the block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: ClassVar[str] = "thinking_delta"


@dataclass
class ThinkingEndEvent:
    """The thinking block at ``content_index`` is complete."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: ClassVar[str] = "thinking_end"


@dataclass
class ToolCallStartEvent:
    """A tool call starts at ``content_index``."""

    content_index: int
    partial: AssistantMessage
    type: ClassVar[str] = "toolcall_start"


@dataclass
class ToolCallDeltaEvent:
    """More argument JSON for the tool call at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: ClassVar[str] = "toolcall_delta"


@dataclass
class ToolCallEndEvent:
    """The tool call at ``content_index`` is complete, arguments parsed."""

    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: ClassVar[str] = "toolcall_end"


@dataclass
class DoneEvent:
    """The reply finished; ``message`` is final."""

    reason: StopReason
    message: AssistantMessage
    type: ClassVar[str] = "done"


@dataclass
class ErrorEvent:
    """The reply failed or was aborted; ``error`` holds what arrived and the error message."""

    reason: StopReason
    error: AssistantMessage
    type: ClassVar[str] = "error"


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)

ASSISTANT_EVENT_TYPES: tuple[str, ...] = (
    "start",
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
    "error",
)


def now_ms() -> int:
    """Wall-clock Unix time in integer milliseconds (the unit of every message timestamp)."""
    return int(time.time() * 1000)
