"""Thinking levels a model supports, and clamping a requested level to them (00-index.md, D-18).

Levels, lowest to highest: ``off, minimal, low, medium, high, xhigh, max`` (pi 1.6.0 added
``max``; issue 18). A non-reasoning model supports only ``off``. ``off`` through ``high`` are
supported unless the model's ``thinkingLevelMap`` maps them to ``None``; ``xhigh`` and ``max``
are supported only when the map gives them a non-null value. Clamping follows pi 1.6.0: an
unsupported level moves *up* to the next supported level, and only when nothing higher exists
down to the nearest lower one (so ``max`` on a model that stops at ``high`` runs at ``high``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.ai.types import Model

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
DEFAULT_THINKING_LEVEL = "medium"
EXTENDED_LEVELS: frozenset[str] = frozenset({"xhigh", "max"})


def supports_xhigh(model: Model | None) -> bool:
    level_map = getattr(model, "thinking_level_map", None) or {}
    return level_map.get("xhigh") is not None


def supported_thinking_levels(model: Model | None) -> list[str]:
    if not getattr(model, "reasoning", False):
        return ["off"]
    level_map = getattr(model, "thinking_level_map", None) or {}
    levels = []
    for level in THINKING_LEVELS:
        if level in EXTENDED_LEVELS:
            if level_map.get(level) is not None:
                levels.append(level)
        elif level not in level_map or level_map[level] is not None:
            levels.append(level)
    return levels or ["off"]


def clamp_thinking_level(model: Model | None, level: str | None) -> str:
    """The supported level for ``level``: itself, else the next higher, else the next lower."""
    supported = supported_thinking_levels(model)
    if not level or level not in THINKING_LEVELS:
        return "off" if "off" in supported else supported[0]
    if level in supported:
        return level
    wanted = THINKING_LEVELS.index(level)
    higher = [lvl for lvl in THINKING_LEVELS[wanted:] if lvl in supported]
    if higher:
        return higher[0]
    lower = [lvl for lvl in THINKING_LEVELS[:wanted] if lvl in supported]
    return lower[-1] if lower else supported[0]


def xhigh_heuristic(model_id: str) -> bool:
    """R-AI-79's id heuristic; used only when the catalogue is generated (fills thinkingLevelMap)."""
    return any(tag in model_id for tag in ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"))
