"""Segment helpers for the editor model (spec 60 §2.4). No Textual.

A line is a sequence of *segments*: extended grapheme clusters, except that every paste marker
whose id is in the paste registry is one segment, so the cursor never lands inside it and one
Backspace removes it whole. Segmentation and word wrap themselves live in ``editor/cursor.py``
(shared with the IME caret helper, so the caret and the drawn text always agree); this module
adds the boundary list and the character classes word moves need (R-ED-06).
"""

from __future__ import annotations

from collections.abc import Container

from rich.cells import cell_len

from pi_app.tui.editor.cursor import PASTE_MARKER, TextChunk, graphemes, segments, wrap_line

__all__ = [
    "PASTE_MARKER",
    "PUNCTUATION",
    "TextChunk",
    "char_class",
    "segment_bounds",
    "truncate_cells",
    "wrap",
]

PUNCTUATION = frozenset("(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`")


def segment_bounds(line: str, paste_ids: Container[int] = ()) -> list[int]:
    """Every index of ``line`` that is a segment boundary, from 0 to ``len(line)`` inclusive."""
    spans = segments(line, lambda number: number in paste_ids)
    return [0, *(end for _, end in spans)] if spans else [0]


def wrap(line: str, width: int, paste_ids: Container[int] = ()) -> list[TextChunk]:
    """The visual rows of ``line`` at ``width`` cells (R-ED-14)."""
    return wrap_line(line, width, lambda number: number in paste_ids)


def char_class(segment: str) -> str:
    """``space``, ``punct`` or ``word`` for one segment."""
    if segment.isspace():
        return "space"
    if len(segment) == 1 and segment in PUNCTUATION:
        return "punct"
    return "word"


def truncate_cells(text: str, width: int, ellipsis: str = "...") -> str:
    """``text`` cut to ``width`` cells, ending in ``ellipsis`` when it was cut."""
    if cell_len(text) <= width:
        return text
    if width <= cell_len(ellipsis):
        return ellipsis[: max(0, width)]
    out = []
    used = 0
    limit = width - cell_len(ellipsis)
    for grapheme in graphemes().findall(text):
        w = cell_len(grapheme)
        if used + w > limit:
            break
        out.append(grapheme)
        used += w
    return "".join(out) + ellipsis
