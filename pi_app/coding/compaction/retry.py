"""Which provider errors are worth retrying, and the backoff schedule (spec 30 R-RETRY-01/02).

Shared by the agent session's auto-retry and by summary requests (R-CMP-26).
"""

from __future__ import annotations

import asyncio
import re
from functools import cache
from typing import Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.util.overflow import is_context_overflow


@cache  # compiled on the first failed reply: most runs never have one (start-up cost)
def _retryable_pattern() -> re.Pattern[str]:
    return re.compile(
        r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error"
        r"|internal.?error|connection.?error|connection.?refused|other side closed|fetch failed"
        r"|upstream.?connect|reset before headers|terminated|retry delay|timed out",
        re.IGNORECASE,
    )


def is_retryable_error(message: Any, context_window: int | None = None) -> bool:
    if getattr(message, "role", None) != "assistant" or getattr(message, "stop_reason", None) != "error":
        return False
    text = getattr(message, "error_message", None) or ""
    if not text or is_context_overflow(message, context_window):
        return False
    return bool(_retryable_pattern().search(text))


def backoff_delay_ms(base_delay_ms: int, attempt: int) -> int:
    """Delay before retry number ``attempt`` (1-based): base, 2×base, 4×base, …"""
    return int(base_delay_ms * 2 ** (attempt - 1))


async def sleep_abortable(seconds: float, signal: AbortSignal | None = None) -> bool:
    """Sleep; True when the signal aborted the wait."""
    if signal is None:
        await asyncio.sleep(seconds)
        return False
    if signal.aborted:
        return True
    waiter = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({waiter}, timeout=seconds)
    finally:
        if not waiter.done():
            waiter.cancel()
    return bool(done) or signal.aborted
