"""Mermaid code blocks drawn as box-and-arrow diagrams (pi 1.6.0's ``markdown.mermaid``).

The layout is termaid's (pure Python, no dependencies, MIT; flowcharts, sequence, class, state, ER
and more), imported only when a reply holds a ```` ```mermaid ```` block. ``draw_mermaid(source,
width)`` returns the diagram's lines, or None when it cannot be drawn — a diagram kind or syntax
termaid does not know, an error inside it, or a drawing wider than ``width`` — and the caller shows
the plain code block instead. Drawings are cached per (source, width): a finished reply is laid
out once however often it is painted.

``MERMAID_MODES`` are 1.6.0's values of ``markdown.mermaid``: ``off`` never draws, ``final`` draws
once the reply is complete, ``streaming`` (the default) draws each block as soon as its closing
fence arrives.
"""

from __future__ import annotations

import logging
from functools import lru_cache

from rich.cells import cell_len

log = logging.getLogger(__name__)

MERMAID_MODES = ("off", "final", "streaming")
DEFAULT_MERMAID_MODE = "streaming"
_mode = [DEFAULT_MERMAID_MODE]


def set_mermaid_mode(mode: str) -> None:
    """The app's ``markdown.mermaid`` setting (an unknown value means the default)."""
    _mode[0] = mode if mode in MERMAID_MODES else DEFAULT_MERMAID_MODE


def mermaid_mode() -> str:
    return _mode[0]


def draws_mermaid(streaming: bool) -> bool:
    """Whether a reply draws its mermaid blocks now (``streaming``: the reply is still arriving)."""
    mode = _mode[0]
    return mode == "streaming" or (mode == "final" and not streaming)


_LINE_CHARS = frozenset(
    chr(c) for c in [*range(0x2500, 0x2580), *range(0x2190, 0x2200), *range(0x25A0, 0x2600)]
)
"""Box drawing, arrows and geometric shapes: the diagram's lines (drawn dim, labels in text)."""


def is_line_char(char: str) -> bool:
    return char in _LINE_CHARS


@lru_cache(maxsize=128)
def draw_mermaid(source: str, width: int) -> tuple[str, ...] | None:
    if not source.strip() or width < 8:
        return None
    try:
        from termaid import render
    except ImportError:  # an install without it: the source stays readable
        return None
    for gap in (None, 2):  # termaid's own gap first, then a wider one
        try:
            art = (
                render(source, padding_x=1, padding_y=0)
                if gap is None
                else render(source, padding_x=1, padding_y=0, gap=gap)
            )
        except Exception:  # a syntax termaid cannot read, or a bug in it: never the app's problem
            log.debug("mermaid diagram not drawn", exc_info=True)
            return None
        lines = [line.rstrip() for line in art.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        if not lines:
            return None
        if max(cell_len(line) for line in lines) <= width:
            return tuple(lines)
    return None
