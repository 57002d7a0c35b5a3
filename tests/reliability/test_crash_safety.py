"""Crash safety (issue 12 item 1; spec 30 R-SES-02, decisions D-25 and D-26; 70 DP-31).

- ``pi -p`` is killed with SIGKILL at random moments while it appends to its session; every file
  still loads, only the last line may be lost, and a later append never merges into a torn line.
- The same promise checked exhaustively in-process: a session file cut at *every* byte offset.
- Settings and ``auth.json``: writers in separate processes that save at the same moment lose no
  key, and a writer killed mid-save never leaves a truncated file behind.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from pi_app.coding import filelock
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.settings import SettingsManager
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, split_complete_lines

KILL_RUNS = 20
TURNS = 12
SEED = int(os.environ.get("PI_RELIABILITY_SEED", "20250731"))
EXPECTED_ROLES = ["user"] + ["assistant", "toolResult"] * TURNS + ["assistant"]


def _script(server: FakeLLMServer) -> None:
    """Twelve tool-using turns with big lines, so appends keep coming and some are large."""
    for i in range(TURNS):
        server.enqueue(
            text(f"turn {i} " + "lorem ipsum " * 2000, chunks=4),
            tool_call("bash", {"command": f"seq 1 {3000 + i}"}, id=f"call_{i}"),
        )
    server.enqueue(text("all done"))


def _parses(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def check_session_after_crash(path: Path) -> int:
    """Assert the crash promises for one file; return how many message entries survived."""
    complete, tail = split_complete_lines(path.read_bytes())
    assert complete, f"{path} lost its header"
    for number, line in enumerate(complete, 1):
        assert _parses(line), f"{path}: complete line {number} is damaged: {line[:120]!r}"
    assert json.loads(complete[0])["type"] == "session"
    torn = bool(tail.strip()) and not _parses(tail)

    manager = SessionManager.open(path)
    assert manager.skipped_lines == (1 if torn else 0)
    entries = manager.get_entries()
    parent = None
    for entry in entries:  # one linear branch: nothing in the middle went missing
        assert entry.parent_id == parent
        parent = entry.id
    roles = [e.raw["message"]["role"] for e in entries if e.raw.get("type") == "message"]
    assert roles == EXPECTED_ROLES[: len(roles)], roles

    # Appending after the crash starts on a fresh line: the torn fragment stays a line of its own.
    after = {"role": "user", "content": [{"type": "text", "text": "after the crash"}], "timestamp": 1}
    new_id = manager.append_message(after)
    reopened = SessionManager.open(path)
    assert reopened.skipped_lines == manager.skipped_lines
    last = reopened.get_entries()[-1]
    assert last.id == new_id and last.parent_id == parent
    assert last.raw["message"]["content"][0]["text"] == "after the crash"
    return len(roles)


def _complete_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _kill_once(root: Path, after_lines: int | None, jitter_s: float = 0.0) -> tuple[Path | None, int | None]:
    """Run one ``pi -p``; SIGKILL it ``jitter_s`` after its session file holds ``after_lines``
    complete lines (None: let it end). Counting lines rather than seconds spreads the kills over
    the conversation however loaded the machine is; the jitter lands some of them mid-append."""
    pi_home = PiHome.make(root)
    with FakeLLMServer() as server:
        pi_home.point_at(server.base_url)
        _script(server)
        proc = pi_home.popen("-p", "run the steps")
        try:
            deadline = time.monotonic() + 120
            while after_lines is not None and proc.poll() is None and time.monotonic() < deadline:
                files = pi_home.sessions()
                if files and _complete_lines(files[0]) >= after_lines:
                    time.sleep(jitter_s)
                    if proc.poll() is None:
                        proc.send_signal(signal.SIGKILL)
                    break
                time.sleep(0.002)
            proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    files = pi_home.sessions()
    assert len(files) <= 1
    return (files[0] if files else None), proc.returncode


def test_sigkill_during_appends_never_loses_more_than_the_last_line(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    targets = [rng.randint(3, 2 * TURNS) for _ in range(KILL_RUNS)]
    jitters = [rng.uniform(0.0, 0.03) for _ in range(KILL_RUNS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(
            pool.map(lambda i: _kill_once(tmp_path / f"run{i}", targets[i], jitters[i]), range(KILL_RUNS))
        )

    killed = [code for _, code in outcomes if code == -signal.SIGKILL]
    assert len(killed) >= KILL_RUNS // 2, f"too few runs were killed mid-way (seed {SEED})"
    survived = []
    for index, (path, _code) in enumerate(outcomes):
        assert path is not None, f"run {index} (after {targets[index]} lines, seed {SEED}) left no session"
        survived.append(check_session_after_crash(path))
    # The kills landed at different points of the conversation, not all at the start or the end.
    assert len(set(survived)) >= 3, survived


def test_pi_continues_a_session_whose_last_line_was_torn(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        pi_home.point_at(server.base_url)
        server.enqueue(text("first answer"))
        assert pi_home.run("-p", "first").returncode == 0
        (path,) = pi_home.sessions()
        intact = path.read_bytes()
        torn_line = b'{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2025-'
        path.write_bytes(intact + torn_line)

        server.enqueue(text("second answer"))
        result = pi_home.run("-c", "-p", "second")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second answer\n"
    data = path.read_bytes()
    assert data.startswith(intact + torn_line + b"\n")  # kept verbatim, on a line of its own
    manager = SessionManager.open(path)
    assert manager.skipped_lines == 1
    texts = [
        e.raw["message"]["content"][0].get("text")
        for e in manager.get_entries()
        if e.raw.get("type") == "message"
    ]
    assert texts == ["first", "first answer", "second", "second answer"]
    # the model saw the conversation without the torn fragment
    assert "first answer" in json.dumps(server.requests[-1].body)


def _session_text() -> str:
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
    ]
    parent = None
    for i, role in enumerate(["user", "assistant", "user", "assistant"]):
        entry_id = f"e{i:07d}"
        message: dict[str, object] = {"role": role, "content": [{"type": "text", "text": f"m{i} é ✓"}]}
        if role == "assistant":
            message.update(api="x", provider="p", model="m", stopReason="stop", usage={})
        message["timestamp"] = i
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2025-01-01T00:00:00.000Z",
                "message": message,
            }
        )
        parent = entry_id
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def test_a_session_cut_at_any_byte_loses_at_most_its_last_line(tmp_path: Path) -> None:
    data = _session_text().encode("utf-8")
    full_lines = data.count(b"\n")
    header_end = data.index(b"\n") + 1
    path = tmp_path / "cut.jsonl"
    for offset in range(header_end, len(data) + 1):
        path.write_bytes(data[:offset])
        complete_before = data[:offset].count(b"\n")
        manager = SessionManager.open(path)
        kept = len(manager.get_entries())
        # every complete entry survives; a cut line is lost only if it no longer parses
        assert kept in (complete_before - 1, complete_before), offset
        assert kept <= full_lines - 1
        manager.append_message({"role": "user", "content": "next", "timestamp": 9})
        again = SessionManager.open(path)
        assert len(again.get_entries()) == kept + 1, offset
        assert again.get_entries()[-1].raw["message"]["content"] == "next"


# ---------------------------------------------------------------------------------------------
# Settings and auth.json across processes
# ---------------------------------------------------------------------------------------------

SETTINGS_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pi_app.coding.settings import SettingsManager
    agent_dir, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    manager = SettingsManager.create(agent_dir + "/project", agent_dir)
    while not go.exists():
        time.sleep(0.001)
    for i in range(count):
        manager.set(f"{name}{i}", i)
        manager.set_nested("retry", f"{name}Nested{i}", i)
    assert not manager.errors, manager.errors
    """
)


