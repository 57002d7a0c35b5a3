"""Transcript search (1.6.0's ``tui.altScreen.search``): find a text in the *rendered* transcript.

The headless part: ``find_matches(lines, query)`` returns every match as (row, first cell, last
cell + 1), so the transcript can highlight it in the strip of that row whatever the width of the
characters before it (CJK punctuation and emoji take two cells). Matching ignores case one
character at a time (a character whose lower case is longer, such as ``İ``, is compared as it is,
so offsets never shift) and never spans two rendered rows, as in pi 1.6.0, which searches what is
on screen, not the markdown source.

``SearchState`` keeps the query, the matches and which one is current; ``select_near(row)`` picks
the first match the user would see (the last one at or above ``row``, the view's bottom row).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len


@dataclass(frozen=True)
class Match:
    row: int
    start: int
    """First cell of the match in its row."""
    end: int
    """One past the last cell."""


def fold(text: str) -> str:
    """Lower case, one character for one character (offsets into ``text`` stay valid)."""
    if text.isascii():
        return text.lower()
    out = []
    for char in text:
        lower = char.lower()
        out.append(lower if len(lower) == 1 else char)
    return "".join(out)


def find_in_line(line: str, needle: str, folded: str | None = None) -> list[tuple[int, int]]:
    """Cell spans of the non-overlapping occurrences of the folded ``needle`` in ``line``
    (``folded``: ``fold(line)`` when the caller has it already)."""
    if not needle:
        return []
    haystack = fold(line) if folded is None else folded
    spans: list[tuple[int, int]] = []
    index = haystack.find(needle)
    while index >= 0:
        start = cell_len(line[:index])
        spans.append((start, start + cell_len(line[index : index + len(needle)])))
        index = haystack.find(needle, index + len(needle))
    return spans


def find_matches(
    lines: Sequence[str], query: str, first_row: int = 0, folded: Sequence[str] | None = None
) -> list[Match]:
    """Every match of ``query`` in ``lines`` (row ``first_row`` onward); ``folded`` are the lines
    already folded (the transcript keeps them per block, so a keystroke does not fold them again)."""
    needle = fold(query)
    matches: list[Match] = []
    if not needle:
        return matches
    folded_lines = folded if folded is not None else [fold(line) for line in lines]
    for offset, (line, haystack) in enumerate(zip(lines, folded_lines, strict=True)):
        if needle not in haystack:
            continue
        for start, end in find_in_line(line, needle, haystack):
            matches.append(Match(first_row + offset, start, end))
    return matches


@dataclass
class SearchState:
    query: str = ""
    matches: list[Match] = field(default_factory=list)
    current: int = -1
    """Index into ``matches``; -1 when there is none."""
    _rows: list[int] = field(default_factory=list)
    pending: bool = False
    """True while a long transcript is still being measured for the search."""

    @property
    def current_match(self) -> Match | None:
        return self.matches[self.current] if 0 <= self.current < len(self.matches) else None

    def set_matches(self, matches: list[Match], near_row: int) -> None:
        self.matches = matches
        self._rows = [m.row for m in matches]
        self.select_near(near_row)

    def select_near(self, row: int) -> None:
        """The last match at or above ``row``; the first match when every one is below it."""
        if not self.matches:
            self.current = -1
            return
        self.current = max(0, bisect_right(self._rows, row) - 1)

    def step(self, direction: int) -> Match | None:
        """Move to the next (1) or previous (-1) match, wrapping around."""
        if not self.matches:
            return None
        self.current = (self.current + direction) % len(self.matches)
        return self.matches[self.current]

    def counter(self) -> str:
        """``3/10``, or ``No matches`` for a query that matches nothing (empty for no query)."""
        if not self.query:
            return ""
        if self.pending:
            return "searching…"
        if not self.matches:
            return "No matches"
        return f"{self.current + 1}/{len(self.matches)}"

    def in_row(self, row: int) -> list[tuple[int, int, bool]]:
        """The matches in ``row`` as (start, end, is current)."""
        lo = bisect_right(self._rows, row - 1)
        out: list[tuple[int, int, bool]] = []
        for i in range(lo, len(self.matches)):
            match = self.matches[i]
            if match.row != row:
                break
            out.append((match.start, match.end, i == self.current))
        return out
