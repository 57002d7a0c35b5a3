"""Where the terminal's hardware cursor goes: the editor caret, for input methods (R-IME).

The editor draws its own (reverse-video) cursor; the hardware cursor is only an anchor for the
IME candidate window and emoji pickers, which open wherever the terminal's cursor is. Textual
moves the (hidden) terminal cursor to ``App.cursor_position`` after every frame, so the editor's
job is to keep that offset on its caret cell (R-IME-02):

* ``caret_cell(lines, cursor_line, cursor_col, width)`` — the (visual row, cell column) of the
  caret in the wrapped text: wide CJK characters and emoji count two cells, combining marks
  zero, paste markers are one unbreakable segment, wrapped lines add rows. Pure, no Textual.
* ``wrap_line(line, width)`` — the word wrap those rows come from (R-ED-14): break after the
  last whitespace run before the overflowing segment when the rest fits, otherwise at the
  segment boundary; a segment wider than the line is split at grapheme boundaries. Whitespace
  that overflows hangs at the end of its row (the caret is clamped to the last column).
* ``publish_caret(widget, offset)`` — set ``App.cursor_position`` while ``widget`` has focus and
  nothing (autocomplete) suppresses it. Call it from the widget's ``render_lines``: at paint time
  the layout is final, so the offset is right even when the editor just grew or moved.

The editor model (``buffer.py``) may bring its own wrap: pass it as ``wrap=``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from rich.cells import cell_len

if TYPE_CHECKING:
    import regex
    from textual.geometry import Offset
    from textual.widget import Widget

PASTE_MARKER = re.compile(r"\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]")


@cache
def graphemes() -> regex.Pattern[str]:
    """The pattern of one user-perceived character (``\\X``). The ``regex`` module is imported on
    first use: it costs the app's first frame some 25 ms and the first frame shows no text to split."""
    import regex

    return regex.compile(r"\X")


@dataclass(frozen=True)
class TextChunk:
    """One visual row of a logical line (spec 60 §2.4): ``text == line[start_index:end_index]``."""

    text: str
    start_index: int
    end_index: int


def segments(line: str, is_marker: Callable[[int], bool] | None = None) -> list[tuple[int, int]]:
    """(start, end) of each segment: grapheme clusters, except that a valid paste marker is one.

    ``is_marker(id)`` says whether a marker's id is in the paste registry; without it every
    marker-shaped text counts.
    """
    spans: list[tuple[int, int]] = []
    markers = [
        m.span() for m in PASTE_MARKER.finditer(line) if is_marker is None or is_marker(int(m.group(1)))
    ]
    position = 0
    for start, end in [*markers, (len(line), len(line))]:
        spans.extend(m.span() for m in graphemes().finditer(line, position, start))
        if end > start:
            spans.append((start, end))
        position = end
    return spans


def wrap_line(line: str, width: int, is_marker: Callable[[int], bool] | None = None) -> list[TextChunk]:
    """Word-wrap one logical line into visual rows of at most ``width`` cells (R-ED-14)."""
    if width <= 0 or cell_len(line) <= width:
        return [TextChunk(line, 0, len(line))]
    spans = segments(line, is_marker)
    rows: list[TextChunk] = []
    row_start = 0  # index into spans of the first segment of the current row
    col = 0
    break_at: int | None = None  # span index just after the last whitespace run in this row
    i = 0
    while i < len(spans):
        start, end = spans[i]
        text = line[start:end]
        w = cell_len(text)
        is_space = text.isspace()
        if col + w > width and not is_space and i > row_start:
            cut = i
            if break_at is not None and break_at > row_start:
                rest = sum(cell_len(line[s:e]) for s, e in spans[break_at : i + 1])
                if rest <= width:
                    cut = break_at
            rows.append(
                TextChunk(line[spans[row_start][0] : spans[cut][0]], spans[row_start][0], spans[cut][0])
            )
            row_start, i, col, break_at = cut, cut, 0, None
            continue
        if w > width and not is_space:  # one segment wider than a row: split it visually
            pieces = _split_by_width(text, width)
            for piece_start, piece_end in pieces[:-1]:
                rows.append(TextChunk(text[piece_start:piece_end], start + piece_start, start + piece_end))
            last_start = start + pieces[-1][0]
            spans[i] = (last_start, end)
            row_start, col, break_at = i, cell_len(line[last_start:end]), None
            i += 1
            continue
        col += w
        i += 1
        if is_space and (i == len(spans) or not line[spans[i][0] : spans[i][1]].isspace()):
            break_at = i
    first = spans[row_start][0] if row_start < len(spans) else len(line)
    rows.append(TextChunk(line[first:], first, len(line)))
    return rows


def _split_by_width(text: str, width: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    start, col = 0, 0
    for match in graphemes().finditer(text):
        w = cell_len(match.group())
        if col + w > width and match.start() > start:
            pieces.append((start, match.start()))
            start, col = match.start(), 0
        col += w
    pieces.append((start, len(text)))
    return pieces


def caret_cell(
    lines: Sequence[str],
    cursor_line: int,
    cursor_col: int,
    width: int,
    wrap: Callable[[str, int], list[TextChunk]] = wrap_line,
) -> tuple[int, int]:
    """(visual row, cell column) of the caret in ``lines`` wrapped at ``width``."""
    row = 0
    for index in range(min(cursor_line, len(lines))):
        row += len(wrap(lines[index], width))
    line = lines[cursor_line] if cursor_line < len(lines) else ""
    chunks = wrap(line, width)
    for offset, chunk in enumerate(chunks):
        last = offset == len(chunks) - 1
        # a caret on a wrap boundary belongs to the start of the next row
        if cursor_col < chunk.end_index or last:
            column = cell_len(line[chunk.start_index : max(chunk.start_index, cursor_col)])
            return row + offset, min(column, width) if width > 0 else column
    return row, 0


def publish_caret(widget: Widget, offset: Offset, *, suppressed: bool = False) -> bool:
    """Put the app's hardware cursor on ``offset`` (screen cell) while ``widget`` has focus.

    Returns True when the position was published. ``suppressed`` is for an open autocomplete
    list (R-IME-02): the caret then keeps its last position.
    """
    if suppressed or not getattr(widget, "has_focus", False):
        return False
    app = widget.app
    if app.cursor_position != offset:
        app.cursor_position = offset
    return True
