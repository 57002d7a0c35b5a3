"""Cache-miss notices (pi 1.6.0's ``showCacheMissNotices`` setting): when did an answer pay again
for a prompt prefix the provider should have had cached, and the one line that says so.

``detect_cache_miss(previous, current, model)`` compares two consecutive assistant replies of one
branch: the previous request's whole prompt (input + cache read + cache write) is what the next
request could have read from the cache; whatever of it the current reply did not read from the
cache (``cacheRead``) was billed again. The reason is named only when it is observable: a different
model than the previous reply, or more than the cache lifetime (5 minutes) between the two.
``notice_text`` returns the line only for a significant miss (20,000 tokens or $0.10, as 1.6.0),
else None. ``summary_cost_text`` says what generating a compaction or branch summary cost (the
``usage`` the entry records), which 1.6.0 also shows under this setting. Pure functions; the app
shows the lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.ai.types import AssistantMessage, Model

CACHE_TTL_MS = 5 * 60 * 1000
MIN_TOKENS = 20_000
MIN_COST = 0.10


@dataclass(frozen=True)
class CacheMiss:
    missed_tokens: int
    missed_cost: float
    model_changed: bool
    idle_ms: int


def _prompt_tokens(usage: Any) -> int:
    return int(usage.input + usage.cache_read + usage.cache_write)


def detect_cache_miss(
    previous: AssistantMessage | None, current: AssistantMessage | None, model: Model | None = None
) -> CacheMiss | None:
    """The miss of ``current`` against ``previous`` (both assistant messages), or None."""
    if previous is None or current is None:
        return None
    before, now = getattr(previous, "usage", None), getattr(current, "usage", None)
    if before is None or now is None or getattr(current, "stop_reason", None) in ("error", "aborted"):
        return None
    expected = _prompt_tokens(before)
    if expected <= 0 or _prompt_tokens(now) < expected:
        return None  # a shorter prompt (compaction, branch) cannot reuse the old prefix
    missed = max(0, expected - int(now.cache_read))
    if missed <= 0:
        return None
    prices = getattr(model, "cost", None)
    per_token = (prices.input - prices.cache_read) / 1_000_000 if prices is not None else 0.0
    changed = (previous.provider, previous.model) != (current.provider, current.model)
    idle = max(0, int(current.timestamp) - int(previous.timestamp))
    return CacheMiss(missed, max(0.0, missed * per_token), changed, idle)


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{round(count / 1_000)}k"
    return str(count)


def notice_text(miss: CacheMiss | None) -> str | None:
    if miss is None or (miss.missed_tokens < MIN_TOKENS and miss.missed_cost < MIN_COST):
        return None
    cost = f" (~${miss.missed_cost:.2f})" if miss.missed_cost >= 0.01 else ""
    if miss.model_changed:
        reason = " after a model switch"
    elif miss.idle_ms >= CACHE_TTL_MS:
        reason = f" after {round(miss.idle_ms / 60_000)} min idle"
    else:
        reason = ""
    return f"Cache miss{reason}: {_tokens(miss.missed_tokens)} prompt tokens billed again{cost}"


def summary_cost_text(label: str, usage: Any) -> str | None:
    """``Compaction: 12k tokens billed (~$0.05)`` for an entry's camelCase ``usage`` dict."""
    if not isinstance(usage, dict):
        return None
    tokens = sum(int(usage.get(key) or 0) for key in ("input", "output", "cacheRead", "cacheWrite"))
    if tokens <= 0:
        return None
    cost = usage.get("cost")
    if not isinstance(cost, dict):
        cost = {}
    total = float(cost.get("total") or 0)
    price = f" (~${total:.2f})" if total >= 0.01 else ""
    return f"{label}: {_tokens(tokens)} tokens billed{price}"
