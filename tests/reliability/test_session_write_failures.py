"""A session file that cannot be written (issue 19 item 6).

A read-only folder or a full disk used to print 44 lines of tracebacks for one turn while ``-p``
exited 0. Now the run goes on, one line names the file and the reason (``-p`` and JSON mode then
exit 1, RPC writes it once to stderr) and the app shows it in the footer.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.session.storage import InMemorySessionStorage, SessionWriteError
from pi_app.tui.app import PiApp
from pi_app.tui.chrome.footer import footer_lines
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback
from tests.reliability.test_file_modes import unprivileged
from tests.tui.helpers import wait_for


@pytest.fixture
def read_only_sessions(tmp_path: Path, llm_server: FakeLLMServer) -> tuple[PiHome, Path]:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    folder = tmp_path / "sessions"
    folder.mkdir()
    folder.chmod(0o555)
    llm_server.enqueue(tool_call("bash", {"command": "echo hi"}, id="call_1"))
    llm_server.enqueue(text("all done"))
    return home, folder


def _run(home: PiHome, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        unprivileged(PI, "--session-dir", str(folder), *args),
        cwd=home.project,
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _one_save_line(stderr: str, folder: Path) -> None:
    assert_no_traceback(stderr)
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"Error: Session could not be saved: Permission denied ({folder}/")


def test_print_mode_says_once_that_the_session_was_not_saved_and_exits_1(read_only_sessions) -> None:
    home, folder = read_only_sessions

    result = _run(home, folder, "-p", "go")

    assert result.stdout == "all done\n"  # the answer is still given
    _one_save_line(result.stderr, folder)
    assert result.returncode == 1


def test_json_mode_keeps_its_stream_and_exits_1(read_only_sessions) -> None:
    home, folder = read_only_sessions

    result = _run(home, folder, "--mode", "json", "go")

    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    _one_save_line(result.stderr, folder)
    assert result.returncode == 1


def test_rpc_reports_the_failure_once_on_stderr(read_only_sessions) -> None:
    home, folder = read_only_sessions
    commands = [{"id": "1", "type": "prompt", "message": "go"}]
    proc = subprocess.Popen(
        unprivileged(PI, "--mode", "rpc", "--session-dir", str(folder)),
        cwd=home.project,
        env=home.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(json.dumps(commands[0]) + "\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if json.loads(line).get("type") == "agent_end":
            break
    proc.stdin.close()
    proc.wait(timeout=30)

    _one_save_line(proc.stderr.read(), folder)


class FullDisk(InMemorySessionStorage):
    def append(self, path: str, text: str) -> None:
        raise SessionWriteError(path, os.strerror(errno.ENOSPC))

    def rewrite(self, path: str, text: str) -> None:
        raise SessionWriteError(path, os.strerror(errno.ENOSPC))


async def test_the_app_shows_a_full_disk_in_the_footer(tmp_path: Path) -> None:
    provider = fake_provider(script=[[text("answer")]])

    async def factory() -> Any:
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.sdk import create_agent_session
        from pi_app.coding.settings import SettingsManager

        registry = ModelRegistry(InMemoryCredentialStore(), None)
        registry.models.set_provider(provider)
        manager = SessionManager(str(tmp_path), str(tmp_path / "sessions"), storage=FullDisk())
        return await create_agent_session(
            str(tmp_path),
            session_manager=manager,
            settings_manager=SettingsManager.in_memory({}),
            model_registry=registry,
            model=provider.get_models()[0],
            no_context_files=True,
        )

    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(200, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: app.session.messages and not app.session.is_busy, timeout=20)
        await pilot.pause(0.2)
        footer = [line.plain for line in footer_lines(app.footer.state, 200)]
        screen = "\n".join(app.transcript.plain_lines())

    assert any(
        "Session could not be saved: No space left on device" in line and str(tmp_path / "sessions") in line
        for line in footer
    ), footer
    assert "answer" in screen and "Traceback" not in screen
