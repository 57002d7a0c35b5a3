"""Thinking levels a model supports, and clamping a requested level to them (00-index.md, D-18).

Levels, lowest to highest: ``off, minimal, low, medium, high, xhigh`` (there is no ``max``;
Anthropic's "max" effort is the adapter's mapping of ``xhigh``). A non-reasoning model supports
only ``off``. ``xhigh`` is supported only when the model's ``thinkingLevelMap`` sets it (or, absent,
1.6.0's ``max``) to a non-null value; a level mapped to ``None`` is unsupported. Clamping moves down to the next
supported level (or up to the lowest supported one when nothing lower exists).
"""

from __future__ import annotations

from typing import Any

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")
DEFAULT_THINKING_LEVEL = "medium"


def supports_xhigh(model: Any) -> bool:
    """Mapped to a non-null value; or, when the map does not name it, 1.6.0's ``max`` is (D-18)."""
    level_map = getattr(model, "thinking_level_map", None) or {}
    if "xhigh" in level_map:
        return level_map["xhigh"] is not None
    return level_map.get("max") is not None


def supported_thinking_levels(model: Any) -> list[str]:
    if not getattr(model, "reasoning", False):
        return ["off"]
    level_map = getattr(model, "thinking_level_map", None) or {}
    levels = ["off"]
    for level in THINKING_LEVELS[1:]:
        if level == "xhigh":
            if supports_xhigh(model):
                levels.append(level)
        elif level not in level_map or level_map[level] is not None:
            levels.append(level)
    return levels


def clamp_thinking_level(model: Any, level: str | None) -> str:
    """The supported level closest to ``level`` (ties go down); unknown or None → ``off``."""
    if not level or level not in THINKING_LEVELS:
        return "off"
    supported = supported_thinking_levels(model)
    if level in supported:
        return level
    wanted = THINKING_LEVELS.index(level)
    lower = [lvl for lvl in supported if THINKING_LEVELS.index(lvl) <= wanted and lvl != "off"]
    if lower:
        return lower[-1]
    higher = [lvl for lvl in supported if THINKING_LEVELS.index(lvl) > wanted]
    return higher[0] if higher else "off"


def xhigh_heuristic(model_id: str) -> bool:
    """R-AI-79's id heuristic; used only when the catalogue is generated (fills thinkingLevelMap)."""
    return any(tag in model_id for tag in ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"))
