"""The part of ``stream_simple`` every API shares (R-AI-78…80).

``stream_simple`` takes a thinking level instead of API-specific knobs. Each adapter maps the
level itself; this module holds the common pieces: the base ``max_tokens``, the options copied
through unchanged, the level clamp and the default budgets of budget-based providers.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from pi_app.ai.thinking import clamp_thinking_level
from pi_app.ai.types import Model, SimpleStreamOptions, StreamOptions

OptionsT = TypeVar("OptionsT", bound=StreamOptions)

DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
SIMPLE_MAX_TOKENS_CAP = 32000


def base_max_tokens(model: Model, options: StreamOptions | None) -> int:
    if options is not None and options.max_tokens:
        return options.max_tokens
    return min(model.max_tokens, SIMPLE_MAX_TOKENS_CAP)


def build_base_options(
    model: Model, options: SimpleStreamOptions | None, cls: type[OptionsT], **extra: Any
) -> OptionsT:
    """An instance of the adapter's options class carrying every shared field of ``options``."""
    shared = {f.name for f in fields(StreamOptions)}
    values = {name: getattr(options, name) for name in shared} if options is not None else {}
    values["max_tokens"] = base_max_tokens(model, options)
    values.update(extra)
    return cls(**values)


def requested_level(model: Model, options: SimpleStreamOptions | None) -> str | None:
    """The level to use, or None when thinking is off or the model cannot reason (R-AI-80)."""
    level = getattr(options, "reasoning", None) if options is not None else None
    if not level or level == "off" or not model.reasoning:
        return None
    clamped = clamp_thinking_level(model, level)
    return clamped if clamped != "off" else None


def mapped_effort(model: Model, options: SimpleStreamOptions | None) -> str | None:
    """The effort value to send: the requested level through the model's ``thinkingLevelMap``.

    1.6.0's catalogue maps levels to the provider's own words (``off`` -> ``none``); a level the
    map does not name is sent as is. Our top level ``xhigh`` stands for 1.6.0's ``max`` on a model
    whose map has ``max`` but no ``xhigh``.
    """
    level = requested_level(model, options)
    level_map = model.thinking_level_map or {}
    if level is None:
        return None
    if level == "xhigh" and "xhigh" not in level_map and isinstance(level_map.get("max"), str):
        return level_map["max"]
    value = level_map.get(level)
    return value if isinstance(value, str) else level


def thinking_budget(level: str, options: StreamOptions | None) -> int:
    budgets = dict(DEFAULT_BUDGETS)
    custom = getattr(options, "thinking_budgets", None) if options is not None else None
    if custom:
        budgets.update({k: int(v) for k, v in custom.items() if v is not None})
    key = "high" if level in ("xhigh", "max") else level
    return budgets.get(key, DEFAULT_BUDGETS["medium"])
