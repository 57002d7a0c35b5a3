"""``is_context_overflow``: did this reply fail (or silently overflow) because the prompt was too long?

Matches the error texts providers use for an over-long prompt (R-AI-95); L3 compacts and retries
when it is true. A 429 is never an overflow.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.ai.types import Message

_PATTERNS = [
    r"prompt is too long",
    r"input is too long for requested model",
    r"exceeds the context window",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is \d+",
    r"reduce the length of the messages",
    r"maximum context length is \d+ tokens",
    r"exceeds the limit of \d+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with \d+ maximum context length",
    r"model_context_window_exceeded",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
]


@cache  # compiled on the first failed reply: most runs never have one (start-up cost)
def _overflow_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    overflow = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
    cerebras = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
    return overflow, cerebras


def is_context_overflow(message: Message, context_window: int | None = None) -> bool:
    stop = getattr(message, "stop_reason", None)
    if stop == "error":
        text = getattr(message, "error_message", None) or ""
        if text.startswith("429"):
            return False
        overflow, cerebras = _overflow_patterns()
        return bool(overflow.search(text) or cerebras.search(text))
    if context_window and stop == "stop":
        usage = getattr(message, "usage", None)
        if usage is not None:
            return usage.input + usage.cache_read > context_window
    return False
