"""``showCacheMissNotices``: when an answer re-paid a prompt prefix that should have been cached."""

from __future__ import annotations

from pi_app.ai.types import AssistantMessage, Model, ModelCost, Usage
from pi_app.coding.cache_notices import detect_cache_miss, notice_text

MODEL = Model(id="m", provider="p", cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))


def _reply(input: int, cache_read: int, ts: int, model: str = "m") -> AssistantMessage:
    return AssistantMessage(
        content=[], provider="p", model=model, usage=Usage(input=input, cache_read=cache_read), timestamp=ts
    )


def test_a_reply_that_reads_its_prefix_from_the_cache_is_no_miss() -> None:
    assert detect_cache_miss(_reply(1000, 50_000, 0), _reply(500, 51_000, 1000), MODEL) is None


def test_a_large_miss_is_reported_with_its_cost() -> None:
    miss = detect_cache_miss(_reply(1000, 50_000, 0), _reply(52_000, 0, 1000), MODEL)
    assert miss is not None and miss.missed_tokens == 51_000
    assert notice_text(miss) == "Cache miss: 51k prompt tokens billed again (~$0.14)"


def test_the_reason_is_named_when_it_is_observable() -> None:
    idle = detect_cache_miss(_reply(1000, 50_000, 0), _reply(52_000, 0, 6 * 60_000), MODEL)
    assert notice_text(idle) == "Cache miss after 6 min idle: 51k prompt tokens billed again (~$0.14)"
    switch = detect_cache_miss(_reply(1000, 50_000, 0), _reply(52_000, 0, 1000, model="other"), MODEL)
    assert notice_text(switch) is not None and notice_text(switch).startswith(
        "Cache miss after a model switch"
    )


def test_small_misses_and_shorter_prompts_are_quiet() -> None:
    assert notice_text(detect_cache_miss(_reply(100, 5000, 0), _reply(5200, 0, 1), MODEL)) is None
    assert detect_cache_miss(_reply(1000, 50_000, 0), _reply(3000, 0, 1), MODEL) is None  # compacted


def test_summary_cost_lines() -> None:
    from pi_app.coding.cache_notices import summary_cost_text

    usage = {"input": 12_000, "output": 800, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.05}}
    assert summary_cost_text("Compaction", usage) == "Compaction: 13k tokens billed (~$0.05)"
    assert (
        summary_cost_text("Branch summary", {"input": 10, "output": 5}) == "Branch summary: 15 tokens billed"
    )
    assert summary_cost_text("Compaction", None) is None
