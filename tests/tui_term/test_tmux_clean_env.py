"""The installed ``pi`` in tmux 3.3a started from a clean environment (issue 17, acceptance 2).

``env -i`` leaves the app nothing but HOME, PATH and ``TERM=tmux-256color``: no ``TMUX`` variable
tells it that it runs under tmux, so everything it does must come from what the terminal answers.
The window is 120x40 with ``extended-keys on``; the model is the loopback fake server.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome
from tests.tui_term.tmux_session import PROMPT, TmuxSession, tmux_available

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not tmux_available(), reason="needs tmux"),
    pytest.mark.timeout(180),
]

MIXED = "你好，世界。€→“引号”😀"


@dataclass
class CleanPi:
    server: FakeLLMServer
    tmux: TmuxSession
    home: PiHome

    def start(self, *args: str) -> None:
        """``pi`` under ``env -i``, as a user would start it with nothing inherited."""
        env = {
            "HOME": str(self.home.home),
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "TERM": "tmux-256color",
            "LANG": "C.UTF-8",
            "PI_CODING_AGENT_DIR": str(self.home.agent_dir),
            "PI_OFFLINE": "1",
        }
        if "PYTHONPATH" in os.environ:  # a suite run over another checkout of the code
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self.tmux.type(f"env -i {assignments} pi {' '.join(args)}".rstrip())
        self.tmux.send_keys("Enter")
        self.tmux.wait_for(lambda s: "fake-model" in s)

    def session_entries(self) -> list[dict[str, object]]:
        (path,) = self.home.sessions()
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def user_texts(self) -> list[str]:
        texts = []
        for entry in self.session_entries():
            message = entry.get("message")
            if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
                content = message["content"]
                texts.append(content if isinstance(content, str) else "".join(c["text"] for c in content))
        return texts


@pytest.fixture
def clean_pi(tmp_path: Path) -> Iterator[CleanPi]:
    server = FakeLLMServer().start()
    home = PiHome.make(tmp_path)
    home.point_at(server.base_url)
    tmux = TmuxSession(home.project, home.env())
    try:
        yield CleanPi(server, tmux, home)
    finally:
        tmux.close()
        server.stop()


def test_cjk_punctuation_symbols_and_emoji_typed_are_stored_exactly(clean_pi: CleanPi) -> None:
    from pi_app.ai.testing import text

    clean_pi.server.enqueue(text("Got it OMEGA.", chunks=2))
    clean_pi.start()
    clean_pi.tmux.type(MIXED)
    clean_pi.tmux.wait_for(lambda s: "😀" in s)
    clean_pi.tmux.send_keys("Enter")
    clean_pi.tmux.wait_for(lambda s: "OMEGA" in s)
    assert clean_pi.user_texts() == [MIXED]
    assert clean_pi.server.requests[0].body["messages"][-1]["content"] == [{"type": "text", "text": MIXED}]


def test_two_turns_that_both_use_call_0_show_both_outputs(clean_pi: CleanPi) -> None:
    from pi_app.ai.testing import text, tool_call

    server, tmux = clean_pi.server, clean_pi.tmux
    server.enqueue(tool_call("bash", {"command": "echo FIRST-OUT"}, id="call_0"))
    server.enqueue(text("First done ALPHA.", chunks=2))
    server.enqueue(tool_call("bash", {"command": "echo SECOND-OUT"}, id="call_0"))
    server.enqueue(text("Second done BETA.", chunks=2))
    clean_pi.start()
    tmux.type("one")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "ALPHA" in s)
    tmux.type("two")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "BETA" in s)
    rows = [row.strip() for row in tmux.settle().split("\n") if row.strip()]
    order = ["$ echo FIRST-OUT", "FIRST-OUT", "First done ALPHA.", "$ echo SECOND-OUT", "SECOND-OUT"]
    order.append("Second done BETA.")
    positions = [rows.index(marker) for marker in order]
    assert positions == sorted(positions), rows


def test_shift_enter_inserts_a_newline_without_a_tmux_variable(clean_pi: CleanPi) -> None:
    from pi_app.ai.testing import text
    from tests.tui_term.test_tmux import editor_rows, modes_left_on

    server, tmux = clean_pi.server, clean_pi.tmux
    server.enqueue(text("Two lines read OMEGA.", chunks=2))
    clean_pi.start()
    tmux.type("line one")
    tmux.send_keys("S-Enter")
    tmux.type("line two")
    tmux.wait_for(lambda s: editor_rows(s.split("\n"))[1][-1:] == ["line two"])
    assert editor_rows(tmux.lines())[1] == ["line one", "line two"]
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "OMEGA" in s)
    assert clean_pi.user_texts() == ["line one\nline two"]
    tmux.send_keys("C-d")
    tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()))
    raw = tmux.raw()
    assert "\x1b[>4;2m" in raw and modes_left_on(raw) == []


def test_page_up_brings_the_first_message_of_a_long_transcript_back(clean_pi: CleanPi) -> None:
    from pi_app.ai.testing import text

    server, tmux = clean_pi.server, clean_pi.tmux
    server.enqueue(text("\n\n".join(f"Paragraph {i} of the long answer." for i in range(120)), chunks=10))
    clean_pi.start()
    tmux.type("FIRST-QUESTION tell me a lot")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "Paragraph 119 of the long answer." in s)
    assert "FIRST-QUESTION" not in tmux.settle()
    for _ in range(12):
        tmux.send_keys("PageUp")
    screen = tmux.wait_for(lambda s: "FIRST-QUESTION" in s)
    assert "Paragraph 119" not in screen
    tmux.send_keys("PageDown")
    tmux.wait_for(lambda s: "FIRST-QUESTION" not in s)


def test_after_quit_the_shell_shows_the_last_answer_and_how_to_resume(clean_pi: CleanPi) -> None:
    from pi_app.ai.testing import text

    server, tmux = clean_pi.server, clean_pi.tmux
    server.enqueue(text("The first answer ALPHA.", chunks=2))
    server.enqueue(text("The last answer OMEGA.", chunks=2))
    clean_pi.start()
    for prompt, marker in (("hello", "ALPHA"), ("and then?", "OMEGA")):
        tmux.type(prompt)
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s, marker=marker: marker in s)
    tmux.type("/quit")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()) and "pi --session" in s)
    assert tmux.display("#{alternate_on}") == "0"
    (entry,) = [e for e in clean_pi.session_entries() if e.get("type") == "session"]
    rows = [row.strip() for row in screen.split("\n") if row.strip()]
    assert rows[-3:] == ["To resume this session:", f"pi --session {entry['id']}", PROMPT.strip()]
    assert rows.index("The first answer ALPHA.") < rows.index("The last answer OMEGA.") < len(rows) - 3


def test_the_start_up_probe_leaves_the_pane_title_alone(clean_pi: CleanPi) -> None:
    # issue 19, item 11d: tmux takes an APC string as the pane title, and the Kitty graphics
    # query is one, so the pane was called "Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA" for the whole run
    before = clean_pi.tmux.display("#{pane_title}")
    clean_pi.start()
    clean_pi.tmux.settle()
    title = clean_pi.tmux.display("#{pane_title}")
    assert "Gi=" not in title and title == before


def test_search_prompt_jumps_and_drawings_in_tmux(clean_pi: CleanPi) -> None:
    """Issue 17 features as a tmux user meets them: Ctrl+Shift+F opens the search bar, a CJK query
    counts its matches, Enter and Shift+Enter move between them, Escape closes it; Ctrl+Shift+Up
    brings an earlier prompt to the top; a mermaid block is drawn and math is in Unicode."""
    from pi_app.ai.testing import text

    server, tmux = clean_pi.server, clean_pi.tmux
    answer = "Step one，針 here 😀.\n\n" + "\n\n".join(f"Filler {i}." for i in range(60))
    server.enqueue(text(answer, chunks=4))
    drawing = "```mermaid\ngraph TD\n    A[Start] --> B[Done]\n```\n\nMath $E = mc^2$ OMEGA."
    server.enqueue(text(drawing, chunks=2))
    clean_pi.start()
    tmux.type(f"FIRST {MIXED}")
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "Filler 59." in s)
    tmux.type("针 second")
    tmux.send_keys("Enter")
    screen = tmux.wait_for(lambda s: "OMEGA" in s)
    assert "E = mc²" in screen and "┌" in screen and "graph TD" not in screen
    tmux.send_keys("C-S-f")
    tmux.wait_for(lambda s: "↓ Enter" in s)
    tmux.type("针")
    tmux.wait_for(lambda s: "1/1" in s)  # the traditional 針 of the answer is another character
    tmux.send_keys("BSpace")
    tmux.type("，")
    tmux.wait_for(lambda s: "2/2" in s)  # the first prompt's and the answer's CJK commas
    tmux.send_keys("Enter")
    tmux.wait_for(lambda s: "1/2" in s)
    tmux.send_keys("S-Enter")
    tmux.wait_for(lambda s: "2/2" in s)
    tmux.send_keys("Escape")
    tmux.wait_for(lambda s: "↓ Enter" not in s)
    tmux.send_keys("C-End")
    tmux.send_keys("C-S-Up", "C-S-Up")
    screen = tmux.wait_for(lambda s: "FIRST" in "\n".join(s.split("\n")[:4]))  # the first prompt on top
    assert "OMEGA" not in screen
