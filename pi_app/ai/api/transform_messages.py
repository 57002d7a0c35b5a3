"""Rewrite a shared history so that any model can continue it (spec 10 §3.8, R-AI-66…73).

Runs inside every adapter while it builds a request. The rewrite is lossy but safe:

- thinking from another model becomes plain text (or is dropped when blank or redacted); text
  blocks from another model lose their signatures; tool calls from another model lose their
  ``thoughtSignature`` and get ids the target API accepts (``normalize_tool_call_id``), with the
  matching tool results renamed consistently and collisions after normalisation disambiguated;
- assistant turns that ended in ``error``/``aborted`` are dropped (they may hold half a turn);
- every tool call left without a result gets a synthetic ``isError`` result ("No result
  provided"), and a result whose call is not in the preceding kept assistant turn is dropped.

The function is pure: it never mutates its input and equal inputs give equal outputs (synthetic
results take the timestamp of the assistant message that made the call).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pi_app.ai.types import (
    AssistantMessage,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.ai.util.short_hash import short_hash

NormalizeToolCallId = Callable[[str, Model, AssistantMessage], str]

NO_RESULT_TEXT = "No result provided"


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    return message.provider == model.provider and message.api == model.api and message.model == model.id


def _transform_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: NormalizeToolCallId | None,
    id_map: dict[str, str],
    used_ids: dict[str, str],
) -> AssistantMessage:
    if is_same_model(message, model):
        return message
    content: list[Any] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.redacted or not block.thinking.strip():
                continue
            content.append(TextContent(text=block.thinking))
        elif isinstance(block, TextContent):
            content.append(TextContent(text=block.text))
        elif isinstance(block, ToolCall):
            new_id = block.id
            if normalize is not None:
                new_id = _unique_id(
                    normalize(block.id, model, message), block.id, used_ids, normalize, model, message
                )
            if new_id != block.id:
                id_map[block.id] = new_id
            content.append(replace(block, id=new_id, thought_signature=None))
        else:
            content.append(block)
    return replace(message, content=content)


def _unique_id(
    candidate: str,
    original: str,
    used_ids: dict[str, str],
    normalize: NormalizeToolCallId,
    model: Model,
    message: AssistantMessage,
) -> str:
    """Disambiguate two different ids that normalise to the same string (spec 10 §5.5)."""
    owner = used_ids.get(candidate)
    if owner is None or owner == original:
        used_ids[candidate] = original
        return candidate
    suffix = "_" + short_hash(original, 8)
    for keep in range(len(candidate), -1, -1):
        attempt = normalize(candidate[:keep] + suffix, model, message)
        if attempt.endswith(suffix) or keep == 0:
            break
    if used_ids.get(attempt) not in (None, original):
        attempt = normalize(short_hash(original + "#", 16), model, message)
    used_ids[attempt] = original
    return attempt


def transform_messages(
    messages: Sequence[Any],
    model: Model,
    normalize_tool_call_id: NormalizeToolCallId | None = None,
) -> list[Any]:
    """The history as ``model`` should see it. See the module docstring for the rules."""
    id_map: dict[str, str] = {}
    used_ids: dict[str, str] = {}
    rewritten: list[Any] = []
    for message in messages:
        if getattr(message, "content", []) is None:
            message = replace(message, content=[])
        if isinstance(message, AssistantMessage):
            rewritten.append(_transform_assistant(message, model, normalize_tool_call_id, id_map, used_ids))
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in id_map:
            rewritten.append(replace(message, tool_call_id=id_map[message.tool_call_id]))
        else:
            rewritten.append(message)
    return _repair_tool_results(rewritten)


def _synthetic_result(call: ToolCall, timestamp: int) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(text=NO_RESULT_TEXT)],
        is_error=True,
        timestamp=timestamp,
    )


def _repair_tool_results(messages: list[Any]) -> list[Any]:
    out: list[Any] = []
    pending: list[ToolCall] = []
    pending_ts = 0
    seen: set[str] = set()

    def flush() -> None:
        nonlocal pending, seen
        for call in pending:
            if call.id not in seen:
                out.append(_synthetic_result(call, pending_ts))
        pending = []
        seen = set()

    for message in messages:
        if isinstance(message, AssistantMessage):
            flush()
            if message.stop_reason in ("error", "aborted"):
                continue
            pending = [b for b in message.content if isinstance(b, ToolCall)]
            pending_ts = message.timestamp
            out.append(message)
        elif isinstance(message, UserMessage):
            flush()
            out.append(message)
        elif isinstance(message, ToolResultMessage):
            if not any(call.id == message.tool_call_id for call in pending):
                continue  # orphan: its call was dropped or never existed (spec 10 §5.5)
            seen.add(message.tool_call_id)
            out.append(message)
        else:
            out.append(message)
    flush()
    return out
