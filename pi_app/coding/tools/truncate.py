"""Shared output limits of the built-in tools (spec 50 §2.4, R-TRUNC-01..07).

Two independent limits, lines and UTF-8 bytes; whichever is hit first wins. ``truncate_head`` keeps
the beginning (read, grep, find, ls), ``truncate_tail`` keeps the end (bash). Neither returns half a
line, except the tail case where the last line alone is larger than the byte limit
(``last_line_partial``). ``TruncationResult.to_dict`` gives the camelCase shape stored in sessions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


@dataclass
class TruncationResult:
    """Text cut to the line and byte limits, with what was cut."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int | float
    max_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """The session/details shape, in pi's key order."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines if math.isfinite(self.max_lines) else None,
            "maxBytes": self.max_bytes,
        }


def utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    if len(text) <= _UTF8_CHUNK:
        return len(text.encode("utf-8", "surrogatepass"))
    # Big text: encode piecewise so a 100 MB file read never holds a second full-size copy.
    return sum(
        len(text[i : i + _UTF8_CHUNK].encode("utf-8", "surrogatepass"))
        for i in range(0, len(text), _UTF8_CHUNK)
    )


_UTF8_CHUNK = 1 << 20


def iter_lines(text: str) -> Iterator[str]:
    """``text.split("\n")`` one line at a time (no list of every line of a huge text)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def format_size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def _untouched(content: str, lines: int, size: int, max_lines: float, max_bytes: int) -> TruncationResult:
    return TruncationResult(
        content, False, None, lines, size, lines, size, False, False, max_lines, max_bytes
    )


def _take_lines(
    lines: Iterable[str], max_lines: int | float, max_bytes: int
) -> tuple[list[str], int, TruncatedBy]:
    """Whole lines in order while both limits hold (one ``\n`` counted between lines)."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if index >= max_lines:
            return kept, used, "lines"
        size = utf8_len(line) + (1 if index > 0 else 0)
        if used + size > max_bytes:
            return kept, used, "bytes"
        kept.append(line)
        used += size
    return kept, used, "lines"


def truncate_head(
    content: str, max_lines: int | float = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start within both limits."""
    total_bytes = utf8_len(content)
    total_lines = content.count("\n") + 1
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)

    first_end = content.find("\n")
    first_chars = len(content) if first_end < 0 else first_end
    # A line longer than max_bytes characters is longer in UTF-8 too; only short ones need encoding.
    if first_chars > max_bytes or utf8_len(content[:first_chars]) > max_bytes:
        return TruncationResult(
            "", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes
        )

    kept, used, truncated_by = _take_lines(iter_lines(content), max_lines, max_bytes)
    text = "\n".join(kept)
    return TruncationResult(
        text,
        True,
        truncated_by,
        total_lines,
        total_bytes,
        len(kept),
        used,
        False,
        False,
        max_lines,
        max_bytes,
    )


def _utf8_tail(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` whose UTF-8 form fits ``max_bytes`` (never splits a character)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "surrogatepass")


def truncate_tail(
    content: str, max_lines: int | float = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end within both limits; a huge last line keeps its final bytes."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)

    kept, used, truncated_by = _take_lines(reversed(lines), max_lines, max_bytes)
    last_line_partial = not kept
    if last_line_partial:
        kept = [_utf8_tail(lines[-1], max_bytes)]
        used = utf8_len(kept[0])
    kept.reverse()
    text = "\n".join(kept)
    return TruncationResult(
        text,
        True,
        truncated_by,
        total_lines,
        total_bytes,
        len(kept),
        used,
        last_line_partial,
        False,
        max_lines,
        max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters; returns ``(text, was_truncated)``."""
    if len(line) <= max_chars:
        return line, False
    return line[:max_chars] + "... [truncated]", True


def listing_text(
    lines: list[str], head_notices: list[str], details: dict[str, Any], tail_notices: list[str] | None = None
) -> tuple[str, dict[str, Any] | None]:
    """grep/find/ls output: lines cut to 50KB (bytes only), then one ``[a. b. c]`` notice.

    The byte-limit notice goes between ``head_notices`` (count limits) and ``tail_notices``;
    ``details`` gains ``truncation`` when the byte limit cut the text.
    """
    truncation = truncate_head("\n".join(lines), max_lines=math.inf)
    notices = list(head_notices)
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details = {**details, "truncation": truncation.to_dict()}
    notices.extend(tail_notices or [])
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return text, details or None
