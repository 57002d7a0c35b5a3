"""Segments, cell widths and word wrap for the editor model (spec 60 §2.4, R-ED-14). No Textual.

A line is a sequence of *segments*: extended grapheme clusters (``regex``'s ``\\X``), except that
every paste marker whose id is in the paste registry is one segment, so the cursor never lands
inside it and one Backspace removes it whole. Widths are Rich's ``cell_len`` (CJK and emoji 2,
combining marks 0), the same function Textual draws with, so the editor's layout and the screen
agree.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache

import regex
from rich.cells import cell_len

PASTE_MARKER = re.compile(r"\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]")
_GRAPHEME = regex.compile(r"\X")

PUNCTUATION = frozenset("(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`")


@dataclass(frozen=True)
class TextChunk:
    """One visual line of a wrapped logical line: ``text == line[start_index:end_index]``."""

    text: str
    start_index: int
    end_index: int


@lru_cache(maxsize=4096)
def _graphemes(text: str) -> tuple[str, ...]:
    return tuple(_GRAPHEME.findall(text))


def segment_bounds(line: str, paste_ids: Container[int] = ()) -> list[int]:
    """Every index of ``line`` that is a segment boundary, from 0 to ``len(line)`` inclusive."""
    bounds = [0]
    position = 0
    for grapheme in _graphemes(line):
        position += len(grapheme)
        bounds.append(position)
    if not paste_ids or "[paste #" not in line:
        return bounds
    inside: set[int] = set()
    for match in PASTE_MARKER.finditer(line):
        if int(match.group(1)) in paste_ids:
            inside.update(range(match.start() + 1, match.end()))
            bounds.extend((match.start(), match.end()))
    return sorted({b for b in bounds if b not in inside})


def is_marker_at(line: str, start: int, end: int, paste_ids: Container[int]) -> bool:
    match = PASTE_MARKER.fullmatch(line, start, end)
    return match is not None and int(match.group(1)) in paste_ids


def char_class(segment: str) -> str:
    """``space``, ``punct`` or ``word`` for one segment (a marker counts as its own class)."""
    if segment.isspace():
        return "space"
    if len(segment) == 1 and segment in PUNCTUATION:
        return "punct"
    return "word"


def wrap_line(line: str, width: int, paste_ids: Container[int] = ()) -> list[TextChunk]:
    """Word-wrap one logical line to ``width`` cells (R-ED-14); never returns an empty list.

    A line breaks after the last whitespace run before the segment that overflows, when the
    text after it fits on the next line; otherwise it breaks at that segment. A single segment
    wider than the line (a paste marker in a very narrow terminal) is split at grapheme
    boundaries for display only.
    """
    width = max(1, width)
    if cell_len(line) <= width:
        return [TextChunk(line, 0, len(line))]
    bounds = segment_bounds(line, paste_ids)
    chunks: list[TextChunk] = []
    start = 0
    used = 0
    last_space_end = -1  # index right after the latest whitespace run in the current chunk
    i = 0
    while i < len(bounds) - 1:
        seg_start, seg_end = bounds[i], bounds[i + 1]
        segment = line[seg_start:seg_end]
        seg_width = cell_len(segment)
        if used + seg_width > width and seg_start > start:
            if last_space_end > start and not segment.isspace():
                cut = last_space_end
            else:
                cut = seg_start
            chunks.append(TextChunk(line[start:cut], start, cut))
            start = cut
            used = cell_len(line[start:seg_start])
            last_space_end = -1
            continue  # re-examine this segment on the new line
        if seg_width > width:  # one oversized segment: split it for display
            for piece_start, piece_end in _split_cells(line, seg_start, seg_end, width):
                chunks.append(TextChunk(line[piece_start:piece_end], piece_start, piece_end))
            start = seg_end
            used = 0
            last_space_end = -1
            i += 1
            continue
        used += seg_width
        if segment.isspace():
            last_space_end = seg_end
        i += 1
    if start < len(line) or not chunks:
        chunks.append(TextChunk(line[start:], start, len(line)))
    return chunks


def _split_cells(line: str, start: int, end: int, width: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    piece_start = start
    used = 0
    position = start
    for grapheme in _graphemes(line[start:end]):
        w = cell_len(grapheme)
        if used + w > width and position > piece_start:
            pieces.append((piece_start, position))
            piece_start = position
            used = 0
        used += w
        position += len(grapheme)
    pieces.append((piece_start, end))
    return pieces


def truncate_cells(text: str, width: int, ellipsis: str = "...") -> str:
    """``text`` cut to ``width`` cells, ending in ``ellipsis`` when it was cut."""
    if cell_len(text) <= width:
        return text
    if width <= cell_len(ellipsis):
        return ellipsis[: max(0, width)]
    out = []
    used = 0
    limit = width - cell_len(ellipsis)
    for grapheme in _graphemes(text):
        w = cell_len(grapheme)
        if used + w > limit:
            break
        out.append(grapheme)
        used += w
    return "".join(out) + ellipsis
