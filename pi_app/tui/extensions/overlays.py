"""Where an extension overlay goes: ``OverlayOptions`` and the pure ``overlay_layout`` (spec 60 §2.8, R-OVL-01).

``overlay_layout(options, content_height, term_width, term_height)`` returns the overlay's width,
maximum height, row and column; ``ext_surface.ExtensionOverlay`` applies them on the screen's
overlay layer. Options may be given as an ``OverlayOptions``, a dict with the same snake_case keys
(or pi's camelCase ones), or None (centred, up to 80 columns wide).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

SizeValue = int | str
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)%\s*$")
_CAMEL = {"minWidth": "min_width", "maxHeight": "max_height", "offsetX": "offset_x", "offsetY": "offset_y"}
_CAMEL["nonCapturing"] = "non_capturing"


@dataclass
class Margins:
    top: int = 0
    right: int = 0
    bottom: int = 0
    left: int = 0


@dataclass
class OverlayOptions:
    width: SizeValue | None = None
    min_width: int | None = None
    max_height: SizeValue | None = None
    anchor: str = "center"
    offset_x: int = 0
    offset_y: int = 0
    row: SizeValue | None = None
    col: SizeValue | None = None
    margin: int | Margins | None = None
    visible: Callable[[int, int], bool] | None = None
    non_capturing: bool = False

    @classmethod
    def coerce(cls, value: Any) -> OverlayOptions:
        if isinstance(value, OverlayOptions):
            return value
        if not isinstance(value, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        data = {_CAMEL.get(k, k): v for k, v in value.items()}
        margin = data.get("margin")
        if isinstance(margin, dict):
            data["margin"] = Margins(**{k: int(margin.get(k, 0)) for k in ("top", "right", "bottom", "left")})
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class OverlayLayout:
    width: int
    max_height: int
    row: int
    col: int


def _percent(value: SizeValue | None) -> float | None:
    if isinstance(value, str):
        match = _PERCENT.match(value)
        return float(match.group(1)) / 100 if match else None
    return None


def _margins(margin: int | Margins | None) -> Margins:
    if margin is None:
        return Margins()
    if isinstance(margin, int):
        m = max(0, margin)
        return Margins(m, m, m, m)
    return Margins(max(0, margin.top), max(0, margin.right), max(0, margin.bottom), max(0, margin.left))


def _place(value: SizeValue | None, start: int, free: int, anchor_part: str) -> int:
    """Absolute, percent of the free space, or by anchor (``start``/``center``/``end``)."""
    if isinstance(value, int):
        return value
    fraction = _percent(value)
    if value is not None and fraction is None:
        anchor_part = "center"  # an invalid percent string falls back to centre
    if fraction is not None:
        return start + math.floor(free * fraction)
    if anchor_part == "start":
        return start
    if anchor_part == "end":
        return start + free
    return start + free // 2


def overlay_layout(
    options: OverlayOptions, content_height: int, term_width: int, term_height: int
) -> OverlayLayout:
    m = _margins(options.margin)
    avail_w = max(1, term_width - m.left - m.right)
    avail_h = max(1, term_height - m.top - m.bottom)
    fraction = _percent(options.width)
    if isinstance(options.width, int):
        width = options.width
    elif fraction is not None:
        width = math.floor(term_width * fraction)
    else:
        width = min(80, avail_w)
    if options.min_width is not None:
        width = max(width, options.min_width)
    width = min(max(1, width), avail_w)
    max_fraction = _percent(options.max_height)
    if isinstance(options.max_height, int):
        max_height = options.max_height
    elif max_fraction is not None:
        max_height = math.floor(term_height * max_fraction)
    else:
        max_height = avail_h
    max_height = min(max(1, max_height), avail_h)
    height = min(max(1, content_height), max_height)
    anchor = options.anchor or "center"
    vertical = "start" if anchor.startswith("top") else "end" if anchor.startswith("bottom") else "center"
    horizontal = "start" if anchor.endswith("left") else "end" if anchor.endswith("right") else "center"
    row = _place(options.row, m.top, avail_h - height, vertical) + options.offset_y
    col = _place(options.col, m.left, avail_w - width, horizontal) + options.offset_x
    row = min(max(row, m.top), m.top + avail_h - height)
    col = min(max(col, m.left), m.left + avail_w - width)
    return OverlayLayout(width, max_height, row, col)
