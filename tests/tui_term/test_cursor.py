"""The IME caret cell (R-IME-02, R-ED-14): wide characters, wrapping and paste markers."""

from __future__ import annotations

from pi_app.tui.editor.cursor import caret_cell, segments, wrap_line


def texts(line: str, width: int) -> list[str]:
    return [chunk.text for chunk in wrap_line(line, width)]


def test_wide_characters_count_two_cells() -> None:
    assert caret_cell(["你好"], 0, 2, 40) == (0, 4)
    assert caret_cell(["a你b"], 0, 2, 40) == (0, 3)
    assert caret_cell(["e\u0301x"], 0, 2, 40) == (0, 1)  # combining accent has no width


def test_word_wrap_breaks_after_whitespace_and_hard_breaks_long_words() -> None:
    assert texts("hello world foo", 8) == ["hello ", "world ", "foo"]
    assert texts("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert texts("你好世界你好", 8) == ["你好世界", "你好"]
    assert texts("ab 你好世界你好", 8) == ["ab ", "你好世界", "你好"]


def test_caret_moves_to_the_next_row_at_a_wrap_boundary() -> None:
    assert caret_cell(["hello world foo"], 0, 6, 8) == (1, 0)
    assert caret_cell(["hello world foo"], 0, 15, 8) == (2, 3)
    assert caret_cell(["你好世界你好"], 0, 5, 8) == (1, 2)
    assert caret_cell(["one", "hello world foo", "x"], 2, 1, 8) == (4, 1)


def test_paste_markers_are_one_segment_only_when_registered() -> None:
    line = "a[paste #1 +50 lines]b"
    assert (1, 21) in segments(line)
    assert (1, 2) in segments(line, is_marker=lambda n: n == 2)
    assert texts("ab [paste #1 +50 lines] c", 20) == ["ab ", "[paste #1 +50 lines] ", "c"]
    assert caret_cell(["ab [paste #1 +50 lines] c"], 0, 23, 20) == (1, 20)
    assert caret_cell(["ab [paste #1 +50 lines] c"], 0, 25, 20) == (2, 1)
