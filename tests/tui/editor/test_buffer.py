"""The headless editor model (R-ED-01…13 and acceptance scenarios 3–8 of spec 60), without Textual."""

from __future__ import annotations

from pi_app.tui.editor.buffer import EditorBuffer
from pi_app.tui.editor.history import PromptHistory


def typed(text: str) -> EditorBuffer:
    buffer = EditorBuffer()
    for char in text:
        buffer.insert(char)
    return buffer


def test_large_paste_becomes_one_atomic_marker_that_undo_restores() -> None:
    buffer = EditorBuffer()
    pasted = "\n".join(f"line {i}" for i in range(50))
    buffer.paste(pasted)
    assert buffer.get_text() == "[paste #1 +50 lines]"
    buffer.backspace()
    assert buffer.get_text() == "" and buffer.pastes == {}
    buffer.undo()
    assert buffer.get_text() == "[paste #1 +50 lines]"
    assert buffer.submit() == pasted


def test_long_single_line_paste_shows_a_character_count() -> None:
    buffer = EditorBuffer()
    buffer.paste("x" * 1500)
    assert buffer.get_text() == "[paste #1 1500 chars]"


def test_deleting_a_marker_renumbers_the_others_and_keeps_their_content() -> None:
    buffer = EditorBuffer()
    texts = ["\n".join(f"{n}-{i}" for i in range(12)) for n in (1, 2, 3)]
    for text in texts:
        buffer.paste(text)
        buffer.insert(" ")
    assert buffer.get_text() == "[paste #1 +12 lines] [paste #2 +12 lines] [paste #3 +12 lines] "
    buffer.line_start()
    buffer.word_right()  # past the first marker
    buffer.backspace()
    assert buffer.get_text() == " [paste #1 +12 lines] [paste #2 +12 lines] "
    assert buffer.submit() == f"{texts[1]} {texts[2]}"


def test_text_that_only_looks_like_a_marker_is_ordinary_text() -> None:
    buffer = typed("[paste #7 +3 lines]")
    buffer.backspace()
    assert buffer.get_text() == "[paste #7 +3 lines"


def test_small_paste_is_inserted_and_dropped_paths_get_a_space() -> None:
    buffer = typed("look")
    buffer.paste("/tmp/x.png")
    assert buffer.get_text() == "look /tmp/x.png"
    buffer = EditorBuffer()
    buffer.paste("a\r\nb\tc\x07")
    assert buffer.get_text() == "a\nb    c"


def test_kill_and_yank_accumulate_and_yank_pop_rotates() -> None:
    buffer = typed("foo bar baz")
    buffer.delete_word_backward()
    buffer.delete_word_backward()
    assert buffer.get_text() == "foo "
    buffer.yank()
    assert buffer.get_text() == "foo bar baz"
    assert buffer.kill_ring.entries == ["bar baz"]
    buffer.yank_pop()  # only one entry: nothing happens
    assert buffer.get_text() == "foo bar baz"
    buffer.line_start()
    buffer.delete_to_line_end()  # a separate kill
    assert buffer.get_text() == ""
    buffer.yank()
    assert buffer.get_text() == "foo bar baz"
    buffer.insert("!")
    buffer.move_left()
    buffer.yank()
    assert buffer.get_text() == "foo bar bazfoo bar baz!"
    buffer.yank_pop()
    assert buffer.get_text() == "foo bar bazbar baz!"


def test_kill_to_line_start_and_end_at_boundaries_kill_the_newline() -> None:
    buffer = EditorBuffer()
    buffer.set_text("one\ntwo")
    buffer.cursor_line, buffer.cursor_col = 1, 0
    buffer.delete_to_line_start()
    assert buffer.get_text() == "onetwo"
    buffer.set_text("one\ntwo")
    buffer.cursor_line, buffer.cursor_col = 0, 3
    buffer.delete_to_line_end()
    assert buffer.get_text() == "onetwo"


def test_undo_coalesces_words_and_a_space_starts_a_unit() -> None:
    buffer = typed("hello world")
    buffer.undo()
    assert buffer.get_text() == "hello"
    buffer.undo()
    assert buffer.get_text() == ""


