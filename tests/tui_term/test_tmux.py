"""The installed ``pi`` in a real tmux, the way a new user meets it (issue 9, acceptance 3).

A fresh HOME whose ``models.json`` points at the loopback fake server; a plain bash in a tmux
window of 120x40 with ``extended-keys on``; ``pi`` typed at the prompt. The user asks a question,
writes a two-line prompt with Shift+Enter that makes the model run ``ls`` (after saying what it is
about to do), recalls that prompt with Up, asks a follow-up and quits with Ctrl+D. Every step is
checked on the screen tmux holds; after the exit the shell's terminal must be as it was: main
screen, cursor visible, mouse reporting, bracketed paste and the extended keyboard modes off.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pi_app import __version__
from pi_app.ai.testing import delay, text, tool_call
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome
from tests.tui_term.tmux_session import PROMPT, TmuxSession, tmux_available

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not tmux_available(), reason="needs tmux"),
    pytest.mark.timeout(180),
]

RULE = "─" * 20


def editor_rows(lines: list[str]) -> tuple[int, list[str]]:
    """(first row, rows) of the editor: the lines between the last two horizontal rules."""
    rules = [i for i, line in enumerate(lines) if RULE in line]
    assert len(rules) >= 2, "\n".join(lines)
    top, bottom = rules[-2], rules[-1]
    return top + 1, [line.rstrip() for line in lines[top + 1 : bottom]]


def transcript_rows(lines: list[str]) -> list[str]:
    """The stripped, non-empty rows above the editor."""
    first, _ = editor_rows(lines)
    return [line.strip() for line in lines[: first - 1] if line.strip()]


def modes_left_on(raw: str) -> list[str]:
    """Terminal modes whose last switch in ``raw`` turned them on (what an exit must undo)."""
    left: list[str] = []
    private = {"1049": "alternate screen", "1000": "mouse", "1003": "mouse motion", "1006": "SGR mouse"}
    private["2004"] = "bracketed paste"
    for number, name in private.items():
        switches = re.findall(rf"\x1b\[\?(?:[\d;]*;)?{number}(?:;[\d;]*)?([hl])", raw)
        if switches and switches[-1] == "h":
            left.append(name)
    cursor = re.findall(r"\x1b\[\?25([hl])", raw)
    if cursor and cursor[-1] == "l":
        left.append("hidden cursor")
    modify = re.findall(r"\x1b\[>4(?:;(\d+))?m", raw)
    if modify and modify[-1] not in ("", "0"):
        left.append("modifyOtherKeys")
    pushes = len(re.findall(r"\x1b\[>\d+u", raw))
    pops = sum(int(n or 1) for n in re.findall(r"\x1b\[<(\d*)u", raw))
    if pushes > pops:
        left.append("kitty keyboard")
    return left


def test_modes_left_on_reads_the_last_switch() -> None:
    assert modes_left_on("\x1b[?1049h\x1b[?25l\x1b[>4;2m\x1b[>1u") == [
        "alternate screen",
        "hidden cursor",
        "modifyOtherKeys",
        "kitty keyboard",
    ]
    assert modes_left_on("\x1b[?1049h\x1b[?25l\x1b[>4;2m\x1b[>1u\x1b[<u\x1b[>4;0m\x1b[?25h\x1b[?1049l") == []


@pytest.fixture
def pi_in_tmux(tmp_path: Path):  # type: ignore[no-untyped-def]
    server = FakeLLMServer().start()
    home = PiHome.make(tmp_path)
    (home.project / "notes.txt").write_text("hello\n")
    home.point_at(server.base_url)
    env = home.env(PATH=f"{Path(sys.executable).parent}:{home.env()['PATH']}", TERM="xterm-256color")
    tmux = TmuxSession(home.project, env)
    try:
        yield server, tmux
    finally:
        tmux.close()
        server.stop()


def test_a_new_user_session_in_tmux(pi_in_tmux) -> None:  # type: ignore[no-untyped-def]
    server, tmux = pi_in_tmux
    server.enqueue(
        text("Hello! This is the **first answer** ALPHA-1.\n\nIts second paragraph ALPHA-2.", chunks=8)
    )
    server.enqueue(
        text("I will list the files first BETA-PRE.", chunks=6),
        delay(0.3),
        tool_call("bash", {"command": "ls"}, id="call_ls"),
    )
    server.enqueue(text("The folder holds **notes.txt** GAMMA.", chunks=5))
    server.enqueue(text("A follow-up answer DELTA.", chunks=4))

    # the app starts
    tmux.type("pi")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "fake-model" in s and f"pi v{__version__}" in s)
    assert tmux.display("#{alternate_on}") == "1"

    # it answers
    tmux.type("hello there")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "ALPHA-2" in s)

    # Shift+Enter inserts a newline
    tmux.type("list")
    tmux.send_keys("S-Enter")
    tmux.type("the files")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1][-1:] == ["the files"])
    first, rows = editor_rows(tmux.lines())
    assert rows == ["list", "the files"]

    # it runs a tool; the text written before the tool call stays on screen
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "GAMMA" in s)
    assert server.requests[1].body["messages"][-1]["content"] == [{"type": "text", "text": "list\nthe files"}]
    tool_result = server.requests[2].body["messages"][-1]
    assert tool_result["role"] == "tool" and "notes.txt" in str(tool_result["content"])
    rows = transcript_rows(tmux.settle().split("\n"))
    order = ["BETA-PRE", "$ ls", "notes.txt", "GAMMA"]
    positions = [next(i for i, row in enumerate(rows) if marker in row) for marker in order]
    assert positions == sorted(positions), rows

    # Up recalls the last prompt with the cursor at its end
    tmux.send_keys("Up")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1] == ["list", "the files"])
    first, rows = editor_rows(tmux.lines())
    assert tmux.cursor == (len("the files"), first + 1)
    tmux.type("!")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1] == ["list", "the files!"])

    # a follow-up answer goes below the earlier ones
    tmux.send_keys("C-c")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1] in ([], [""]))
    tmux.type("and then?")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "DELTA" in s)
    rows = transcript_rows(tmux.settle().split("\n"))
    story = [
        "hello there",
        "Hello! This is the first answer ALPHA-1.",
        "Its second paragraph ALPHA-2.",
        "list",
        "the files",
        "I will list the files first BETA-PRE.",
        "$ ls",
        "notes.txt",
        "The folder holds notes.txt GAMMA.",
        "and then?",
        "A follow-up answer DELTA.",
    ]
    assert [row for row in rows if row in story] == story, rows

    # quitting gives the shell back its terminal
    tmux.send_keys("C-d")
    tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()))
    tmux.type("echo pi-exit=$?")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "pi-exit=" in s.replace("echo pi-exit=", ""))
    assert "pi-exit=0" in screen and "Traceback" not in screen
    modes = tmux.display("#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}")
    assert modes == "0 1 0 0"
    raw = tmux.raw()
    assert "\x1b[>4;2m" in raw  # pi asked tmux for extended keys ...
    assert modes_left_on(raw) == []  # ... and switched everything off again
    tmux.send_keys("C-l")
    tmux.wait_for(lambda s: s.strip() == PROMPT.strip())
    tmux.type("cat -v")
    tmux.send_keys("Enter")
    tmux.type("a")
    tmux.send_keys("S-Enter", "Enter", "C-d")  # tmux no longer sends Shift+Enter as an escape code
    tmux.type("echo cat-done")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "\ncat-done" in s)
    typed = screen.split("cat -v\n", 1)[1].split(PROMPT.strip(), 1)[0]
    assert typed.startswith("a") and "^[" not in typed and "27;2;13" not in typed, screen


def test_ctrl_z_suspends_to_the_shell_and_fg_brings_pi_back(pi_in_tmux) -> None:  # type: ignore[no-untyped-def]
    server, tmux = pi_in_tmux
    server.enqueue(text("Before the break ALPHA.", chunks=3))
    server.enqueue(text("After the break OMEGA.", chunks=3))
    tmux.type("pi")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "fake-model" in s)
    tmux.type("hello")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "ALPHA" in s)
    tmux.type("half a thought")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1] == ["half a thought"])

    # Ctrl+Z: the shell gets its terminal back, as it was before pi started
    tmux.send_keys("C-z")
    screen = tmux.wait_for(lambda s: "Stopped" in s and s.rstrip().endswith(PROMPT.strip()))
    assert "ALPHA" not in screen
    assert tmux.display("#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}") == "0 1 0 0"
    assert modes_left_on(tmux.raw()) == []
    tmux.type("echo shell-works")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "\nshell-works" in s)

    # fg: the whole screen comes back without a key press, the draft intact
    tmux.type("fg")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "ALPHA" in s and "fake-model" in s)
    assert editor_rows(screen.split("\n"))[1] == ["half a thought"]
    assert tmux.display("#{alternate_on} #{mouse_any_flag}") == "1 1"
    assert "modifyOtherKeys" in modes_left_on(tmux.raw())  # extended keys are asked for again

    # keys still work: the draft is finished, submitted and answered
    tmux.type(", finished")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "OMEGA" in s)
    assert server.requests[-1].body["messages"][-1]["content"] == [
        {"type": "text", "text": "half a thought, finished"}
    ]
    tmux.send_keys("C-d")  # the conversation stays on the shell's screen (issue 17, defect 6)
    tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()) and "pi --session" in s)
    assert modes_left_on(tmux.raw()) == []
