"""The app in a pseudo-terminal, as a user's terminal sees it (pyte keeps the screen).

Issue acceptance 2: after typing CJK text and a line that wraps, the terminal's cursor (where an
input method opens its candidate window) is on the editor's caret cell. Issue acceptance 3: a
terminal that answers the Kitty graphics query receives the image as graphics commands and shows
placeholder cells; one that does not gets half-block cells; neither shows stray escape text.
"""

from __future__ import annotations

import io
import sys
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from pi_app import __version__
from tests.tui_term.pty_terminal import PtyTerminal

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def start(tmp_path: Path, *args: str, size: tuple[int, int] = (60, 20), **kwargs) -> PtyTerminal:  # type: ignore[no-untyped-def]
    term = PtyTerminal(
        [sys.executable, "-m", "tests.tui_term.pty_app", str(tmp_path), *args],
        size=size,
        cwd=str(ROOT),
        **kwargs,
    )
    term.wait_for(lambda: "fake-model" in term.text())
    term.settle()
    return term


def caret_cell(term: PtyTerminal) -> tuple[int, int]:
    """The caret cell: the one reverse-video cell (R-IME-01), else the one unique background."""
    buffer = term.screen.buffer
    cells = [(x, y) for y in range(term.rows) for x in range(term.cols)]
    reversed_cells = [(x, y) for x, y in cells if buffer[y][x].reverse]
    if reversed_cells:
        assert len(reversed_cells) == 1, f"expected one caret cell, found {reversed_cells}"
        return reversed_cells[0]
    counts = Counter(buffer[y][x].bg for x, y in cells)
    unique = [(x, y) for x, y in cells if counts[buffer[y][x].bg] == 1]
    assert len(unique) == 1, f"expected one caret cell, found {unique}"
    return unique[0]


def test_hardware_cursor_follows_the_caret_through_cjk_and_wrapping(tmp_path: Path) -> None:
    term = start(tmp_path)
    try:
        assert term.cursor == caret_cell(term)
        term.type("你好世界")
        term.wait_for(lambda: "你好世界" in term.text())
        term.settle()
        assert term.cursor == caret_cell(term)
        start_x = term.cursor[0]
        assert start_x == 8  # four double-width characters (editorPaddingX is 0 by default)
        term.type(" hello world" * 6)  # wraps onto a second row; the editor grows
        term.wait_for(lambda: term.text().count("hello world") == 6)
        term.settle()
        x, y = term.cursor
        assert (x, y) == caret_cell(term)
        assert "hello world" in term.screen.display[y]
        assert "你好世界" in term.screen.display[y - 1]  # the caret is on the wrapped row
        term.type("\x1b[A")  # up: back to the first row, inside the CJK text's row
        term.settle()
        assert term.cursor == caret_cell(term)
        assert term.cursor[1] == y - 1
    finally:
        term.close()


def _png(path: Path) -> Path:
    image = Image.new("RGB", (180, 72))
    for x in range(180):
        for y in range(72):
            image.putpixel((x, y), (x, 255 - x, y * 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return path


def _intact(term: PtyTerminal) -> None:
    screen = term.text()
    assert f"pi v{__version__}" in screen and "fake-model" in screen and "look at this" in screen
    for debris in ("_G", "Gi=", "[?", "$y", ";OK", "\x1b"):
        assert debris not in screen
    editor_row = term.screen.display[term.cursor[1]]
    assert editor_row.strip() == ""  # no reply leaked into the editor as typed keys


def test_kitty_terminal_gets_graphics_commands_and_placeholder_cells(tmp_path: Path) -> None:
    image = _png(tmp_path / "picture.png")
    term = start(tmp_path, str(image), size=(60, 24), kitty=True, env={"TERM_PROGRAM": "kitty"})
    try:
        term.wait_for(lambda: any(g.startswith("Ga=T") for g in term.graphics))
        term.settle()
        first = next(g for g in term.graphics if g.startswith("Ga=T"))
        control = dict(kv.split("=") for kv in first.split(";", 1)[0][1:].split(","))
        assert control["a"] == "T" and control["U"] == "1" and control["f"] == "100" and control["q"] == "2"
        cols, rows = int(control["c"]), int(control["r"])
        placeholder_rows = [
            row for row in term.screen.buffer.values() if any("\U0010eeee" in c.data for c in row.values())
        ]
        assert len(placeholder_rows) == rows
        assert sum(1 for c in placeholder_rows[0].values() if "\U0010eeee" in c.data) == cols
        assert "▀" not in term.text()
        _intact(term)
        assert "\x1b[?2026h" in term.raw and "\x1b[?2026l" in term.raw  # frames are synchronized
    finally:
        term.close()


def test_terminal_without_graphics_gets_half_block_cells(tmp_path: Path) -> None:
    image = _png(tmp_path / "picture.png")
    term = start(tmp_path, str(image), size=(60, 24), kitty=False, env={"TERM_PROGRAM": "kitty"})
    try:
        term.wait_for(lambda: "▀" in term.text())
        term.settle()
        assert [g for g in term.graphics if "a=q" not in g] == []  # only the capability query
        rows = [line for line in term.screen.display if "▀" in line]
        assert len(rows) >= 3
        colours = {c.fg for row in term.screen.buffer.values() for c in row.values() if c.data == "▀"}
        assert len(colours) > 10  # the picture's gradient, not one flat colour
        _intact(term)
    finally:
        term.close()


def test_without_kitty_keyboard_modify_other_keys_is_switched_on_and_off(tmp_path: Path) -> None:
    """R-KEY-01, issue 17 defect 2: no answer to the Kitty keyboard query -> modifyOtherKeys, reset
    on exit, with no ``TMUX`` variable (tmux under ``env -i`` sends ``S-Enter`` as text otherwise).
    R-IME-03: ``PI_HARDWARE_CURSOR=1`` shows the terminal cursor while the editor has focus."""
    env = {"PI_HARDWARE_CURSOR": "1"}
    term = start(tmp_path, env=env)
    try:
        assert "\x1b[>4;2m" in term.raw
        assert term.raw.rindex("\x1b[?25h") > term.raw.index("\x1b[?25l")
        term.type("a\x1b[27;2;13~b")  # shift+enter as tmux sends it: a newline, not a submit
        term.wait_for(lambda: term.screen.display[term.cursor[1]].strip() == "b")
        assert term.screen.display[term.cursor[1] - 1].strip() == "a"
        term.type("\x03")  # clear the editor, then ctrl+c again on the empty editor quits
        term.wait_for(lambda: term.screen.display[term.cursor[1]].strip() == "")
        term.type("\x03")
        assert term.wait_exit() == 0
        assert term.raw.rindex("\x1b[>4;0m") > term.raw.rindex("\x1b[>4;2m")
    finally:
        term.close()


def test_a_terminal_that_answers_the_kitty_query_gets_no_modify_other_keys(tmp_path: Path) -> None:
    term = start(tmp_path, kitty=True)
    try:
        assert "\x1b[>4;2m" not in term.raw
    finally:
        term.close()


def test_a_crash_still_switches_modify_other_keys_off(tmp_path: Path) -> None:
    term = PtyTerminal(
        [sys.executable, "-m", "tests.tui_term.pty_app", str(tmp_path)],
        size=(60, 20),
        cwd=str(ROOT),
        env={"PTY_APP_CRASH": "1"},
    )
    try:
        assert term.wait_exit(timeout=20) != 0
        assert "PTY_APP_CRASH" in term.raw  # it really died of the exception
        assert term.raw.rindex("\x1b[>4;0m") > term.raw.rindex("\x1b[>4;2m")
    finally:
        term.close()