def test_backslash_enter_inserts_a_newline_instead_of_submitting() -> None:
    buffer = typed("a\\")
    assert buffer.backslash_newline() is True
    assert buffer.lines == ["a", ""]
    assert buffer.backslash_newline() is False
    assert buffer.submit() == "a"
    assert buffer.is_empty and len(buffer.undo_stack) == 0


def test_history_browsing_up_and_down() -> None:
    buffer = EditorBuffer(PromptHistory(["one", "two"]))
    buffer.move_up(80)
    assert buffer.get_text() == "two"
    assert buffer.cursor_col == 3  # cursor at the end
    buffer.move_up(80)
    assert buffer.get_text() == "one"
    buffer.move_down(80)
    assert buffer.get_text() == "two"
    buffer.move_down(80)
    assert buffer.get_text() == ""


def test_history_skips_duplicates_and_blank_entries() -> None:
    history = PromptHistory()
    for text in ["a", "a", "  ", " b "]:
        history.add(text)
    assert history.entries() == ["b", "a"]


def test_up_on_first_row_goes_to_line_start_and_down_on_last_to_end() -> None:
    buffer = EditorBuffer()
    buffer.set_text("abc\ndef")
    buffer.cursor_line, buffer.cursor_col = 0, 2
    buffer.move_up(80)
    assert (buffer.cursor_line, buffer.cursor_col) == (0, 0)
    buffer.cursor_line, buffer.cursor_col = 1, 1
    buffer.move_down(80)
    assert (buffer.cursor_line, buffer.cursor_col) == (1, 3)


def test_sticky_column_survives_a_short_line() -> None:
    buffer = EditorBuffer()
    buffer.set_text("long line here\nab\nanother long line")
    buffer.cursor_line, buffer.cursor_col = 0, 10
    buffer.move_down(80)
    assert (buffer.cursor_line, buffer.cursor_col) == (1, 2)
    buffer.move_down(80)
    assert (buffer.cursor_line, buffer.cursor_col) == (2, 10)


def test_vertical_moves_follow_wrapped_rows() -> None:
    buffer = EditorBuffer()
    buffer.set_text("aaaa bbbb cccc")  # width 5: "aaaa " / "bbbb " / "cccc"
    assert [row.text for row in buffer.layout(5)] == ["aaaa ", "bbbb ", "cccc"]
    buffer.move_up(5)
    assert (buffer.cursor_line, buffer.cursor_col) == (0, 9)
    assert buffer.cursor_visual(5) == (1, 4)


def test_word_moves_treat_punctuation_runs_and_markers_as_words() -> None:
    buffer = typed("foo.bar(baz)")
    buffer.word_left()
    assert buffer.cursor_col == 11  # before ")"
    buffer.word_left()
    assert buffer.cursor_col == 8  # before "baz"
    buffer.word_left()
    assert buffer.cursor_col == 7  # before "("
    buffer.line_start()
    buffer.word_right()
    assert buffer.cursor_col == 3


def test_grapheme_clusters_move_and_delete_as_one() -> None:
    buffer = typed("e\u0301x")
    buffer.move_left()
    buffer.move_left()
    assert buffer.cursor_col == 0
    buffer.line_end()
    buffer.move_left()
    buffer.backspace()
    assert buffer.get_text() == "x"


def test_character_jump_forward_and_backward() -> None:
    buffer = EditorBuffer()
    buffer.set_text("a-b\nc-d")
    buffer.cursor_line, buffer.cursor_col = 0, 1
    assert buffer.jump_to_char("-", forward=True)
    assert (buffer.cursor_line, buffer.cursor_col) == (1, 1)
    assert buffer.jump_to_char("-", forward=False)
    assert (buffer.cursor_line, buffer.cursor_col) == (0, 1)
    assert not buffer.jump_to_char("z", forward=True)


def test_set_text_normalises_and_is_one_undo_unit() -> None:
    buffer = typed("draft")
    buffer.set_text("x\r\ny\tz")
    assert buffer.get_text() == "x\ny    z"
    assert (buffer.cursor_line, buffer.cursor_col) == (1, 6)
    buffer.undo()
    assert buffer.get_text() == "draft"
