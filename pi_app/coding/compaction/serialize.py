"""Flattening a conversation into the plain text the summariser reads (spec 30 R-CMP-20)."""

from __future__ import annotations

import json
from typing import Any

from pi_app.ai.types import ThinkingContent, ToolCall
from pi_app.ai.util.content_text import content_text, text_blocks
from pi_app.coding.messages import convert_to_llm

TOOL_RESULT_LIMIT = 2000


def _call(block: ToolCall) -> str:
    args = block.arguments if isinstance(block.arguments, dict) else {}
    inner = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False, separators=(',', ':'))}" for k, v in args.items()
    )
    return f"{block.name}({inner})"


def serialize_conversation(messages: list[Any]) -> str:
    parts: list[str] = []
    for message in convert_to_llm(messages):
        if message.role == "user":
            text = content_text(message.content)
            if text:
                parts.append(f"[User]: {text}")
        elif message.role == "assistant":
            thinking = [b.thinking for b in message.content if isinstance(b, ThinkingContent)]
            texts = text_blocks(message.content)
            calls = [_call(b) for b in message.content if isinstance(b, ToolCall)]
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif message.role == "toolResult":
            text = content_text(message.content)
            if len(text) > TOOL_RESULT_LIMIT:
                extra = len(text) - TOOL_RESULT_LIMIT
                text = text[:TOOL_RESULT_LIMIT] + f"\n\n[... {extra} more characters truncated]"
            if text:
                parts.append(f"[Tool result]: {text}")
    return "\n\n".join(parts)
