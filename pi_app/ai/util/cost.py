"""Token cost in dollars from a model's per-million prices (R-AI-74, R-AI-77)."""

from __future__ import annotations

from pi_app.ai.types import Cost, Model, Usage

SERVICE_TIER_MULTIPLIERS = {"flex": 0.5, "priority": 2.0}


def calculate_cost(model: Model, usage: Usage, service_tier: str | None = None) -> Cost:
    """Fill ``usage.cost`` from ``model.cost`` and return it.

    A price tier (``cost.tiers``) whose ``inputTokensAbove`` the request's input tokens (fresh,
    cache read and cache write) exceed replaces the base prices; the highest such tier wins.
    A ``cacheWrite1h`` price, when the model declares one, prices the 1-hour subset of cache writes;
    the rest uses ``cacheWrite``. A Responses ``flex``/``priority`` tier scales every component.
    """
    prices = model.cost
    rates = {
        "input": prices.input,
        "output": prices.output,
        "cacheRead": prices.cache_read,
        "cacheWrite": prices.cache_write,
    }
    input_tokens = usage.input + usage.cache_read + usage.cache_write
    threshold = -1.0
    for tier in prices.tiers or ():
        above = float(tier.get("inputTokensAbove", 0))
        if input_tokens > above and above > threshold:
            rates = {key: float(tier.get(key, 0)) for key in rates}
            threshold = above
    per = 1_000_000
    cache_write_1h = usage.cache_write_1h or 0
    if prices.cache_write_1h is not None and cache_write_1h:
        cache_write = (
            rates["cacheWrite"] * max(0, usage.cache_write - cache_write_1h)
            + prices.cache_write_1h * cache_write_1h
        ) / per
    else:
        cache_write = rates["cacheWrite"] * usage.cache_write / per
    factor = SERVICE_TIER_MULTIPLIERS.get(service_tier or "", 1.0)
    cost = usage.cost
    cost.input = rates["input"] * usage.input / per * factor
    cost.output = rates["output"] * usage.output / per * factor
    cost.cache_read = rates["cacheRead"] * usage.cache_read / per * factor
    cost.cache_write = cache_write * factor
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost
