"""Shared truncation contract (spec 50 R-TRUNC-01..07)."""

from __future__ import annotations

import math

from pi_app.coding.tools import format_size, truncate_head, truncate_line, truncate_tail


def test_head_untouched_when_within_limits():
    result = truncate_head("a\nb\nc")
    assert not result.truncated and result.truncated_by is None
    assert result.content == "a\nb\nc"
    assert result.total_lines == result.output_lines == 3


def test_head_by_lines_keeps_first_lines():
    text = "\n".join(f"L{i}" for i in range(1, 11))
    result = truncate_head(text, max_lines=4)
    assert result.content == "L1\nL2\nL3\nL4"
    assert (result.truncated_by, result.output_lines, result.total_lines) == ("lines", 4, 10)


def test_head_by_bytes_counts_newlines_and_never_cuts_a_line():
    text = "aaaa\nbbbb\ncccc"
    result = truncate_head(text, max_bytes=9)  # "aaaa\nbbbb" is exactly 9 bytes
    assert result.content == "aaaa\nbbbb"
    assert result.truncated_by == "bytes" and result.output_bytes == 9


def test_head_first_line_too_long():
    result = truncate_head("x" * 100 + "\nshort", max_bytes=50)
    assert result.content == "" and result.first_line_exceeds_limit
    assert result.truncated_by == "bytes" and result.output_lines == 0


def test_tail_keeps_last_lines():
    text = "\n".join(str(i) for i in range(1, 101))
    result = truncate_tail(text, max_lines=3)
    assert result.content == "98\n99\n100"
    assert result.truncated_by == "lines"


def test_tail_partial_last_line_never_splits_a_character():
    line = "é" * 100  # 2 bytes each
    result = truncate_tail("first\n" + line, max_bytes=51)
    assert result.last_line_partial
    assert result.content == "é" * 25
    assert result.output_bytes == 50


def test_emoji_never_split():
    text = "😀" * 20  # 4 bytes each
    result = truncate_tail(text, max_bytes=10)
    assert result.content == "😀😀"


def test_infinite_line_limit_only_enforces_bytes():
    text = "\n".join("x" for _ in range(5000))
    result = truncate_head(text, max_lines=math.inf)
    assert not result.truncated
    assert result.to_dict()["maxLines"] is None


def test_truncate_line():
    assert truncate_line("abc") == ("abc", False)
    cut, was = truncate_line("y" * 600)
    assert was and cut == "y" * 500 + "... [truncated]"


def test_format_size():
    assert format_size(1023) == "1023B"
    assert format_size(51200) == "50.0KB"
    assert format_size(60000) == "58.6KB"
    assert format_size(3 * 1024 * 1024) == "3.0MB"


def test_to_dict_uses_pi_keys():
    data = truncate_head("a\nb", max_lines=1).to_dict()
    assert list(data) == [
        "content",
        "truncated",
        "truncatedBy",
        "totalLines",
        "totalBytes",
        "outputLines",
        "outputBytes",
        "lastLinePartial",
        "firstLineExceedsLimit",
        "maxLines",
        "maxBytes",
    ]
