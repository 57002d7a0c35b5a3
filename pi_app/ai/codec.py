"""Conversion between the L1 dataclasses and pi's JSON shapes, and the one line encoder.

One explicit table per class maps snake_case attributes to pi's camelCase keys, in the key order
pi 0.73.1 writes, so files and streams diff cleanly against the TypeScript pi's. Optional values
that are ``None`` are omitted; keys this version does not know are kept in each object's ``extra``
and written back unchanged (R-AI-07, R-AI-08).

``encode_line`` is the single compact encoder used for session lines, JSON mode and RPC
(00-index.md, decision D-12): no spaces, non-ASCII kept literally, integral floats written as
integers and non-finite floats as ``null`` (what JavaScript's ``JSON.stringify`` produces). A lone
UTF-16 surrogate in a string is written as U+FFFD, so every line it returns encodes as UTF-8.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields, is_dataclass
from typing import Any

from pi_app.ai.growing import GrowingText, GrowingThinking, GrowingToolCall
from pi_app.ai.types import (
    AssistantMessage,
    AssistantMessageEvent,
    ContentBlock,
    Cost,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Message,
    Model,
    ModelCost,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    UnknownContent,
    Usage,
    UserMessage,
)
from pi_app.ai.util.sanitize import replace_lone_surrogates

# (attribute, json key) in pi's key order. The discriminator (type/role) is written first.
_TEXT = (("text", "text"), ("text_signature", "textSignature"))
_THINKING = (("thinking", "thinking"), ("thinking_signature", "thinkingSignature"), ("redacted", "redacted"))
_IMAGE = (("data", "data"), ("mime_type", "mimeType"))
_TOOL_CALL = (
    ("id", "id"),
    ("name", "name"),
    ("arguments", "arguments"),
    ("thought_signature", "thoughtSignature"),
)
_COST = (
    ("input", "input"),
    ("output", "output"),
    ("cache_read", "cacheRead"),
    ("cache_write", "cacheWrite"),
    ("total", "total"),
)
_USAGE = (
    ("input", "input"),
    ("output", "output"),
    ("cache_read", "cacheRead"),
    ("cache_write", "cacheWrite"),
    ("cache_write_1h", "cacheWrite1h"),
    ("reasoning", "reasoning"),
    ("total_tokens", "totalTokens"),
    ("cost", "cost"),
)
_USER = (("content", "content"), ("timestamp", "timestamp"))
_ASSISTANT = (
    ("content", "content"),
    ("api", "api"),
    ("provider", "provider"),
    ("model", "model"),
    ("usage", "usage"),
    ("stop_reason", "stopReason"),
    ("timestamp", "timestamp"),
    ("response_id", "responseId"),
    ("response_model", "responseModel"),
    ("error_message", "errorMessage"),
    ("diagnostics", "diagnostics"),
    ("duration_ms", "durationMs"),
    ("thinking_level", "thinkingLevel"),
)
_TOOL_RESULT = (
    ("tool_call_id", "toolCallId"),
    ("tool_name", "toolName"),
    ("content", "content"),
    ("details", "details"),
    ("added_tool_names", "addedToolNames"),
    ("usage", "usage"),
    ("is_error", "isError"),
    ("duration_ms", "durationMs"),
    ("timestamp", "timestamp"),
)
_MODEL_COST = (
    ("input", "input"),
    ("output", "output"),
    ("cache_read", "cacheRead"),
    ("cache_write", "cacheWrite"),
    ("cache_write_1h", "cacheWrite1h"),
    ("tiers", "tiers"),
)
_MODEL = (
    ("id", "id"),
    ("name", "name"),
    ("api", "api"),
    ("provider", "provider"),
    ("base_url", "baseUrl"),
    ("reasoning", "reasoning"),
    ("thinking_level_map", "thinkingLevelMap"),
    ("input", "input"),
    ("cost", "cost"),
    ("context_window", "contextWindow"),
    ("max_tokens", "maxTokens"),
    ("headers", "headers"),
    ("compat", "compat"),
    ("input_limits", "inputLimits"),
    ("prompt_cache", "promptCache"),
    ("sampling_params", "samplingParams"),
    ("sampling_params_by_thinking_level", "samplingParamsByThinkingLevel"),
)

_BLOCK_TABLES: dict[type, tuple[tuple[str, str], ...]] = {
    TextContent: _TEXT,
    ThinkingContent: _THINKING,
    ImageContent: _IMAGE,
    ToolCall: _TOOL_CALL,
}
_MESSAGE_TABLES: dict[type, tuple[tuple[str, str], ...]] = {
    UserMessage: _USER,
    AssistantMessage: _ASSISTANT,
    ToolResultMessage: _TOOL_RESULT,
}
# A partial message may still hold growing blocks (``pi_app.ai.growing``): they encode as plain ones.
_BLOCK_TABLES.update({GrowingText: _TEXT, GrowingThinking: _THINKING, GrowingToolCall: _TOOL_CALL})
_EVENT_TABLES: dict[type, tuple[tuple[str, str], ...]] = {
    StartEvent: (("partial", "partial"),),
    TextStartEvent: (("content_index", "contentIndex"), ("partial", "partial")),
    TextDeltaEvent: (("content_index", "contentIndex"), ("delta", "delta"), ("partial", "partial")),
    TextEndEvent: (("content_index", "contentIndex"), ("content", "content"), ("partial", "partial")),
    ThinkingStartEvent: (("content_index", "contentIndex"), ("partial", "partial")),
    ThinkingDeltaEvent: (("content_index", "contentIndex"), ("delta", "delta"), ("partial", "partial")),
    ThinkingEndEvent: (("content_index", "contentIndex"), ("content", "content"), ("partial", "partial")),
    ToolCallStartEvent: (("content_index", "contentIndex"), ("partial", "partial")),
    ToolCallDeltaEvent: (("content_index", "contentIndex"), ("delta", "delta"), ("partial", "partial")),
    ToolCallEndEvent: (("content_index", "contentIndex"), ("tool_call", "toolCall"), ("partial", "partial")),
    DoneEvent: (("reason", "reason"), ("message", "message")),
    ErrorEvent: (("reason", "reason"), ("error", "error")),
}
_EVENT_BY_TYPE = {cls.type: cls for cls in _EVENT_TABLES}  # type: ignore[attr-defined]  # ClassVar type
_BLOCK_BY_TYPE = {cls.type: cls for cls in (TextContent, ThinkingContent, ImageContent, ToolCall)}
_MESSAGE_BY_ROLE = {cls.role: cls for cls in _MESSAGE_TABLES}  # type: ignore[attr-defined]  # ClassVar role


def _js_number(value: Any) -> Any:
    """Floats as JavaScript prints them: 0.0 -> 0, non-finite -> None."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value


