"""The app in tmux, started from a clean environment, against hostile input (issue 19 acceptance 3).

A model answer holding OSC 52 (clipboard), OSC 0 (title) and CSI 2J (clear screen) leaves tmux's
paste buffers, the pane title and the screen as they were, showing the sequences as visible text;
a ``read`` of a FIFO does not freeze the app: Esc gives control back within a second.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome
from tests.tui_term.tmux_session import TmuxSession, tmux_available

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux not installed")

HOSTILE = "Sure. \x1b]52;c;cHduZWQ=\x07 \x1b]0;pwned-title\x07 \x1b[2J\x1b[H END-OF-ANSWER"


@pytest.fixture
def app_in_tmux(tmp_path: Path):  # type: ignore[no-untyped-def]
    server = FakeLLMServer().start()
    home = PiHome.make(tmp_path)
    home.point_at(server.base_url)
    os.mkfifo(home.project / "pipe")
    clean = {  # what `env -i` leaves, plus where pi and its home are
        "HOME": str(home.home),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PI_CODING_AGENT_DIR": str(home.agent_dir),
        "PI_OFFLINE": "1",
    }
    tmux = TmuxSession(home.project, clean)
    tmux.tmux("set", "-g", "set-clipboard", "on")  # an OSC 52 would land in tmux's paste buffers
    tmux.tmux("set", "-g", "allow-rename", "on")
    try:
        tmux.type("pi")
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "fake-model" in s)
        yield server, tmux
    finally:
        tmux.close()
        server.stop()


def test_escape_sequences_in_an_answer_touch_nothing(app_in_tmux) -> None:  # type: ignore[no-untyped-def]
    server, tmux = app_in_tmux
    server.enqueue(text(HOSTILE, chunks=3))
    tmux.tmux("select-pane", "-T", "title-before")
    title_before = tmux.display("#{pane_title}")

    tmux.type("MY-PROMPT-LINE")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "END-OF-ANSWER" in s)
    time.sleep(0.5)
    screen = tmux.screen()

    assert "pwned" not in tmux.display("#{pane_title}") and tmux.display("#{pane_title}") == title_before
    assert tmux.tmux("list-buffers").strip() == ""  # no clipboard write reached tmux
    assert "MY-PROMPT-LINE" in screen  # the screen was not cleared under the answer
    assert "␛]52;c;cHduZWQ=␇" in screen and "␛[2J" in screen  # shown, not obeyed


def test_read_of_a_fifo_then_escape_gives_control_back(app_in_tmux) -> None:  # type: ignore[no-untyped-def]
    server, tmux = app_in_tmux
    server.enqueue(tool_call("read", {"path": "pipe"}, id="call_fifo"))
    server.enqueue(text("after the pipe FIFO-DONE"))

    tmux.type("read the pipe")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "FIFO-DONE" in s or "named pipe" in s, timeout=20)
    started = time.monotonic()
    tmux.send_keys("Escape")
    time.sleep(0.2)  # ESC followed at once by a key would be read as alt+key
    tmux.type("still-typing")
    tmux.wait_for(lambda s: "still-typing" in s, timeout=5)
    assert time.monotonic() - started < 1.0
    assert "named pipe (FIFO)" in tmux.wait_for(lambda s: "FIFO-DONE" in s, timeout=20)
