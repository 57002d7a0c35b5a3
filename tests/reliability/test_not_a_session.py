"""A file that is not a session is refused and left alone (issue 19 item 3).

``--session ./README.md`` (or RPC ``switch_session``) used to rename the user's file to
``README.md.corrupt-<time>`` and write a session in its place. As in pi 1.6.0 it is now refused
with one line (``Session file is not a valid pi session: <path>``) and the file is untouched.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.cli import _settle_session_argument, parse_args
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback

README = "# My project\n\nNot a session.\n"


@pytest.fixture
def pi_home(tmp_path: Path) -> PiHome:
    home = PiHome.make(tmp_path)
    (home.project / "README.md").write_text(README)
    return home


def _untouched(project: Path) -> None:
    assert (project / "README.md").read_text() == README
    assert sorted(p.name for p in project.iterdir()) == ["README.md"]


def test_print_mode_refuses_a_session_path_that_is_not_a_session(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("never asked"))

    result = pi_home.run("--session", "./README.md", "-p", "hi")

    assert result.returncode == 1
    assert (
        result.stderr == f"Error: Session file is not a valid pi session: {pi_home.project / 'README.md'}\n"
    )
    assert result.stdout == ""
    assert llm_server.requests == []
    _untouched(pi_home.project)


def test_the_app_refuses_it_before_taking_the_screen(pi_home: PiHome, monkeypatch, capsys) -> None:
    monkeypatch.chdir(pi_home.project)
    args = parse_args(["--session", "./README.md"])

    assert _settle_session_argument(args) == 1

    assert "Session file is not a valid pi session:" in capsys.readouterr().err
    _untouched(pi_home.project)


def test_rpc_switch_session_to_a_non_session_fails_and_keeps_the_session(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    commands = [
        {"id": "1", "type": "switch_session", "sessionPath": "README.md"},
        {"id": "2", "type": "get_state"},
    ]
    result = subprocess.run(
        [PI, "--mode", "rpc"],
        cwd=pi_home.project,
        env=pi_home.env(),
        input="".join(json.dumps(c) + "\n" for c in commands),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert_no_traceback(result.stderr)
    switch, state = [json.loads(line) for line in result.stdout.splitlines() if '"response"' in line]
    assert switch["success"] is False
    assert switch["error"] == f"Session file is not a valid pi session: {pi_home.project / 'README.md'}"
    assert state["success"] is True and state["data"].get("sessionFile") != str(pi_home.project / "README.md")
    _untouched(pi_home.project)


def test_an_empty_or_missing_file_still_starts_a_session_there(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("hello"))
    (pi_home.project / "empty.jsonl").write_text("")

    result = pi_home.run("--session", "./empty.jsonl", "-p", "hi")

    assert result.returncode == 0, result.stderr
    assert json.loads((pi_home.project / "empty.jsonl").read_text().splitlines()[0])["type"] == "session"
