"""Black-box: how the ``pi`` command starts and ends around a headless run.

- SIGTERM/SIGHUP while the bash tool runs kill its process group before pi dies of the signal,
  also when the signal comes between the shell starting and its group being tracked.
- ``pi -r -p`` asks which session to resume on the terminal (as pi 0.73.1 does) instead of
  continuing the most recent one; with no terminal nothing is chosen and nothing is sent.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import PI, run_pi, session_files, write_models_json


def _alive(marker: str) -> bool:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return bool(found.stdout.strip())


def _wait(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminating_signal_kills_the_running_bash_command(signum, llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    marker = f"pi-lifecycle-{uuid.uuid4().hex}"
    # `exec -a` names the sleep after the marker so pgrep finds exactly this one
    command = f"(exec -a {marker} sleep 120) & wait"
    llm_server.enqueue(tool_call("bash", {"command": command}, id="call_0"))
    llm_server.enqueue(text("done"))
    proc = subprocess.Popen(
        [PI, "--no-session", "-p", "run it"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert _wait(lambda: _alive(marker)), "the bash command never started"
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == -signum  # pi still ends by the signal, as before
        assert _wait(lambda: not _alive(marker), timeout=10), "the bash command outlived pi"
    finally:
        if proc.poll() is None:
            proc.kill()
        subprocess.run(["pkill", "-f", marker], capture_output=True)


DEFERRED_SIGNAL_SCRIPT = """
import os, signal, subprocess, sys, time
from pi_app.cli import install_exit_signal_handlers
from pi_app.coding.tools import shell

install_exit_signal_handlers()
with shell.starting_shell():
    child = subprocess.Popen([sys.argv[1], "-c", "exec -a " + sys.argv[2] + " sleep 120"],
                             start_new_session=True)
    os.kill(os.getpid(), int(sys.argv[3]))  # before the group is tracked
    time.sleep(0.3)
    print("still running", flush=True)
    shell.track_process_group(child.pid)
time.sleep(10)
print("survived the signal", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_the_shell_starts_waits_until_its_group_is_tracked(signum) -> None:
    marker = f"pi-lifecycle-{uuid.uuid4().hex}"
    proc = subprocess.run(
        [str(Path(PI).with_name("python")), "-c", DEFERRED_SIGNAL_SCRIPT, "/bin/bash", marker, str(signum)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    try:
        assert proc.stdout.splitlines() == ["still running"], proc.stderr[-2000:]
        assert proc.returncode == -signum
        assert _wait(lambda: not _alive(marker), timeout=10), "the shell's group outlived pi"
    finally:
        subprocess.run(["pkill", "-f", marker], capture_output=True)


def _one_saved_session(llm_server, project: Path) -> Path:
    llm_server.enqueue(text("first answer"))
    assert run_pi("-p", "first question", cwd=project).returncode == 0
    return project


def test_resume_in_print_mode_without_a_terminal_chooses_nothing(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    _one_saved_session(llm_server, project)
    [saved] = session_files(agent_dir)
    before = saved.read_text()
    requests = len(llm_server.requests)

    result = run_pi("-r", "-p", "second question", cwd=project)

    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == "No session selected"
    assert len(llm_server.requests) == requests  # nothing was sent
    assert saved.read_text() == before  # the last session was not continued


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_resume_in_print_mode_asks_on_the_terminal_then_answers_in_that_session(
    llm_server, project, agent_dir, tmp_path
) -> None:
    from tests.tui_term.pty_terminal import PtyTerminal

    write_models_json(agent_dir, llm_server.base_url)
    _one_saved_session(llm_server, project)
    [saved] = session_files(agent_dir)
    llm_server.enqueue(text("second answer"))
    answer = tmp_path / "answer.txt"

    # stdout goes to a file, as in `pi -r -p ... > answer.txt`: the picker is drawn on the terminal
    command = f'"{PI}" -r -p "second question" > "{answer}"'
    term = PtyTerminal(["/bin/sh", "-c", command], size=(100, 30), cwd=str(project))
    try:

        def picker_drawn_full_width() -> bool:  # sized to the terminal, not to the 80 columns of a file
            rules = [line for line in term.text().splitlines() if line.startswith("─")]
            return "first question" in term.text() and rules == ["─" * 100] * 2

        term.wait_for(picker_drawn_full_width, timeout=60)
        term.settle()
        term.type("\r")
        assert term.wait_exit(timeout=60) == 0
    finally:
        term.close()

    assert answer.read_text() == "second answer\n"
    assert session_files(agent_dir) == [saved]  # no new session: the chosen one went on
    entries = [json.loads(line) for line in saved.read_text().splitlines()]
    texts = json.dumps([e.get("message") for e in entries if e.get("type") == "message"])
    assert "first question" in texts and "second question" in texts and "second answer" in texts
