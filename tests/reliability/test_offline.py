"""No network at start-up (issue 12 item 5; decision D-32; 60 R-TUI-16).

Every ``pi`` here runs with ``tests/reliability/socket_guard`` on ``PYTHONPATH``: its
``sitecustomize`` records each connect, non-loopback name lookup and downloader spawn, and refuses
any connect other than to the fake LLM server. Print mode, JSON mode and the full-screen app
start and run; the only connections allowed are the model requests the user asked for.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, read_until

GUARD = Path(__file__).with_name("socket_guard")
PACKAGES = {"packages": ["npm:@example/pi-tools", "git:github.com/example/pi-skills"]}


def _guarded_env(pi_home: PiHome, log: Path, allow: str = "", offline: bool = False) -> dict[str, str]:
    env = pi_home.env(PI_GUARD_LOG=str(log), PI_GUARD_ALLOW=allow)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(GUARD), env.get("PYTHONPATH")]))
    if not offline:
        env.pop("PI_OFFLINE", None)
    return env


def _attempts(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_the_guard_sees_and_refuses_a_connection(tmp_path: Path) -> None:
    """The guard itself works: a stray connect from a child Python is logged and refused."""
    pi_home = PiHome.make(tmp_path)
    log = tmp_path / "guard.jsonl"
    code = "import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)"
    result = subprocess.run(
        [str(Path(PI).with_name("python")), "-c", code],
        env=_guarded_env(pi_home, log),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "socket guard" in result.stderr
    assert _attempts(log) == [
        {"kind": "connect", "target": "127.0.0.1:9", "allowed": False, "pid": _attempts(log)[0]["pid"]}
    ]


@pytest.mark.parametrize("how", ["no packages", "--offline", "PI_OFFLINE"])
def test_print_mode_connects_only_to_the_configured_model(tmp_path: Path, how: str) -> None:
    pi_home = PiHome.make(tmp_path)
    if how != "no packages":  # listed packages may be installed at start-up, except offline
        pi_home.write_settings(PACKAGES)
    log = tmp_path / "guard.jsonl"
    with FakeLLMServer() as server:
        pi_home.point_at(server.base_url)
        server.enqueue(text("offline answer"))
        allow = f"127.0.0.1:{server.port}"
        args = ["--offline"] if how == "--offline" else []
        result = subprocess.run(
            [PI, *args, "-p", "hello"],
            cwd=pi_home.project,
            env=_guarded_env(pi_home, log, allow, offline=how == "PI_OFFLINE"),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "offline answer\n"
    attempts = _attempts(log)
    assert [a for a in attempts if not a["allowed"]] == []
    assert {a["target"] for a in attempts} == {allow}  # the model request, nothing else


def test_listed_packages_are_the_only_start_up_download(tmp_path: Path) -> None:
    """D-32's one exception, seen by the guard (which refuses it, so nothing is fetched)."""
    pi_home = PiHome.make(tmp_path)
    pi_home.write_settings({**PACKAGES, "retry": {"enabled": False, "provider": {"maxRetries": 0}}})
    pi_home.point_at("http://127.0.0.1:9")
    log = tmp_path / "guard.jsonl"
    subprocess.run(
        [PI, "-p", "hello"],
        cwd=pi_home.project,
        env=_guarded_env(pi_home, log, "127.0.0.1:9"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    spawned = [a["target"] for a in _attempts(log) if a["kind"] == "spawn"]
    assert any("@example/pi-tools" in t for t in spawned) or any("pi-skills" in t for t in spawned), spawned
    others = {(a["kind"], a["target"]) for a in _attempts(log) if a["kind"] != "spawn"}
    assert others <= {("connect", "127.0.0.1:9")}


def test_json_mode_against_an_unreachable_model_tries_only_that_address(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    log = tmp_path / "guard.jsonl"
    pi_home.point_at("http://127.0.0.1:9")
    pi_home.write_settings({"retry": {"enabled": False, "provider": {"maxRetries": 0}}})
    result = subprocess.run(
        [PI, "--mode", "json", "hello"],
        cwd=pi_home.project,
        env=_guarded_env(pi_home, log, "127.0.0.1:9", offline=True),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Connection error" in result.stdout
    assert {(a["kind"], a["target"]) for a in _attempts(log)} == {("connect", "127.0.0.1:9")}


def test_the_full_screen_app_starts_without_touching_the_network(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    pi_home.write_settings(PACKAGES)
    log = tmp_path / "guard.jsonl"
    pi_home.point_at("http://127.0.0.1:9")  # a model is configured but nothing is asked
    env = _guarded_env(pi_home, log, offline=True)  # PI_OFFLINE=1: the listed packages are skipped
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="30")
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [PI], cwd=pi_home.project, env=env, stdin=child, stdout=child, stderr=child, start_new_session=True
    )
    os.close(child)
    try:
        screen = read_until(main, b"fake-model", timeout=60)  # the footer names the model
        assert b"fake-model" in screen, screen[-2000:]
        time.sleep(1.0)  # let any background start-up work run
        assert proc.poll() is None, "the app exited during start-up"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(main)
    assert _attempts(log) == []
