"""A bug in print or JSON mode (an unexpected exception) is one stderr line ``Error: <message>`` and
exit status 1 — the traceback only with ``--verbose`` — and the session file keeps everything that
was appended before it. The failure is injected into a real ``pi`` process: the second prompt
raises inside ``AgentSession.prompt``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_app.ai.testing import delay, text
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

CRASHING_PI = """
import sys
from pi_app.coding.agent_session import AgentSession

original = AgentSession.prompt
calls = []

async def prompt(self, *args, **kwargs):
    calls.append(args)
    if len(calls) == 2:
        raise RuntimeError("injected failure")
    return await original(self, *args, **kwargs)

AgentSession.prompt = prompt
from pi_app.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def _run_crashing_pi(home: PiHome, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CRASHING_PI, *args],
        cwd=home.project,
        env=home.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mode", [["-p"], ["--mode", "json"]], ids=["print", "json"])
def test_an_internal_error_is_one_line_and_keeps_the_session(tmp_path: Path, mode: list[str]) -> None:
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("first answer"))
        result = _run_crashing_pi(home, *mode, "first", "second")
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["Error: injected failure"]
    if mode == ["--mode", "json"]:  # the stream so far is whole JSON lines
        events = [json.loads(line) for line in result.stdout.splitlines()]
        assert events[0]["type"] == "session" and events[-1]["type"] == "agent_settled"
    [session_file] = home.sessions()
    entries = _entries(session_file)
    messages = [e["message"] for e in entries if e["type"] == "message"]
    assert entries[0]["type"] == "session"
    assert [(m["role"], m["content"][0]["text"]) for m in messages] == [
        ("user", "first"),
        ("assistant", "first answer"),
    ]


def test_verbose_adds_the_traceback(tmp_path: Path) -> None:
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("first answer"))
        result = _run_crashing_pi(home, "--verbose", "--no-session", "-p", "first", "second")
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "\nRuntimeError: injected failure\n" in result.stderr
    assert result.stderr.splitlines()[-1] == "Error: injected failure"


def test_the_line_names_the_exception_when_its_message_would_not() -> None:
    from pi_app.modes.console import describe_exception

    assert describe_exception(RuntimeError("disk\nfull")) == "disk full"
    assert describe_exception(KeyError("model")) == "KeyError: 'model'"
    assert describe_exception(ValueError()) == "ValueError"


def test_ctrl_c_ends_print_mode_by_the_signal_without_a_traceback(tmp_path: Path) -> None:
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(delay(30), text("too late"))
        proc = subprocess.Popen(
            [PI, "--no-session", "-p", "hi"],
            cwd=home.project,
            env=home.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # a test run may have left SIGINT ignored, and children inherit that
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGINT
    assert b"Traceback" not in err, err.decode()