def event_to_wire_dict(event: Any) -> dict[str, Any]:
    """An assistant message event as pi 1.6.0 writes it inside ``message_update``: delta only.

    The cumulative ``partial`` snapshot is left out (so a line costs O(delta), not O(message));
    ``toolcall_start`` names the call instead (``id``, ``toolName``). ``done``/``error`` keep their
    final message. Unknown events fall back to :func:`to_dict` without ``partial``.
    """
    cls = type(event)
    table = _EVENT_TABLES.get(cls)
    if table is None:
        data = to_dict(event)
        if isinstance(data, dict):
            data.pop("partial", None)
        return data if isinstance(data, dict) else {"type": getattr(event, "type", "unknown")}
    out = _table_to_dict(event, tuple(p for p in table if p[0] != "partial"), {"type": cls.type})
    if cls is ToolCallStartEvent:
        content = getattr(event.partial, "content", None) or []
        index = event.content_index
        block = content[index] if 0 <= index < len(content) else None
        if isinstance(block, ToolCall):
            out["id"] = block.id
            out["toolName"] = block.name
    return out


def to_json_value(value: Any) -> Any:
    """Any value (dataclass, list, dict, scalar) in its JSON form, floats as JavaScript prints them."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    return to_dict(value)


def _table_to_dict(obj: Any, table: tuple[tuple[str, str], ...], head: dict[str, Any]) -> dict[str, Any]:
    out = head
    for attr, key in table:
        value = getattr(obj, attr)
        if value is None:
            continue
        out[key] = to_json_value(value)
    extra = getattr(obj, "extra", None)
    if extra:
        for key, value in extra.items():
            out.setdefault(key, value)
    return out


def to_dict(obj: Any) -> Any:
    """Turn an L1 dataclass (block, message, usage, model, event) into pi's JSON shape."""
    cls = type(obj)
    if cls in _BLOCK_TABLES:
        return _table_to_dict(obj, _BLOCK_TABLES[cls], {"type": cls.type})
    if cls is UnknownContent:
        return dict(obj.raw)
    if cls in _MESSAGE_TABLES:
        return _table_to_dict(obj, _MESSAGE_TABLES[cls], {"role": cls.role})
    if cls in _EVENT_TABLES:
        return _table_to_dict(obj, _EVENT_TABLES[cls], {"type": cls.type})
    if cls is Usage:
        out = _table_to_dict(obj, _USAGE, {})
        return out
    if cls is Cost:
        return _table_to_dict(obj, _COST, {})
    if cls is ModelCost:
        return _table_to_dict(obj, _MODEL_COST, {})
    if cls is Model:
        return _table_to_dict(obj, _MODEL, {})
    if isinstance(obj, dict):
        return {k: to_json_value(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_json_value(v) for v in obj]
    to_json = getattr(obj, "to_dict", None)
    if callable(to_json):
        return to_json()
    if is_dataclass(obj):
        return {f.name: to_json_value(getattr(obj, f.name)) for f in fields(obj)}
    return obj


# ---------------------------------------------------------------------------------------------
# from_dict
# ---------------------------------------------------------------------------------------------


def _fill(cls: type, table: tuple[tuple[str, str], ...], data: dict[str, Any], skip: tuple[str, ...]) -> Any:
    kwargs: dict[str, Any] = {}
    known = {key for _, key in table}
    for attr, key in table:
        if key in data and data[key] is not None:
            kwargs[attr] = data[key]
    extra = {k: v for k, v in data.items() if k not in known and k not in skip}
    obj = cls(**kwargs)
    if extra and hasattr(obj, "extra"):
        obj.extra = extra
    return obj


def cost_from_dict(data: dict[str, Any] | None) -> Cost:
    data = data or {}
    return Cost(**{attr: data.get(key) or 0 for attr, key in _COST})


def usage_from_dict(data: dict[str, Any] | None) -> Usage:
    data = dict(data or {})
    cost = cost_from_dict(data.get("cost"))
    usage = _fill(Usage, tuple(p for p in _USAGE if p[0] != "cost"), data, ("cost",))
    for attr in ("input", "output", "cache_read", "cache_write", "total_tokens"):
        value = getattr(usage, attr)
        if not isinstance(value, int) or isinstance(value, bool):
            try:
                setattr(usage, attr, int(value))
            except (TypeError, ValueError):
                setattr(usage, attr, 0)
    usage.cost = cost
    return usage


def block_from_dict(data: Any) -> ContentBlock:
    if not isinstance(data, dict):
        return UnknownContent(raw={"type": "unknown", "value": data})
    kind = data.get("type")
    cls = _BLOCK_BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return UnknownContent(raw=dict(data))
    block = _fill(cls, _BLOCK_TABLES[cls], data, ("type",))
    if cls is ToolCall and not isinstance(block.arguments, dict):
        block.arguments = {}
    return block


def _content_from(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [TextContent(text=value)]
    return [block_from_dict(b) for b in value]


def message_from_dict(data: dict[str, Any]) -> Message:
    """Build an L1 message from pi's JSON. Raises ``ValueError`` for roles L1 does not know."""
    role = data.get("role")
    cls = _MESSAGE_BY_ROLE.get(role) if isinstance(role, str) else None
    if cls is None:
        raise ValueError(f"Unknown message role: {role!r}")
    table = _MESSAGE_TABLES[cls]
    special = {"content", "usage"}
    msg = _fill(cls, tuple(p for p in table if p[1] not in special), data, ("role", *special))
    raw_content = data.get("content")
    if cls is UserMessage and isinstance(raw_content, str):
        msg.content = raw_content
    else:
        msg.content = _content_from(raw_content)
    if cls is AssistantMessage:
        msg.usage = usage_from_dict(data.get("usage"))
    elif cls is ToolResultMessage and data.get("usage") is not None:
        msg.usage = usage_from_dict(data.get("usage"))
    return msg


def model_from_dict(data: dict[str, Any]) -> Model:
    cost = data.get("cost") or {}
    model = _fill(Model, tuple(p for p in _MODEL if p[0] != "cost"), data, ("cost",))
    values: dict[str, Any] = {
        attr: cost.get(key) or (None if attr in ("cache_write_1h", "tiers") else 0)
        for attr, key in _MODEL_COST
    }
    model.cost = ModelCost(**values)
    return model


def event_from_dict(data: dict[str, Any]) -> AssistantMessageEvent:
    kind = data.get("type")
    cls = _EVENT_BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"Unknown assistant message event type: {data.get('type')!r}")
    kwargs: dict[str, Any] = {}
    for attr, key in _EVENT_TABLES[cls]:
        value: Any = data.get(key)
        if key in ("partial", "message", "error"):
            value = message_from_dict(value)
        elif key == "toolCall":
            value = block_from_dict({"type": "toolCall", **value})
        kwargs[attr] = value
    return cls(**kwargs)


def from_dict(data: dict[str, Any]) -> Any:
    """Inverse of :func:`to_dict` for messages, blocks and events (dispatch on role/type)."""
    if "role" in data:
        return message_from_dict(data)
    if data.get("type") in _EVENT_BY_TYPE:
        return event_from_dict(data)
    return block_from_dict(data)


# ---------------------------------------------------------------------------------------------
# The one line encoder
# ---------------------------------------------------------------------------------------------


def _sanitize_numbers(value: Any) -> Any:
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, dict):
        return {k: _sanitize_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_sanitize_numbers(v) for v in value]
    return value


def encode_json(obj: Any, indent: int | None = None) -> str:
    """Compact JSON as JavaScript's ``JSON.stringify`` writes it (no trailing newline); with
    ``indent``, as ``JSON.stringify(obj, null, indent)`` (the ``--json`` output of commands)."""
    obj = to_json_value(obj)
    separators = (",", ":") if indent is None else (",", ": ")
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=separators, indent=indent, allow_nan=False)
    except ValueError:
        text = json.dumps(
            _sanitize_numbers(obj), ensure_ascii=False, separators=separators, indent=indent, allow_nan=False
        )
    return replace_lone_surrogates(text)


def encode_line(obj: Any) -> str:
    """One JSONL line: :func:`encode_json` plus ``\\n``."""
    return encode_json(obj) + "\n"
