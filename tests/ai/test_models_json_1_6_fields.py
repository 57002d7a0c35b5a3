"""pi 1.6.0 models.json fields that change a request or its cost, against the loopback server.

``samplingParams`` and ``samplingParamsByThinkingLevel`` are merged into the request body of the
OpenAI-compatible APIs (the effective, clamped level's entry winning per key) and ignored by the
others; ``cost.tiers`` prices the whole request at the highest tier its input exceeds.
"""

from __future__ import annotations

import pytest

from pi_app.ai import testing as T
from pi_app.ai.types import ModelCost, SimpleStreamOptions, Usage
from pi_app.ai.util.cost import calculate_cost
from tests.ai.helpers import adapter, collect, simple_context, wire_model
from tests.fakes.llm_server import FakeLLMServer

SAMPLING = {"temperature": 0.6, "top_p": 0.95}
BY_LEVEL = {"medium": {"top_k": 20}, "off": {"temperature": 0.7}, "high": {"top_p": 0.5}}


async def _body(llm_server: FakeLLMServer, api: str, level: str | None, **model_kwargs: object) -> dict:
    llm_server.enqueue(T.text("ok"))
    model = wire_model(
        api,
        llm_server.base_url,
        sampling_params=SAMPLING,
        sampling_params_by_thinking_level=BY_LEVEL,
        **model_kwargs,
    )
    options = SimpleStreamOptions(api_key="k", max_retries=0, reasoning=level)  # type: ignore[arg-type]
    await collect(adapter(api).stream_simple(model, simple_context(), options))
    return llm_server.requests[-1].body


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
async def test_sampling_params_follow_the_thinking_level(api: str, llm_server: FakeLLMServer) -> None:
    medium = await _body(llm_server, api, "medium")
    assert (medium["temperature"], medium["top_p"], medium["top_k"]) == (0.6, 0.95, 20)
    off = await _body(llm_server, api, None)
    assert (off["temperature"], off["top_p"]) == (0.7, 0.95) and "top_k" not in off
    high = await _body(llm_server, api, "high")
    assert (high["temperature"], high["top_p"]) == (0.6, 0.5) and "top_k" not in high


async def test_a_clamped_level_uses_the_level_it_was_clamped_to(llm_server: FakeLLMServer) -> None:
    # xhigh is not mapped, so it clamps to high: high's entry applies
    body = await _body(llm_server, "openai-completions", "xhigh")
    assert body["top_p"] == 0.5


async def test_a_model_that_cannot_think_uses_the_off_entry(llm_server: FakeLLMServer) -> None:
    body = await _body(llm_server, "openai-completions", "medium", reasoning=False)
    assert body["temperature"] == 0.7 and "top_k" not in body


@pytest.mark.parametrize("api", ["anthropic-messages", "google-generative-ai"])
async def test_other_apis_ignore_sampling_params(api: str, llm_server: FakeLLMServer) -> None:
    body = await _body(llm_server, api, "medium")
    assert "top_p" not in body and "top_k" not in body


def test_cost_tiers_price_the_whole_request() -> None:
    cost = ModelCost(
        input=1,
        output=2,
        cache_read=0.1,
        cache_write=1.25,
        tiers=[
            {"inputTokensAbove": 200_000, "input": 2, "output": 4, "cacheRead": 0.2, "cacheWrite": 2.5},
            {"inputTokensAbove": 500_000, "input": 3, "output": 6, "cacheRead": 0.3, "cacheWrite": 3.5},
        ],
    )
    model = wire_model("openai-completions", "http://x", cost=cost)
    small = calculate_cost(model, Usage(input=1000, output=1000))
    assert small.total == pytest.approx((1000 * 1 + 1000 * 2) / 1e6)
    # input + cache read crosses 200k: every component uses the tier's prices
    tiered = calculate_cost(model, Usage(input=150_000, cache_read=60_000, output=1000))
    assert tiered.input == pytest.approx(150_000 * 2 / 1e6)
    assert tiered.cache_read == pytest.approx(60_000 * 0.2 / 1e6)
    assert tiered.output == pytest.approx(1000 * 4 / 1e6)
    top = calculate_cost(model, Usage(input=600_000, output=10))
    assert top.input == pytest.approx(600_000 * 3 / 1e6)
