"""Escape sequences in model text never reach the terminal (issue 19 item 5).

A model answer (or its thinking) holding OSC 52 wrote the clipboard, OSC 0 set the title and
CSI 2J cleared the screen, because the text was painted as it came (pi 1.6.0 has the same hole).
Every control character that pi did not write itself is now shown as a visible stand-in (ESC as
``␛``): in the app's transcript, in any block's strips, and in ``-p`` output on a terminal.
"""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from textual.strip import Strip

from pi_app.ai.testing import text, thinking
from pi_app.terminal_text import visible_controls
from pi_app.tui.app import PiApp
from pi_app.tui.transcript.blocks.base import Block, text_strip
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, read_until
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for

HOSTILE = "copy\x1b]52;c;cHduZWQ=\x07 title\x1b]0;pwned\x07 clear\x1b[2J\x1b[H bell\x07 c1\x9b2J done"


def _segments(strips: list[Strip]) -> list[str]:
    return [segment.text for strip in strips for segment in strip]


def test_visible_controls_shows_every_control_but_newline_and_tab() -> None:
    assert visible_controls(HOSTILE) == (
        "copy␛]52;c;cHduZWQ=␇ title␛]0;pwned␇ clear␛[2J␛[H bell␇ c1\ufffd2J done"
    )
    assert visible_controls("a\tb\r\nc\rd\x7f") == "a\tb\nc␍d␡"
    assert visible_controls("plain é 🙂") == "plain é 🙂"


def test_a_block_cannot_put_a_control_character_on_screen() -> None:
    class Raw(Block):
        def build(self, width, theme):
            return [text_strip("\x1b[2Jwiped"), text_strip("ok")]

    strips = Raw().render(40, FALLBACK_DARK)

    assert not any("\x1b" in s for s in _segments(strips))
    assert [s.text for s in strips] == ["␛[2Jwiped", "ok"]


async def test_model_text_and_thinking_with_escapes_are_painted_visibly(tmp_path: Path) -> None:
    factory, _ = fake_session_factory(str(tmp_path), [[thinking("think\x1b]0;t\x07"), text(HOSTILE)]])
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: app.session.messages and not app.session.is_busy, timeout=20)
        await pilot.pause(0.2)
        transcript = app.transcript
        rows = [transcript.render_line(y) for y in range(transcript.total_rows)]
        painted = "\n".join(strip.text for strip in rows)

    assert not any(ch in segment for segment in _segments(rows) for ch in "\x1b\x07\x9b")
    assert "copy␛]52;c;cHduZWQ=␇" in painted and "clear␛[2J␛[H" in painted


def test_print_mode_on_a_terminal_shows_escapes_and_a_pipe_gets_them_verbatim(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    llm_server.enqueue(text(HOSTILE))
    llm_server.enqueue(text(HOSTILE))

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [PI, "-p", "hi"],
        cwd=home.project,
        env=home.env(),
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    seen = read_until(leader, b"done", timeout=30)
    proc.wait(timeout=30)
    os.close(leader)
    piped = home.run("-p", "again")

    assert b"\x1b" not in seen and "copy␛]52;c;".encode() in seen
    assert piped.stdout == HOSTILE + "\n"
