"""``is_context_overflow``: did this reply fail (or silently overflow) because the prompt was too long?

Matches the error texts providers use for an over-long prompt (R-AI-95); L3 compacts and retries
when it is true. A 429 is never an overflow.
"""

from __future__ import annotations

import re
from typing import Any

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
_OVERFLOW = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_CEREBRAS = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)


def is_context_overflow(message: Any, context_window: int | None = None) -> bool:
    stop = getattr(message, "stop_reason", None)
    if stop == "error":
        text = getattr(message, "error_message", None) or ""
        if text.startswith("429"):
            return False
        return bool(_OVERFLOW.search(text) or _CEREBRAS.search(text))
    if context_window and stop == "stop":
        usage = getattr(message, "usage", None)
        if usage is not None:
            return usage.input + usage.cache_read > context_window
    return False