def _start_writers(script: str, agent_dir: Path, names: list[str], count: int) -> list[subprocess.Popen]:
    go = agent_dir.parent / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(agent_dir), name, str(count), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in names
    ]
    time.sleep(0.3)  # let both import and wait at the start line
    go.touch()
    return procs


def _wait_all(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()


def test_two_processes_saving_settings_at_once_lose_no_key(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text('{"theme": "light", "retry": {"enabled": true}}')
    count = 40
    _wait_all(_start_writers(SETTINGS_WRITER, agent_dir, ["alpha", "beta"], count))

    saved = json.loads((agent_dir / "settings.json").read_text())
    for name in ("alpha", "beta"):
        for i in range(count):
            assert saved[f"{name}{i}"] == i
            assert saved["retry"][f"{name}Nested{i}"] == i
    assert saved["theme"] == "light" and saved["retry"]["enabled"] is True
    assert not (agent_dir / "settings.json.lock").exists()
    assert not list(agent_dir.glob(".settings.json.*.tmp"))


AUTH_WRITER = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    from pi_app.coding.auth_storage import AuthStorage
    agent_dir, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    store = AuthStorage(Path(agent_dir) / "auth.json")
    async def main():
        while not go.exists():
            await asyncio.sleep(0.001)
        for i in range(count):
            async def put(_old, i=i):
                return {"type": "api_key", "key": f"{name}-secret-{i}"}
            await store.modify(f"{name}{i}", put)
    asyncio.run(main())
    """
)


def test_two_processes_saving_auth_json_at_once_lose_no_provider(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    count = 25
    _wait_all(_start_writers(AUTH_WRITER, agent_dir, ["alpha", "beta"], count))

    path = agent_dir / "auth.json"
    saved = json.loads(path.read_text())
    assert len(saved) == 2 * count
    assert saved["beta7"] == {"type": "api_key", "key": "beta-secret-7"}
    assert path.stat().st_mode & 0o777 == 0o600
    assert agent_dir.stat().st_mode & 0o777 == 0o700


KILLED_SETTINGS_WRITER = textwrap.dedent(
    """
    import sys
    from pi_app.coding.settings import SettingsManager
    manager = SettingsManager.create(sys.argv[1] + "/project", sys.argv[1])
    padding = "p" * 200_000  # a big file makes each write take long enough to be interrupted
    print("ready", flush=True)
    i = 0
    while True:
        manager.set("counter", i)
        manager.set("padding", padding + str(i))
        i += 1
    """
)


def test_a_settings_writer_killed_mid_save_never_leaves_a_broken_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    settings = agent_dir / "settings.json"
    settings.write_text('{"mine": "keep me"}')
    rng = random.Random(SEED)
    for _ in range(5):
        proc = subprocess.Popen(
            [sys.executable, "-c", KILLED_SETTINGS_WRITER, str(agent_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.01, 0.15))
        proc.kill()
        proc.wait()
        saved = json.loads(settings.read_text())  # always a whole file: old or new, never torn
        assert saved["mine"] == "keep me"
        if (agent_dir / "settings.json.lock").exists():
            os.utime(agent_dir / "settings.json.lock", (0, 0))  # age the dead holder's lock

    # A lock left by a killed holder is broken once stale, and the next save goes through.
    monkeypatch.setattr(filelock, "STALE_AFTER_S", 0.5)
    manager = SettingsManager.create(tmp_path / "project", agent_dir)
    manager.set("after", True)
    assert not manager.errors
    saved = json.loads(settings.read_text())
    assert saved["after"] is True and saved["mine"] == "keep me"
