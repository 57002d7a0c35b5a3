"""mom's parts that need no Slack: message splitting, the cron matcher, event files, the sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pi_app.shells.mom.events import Cron, EventError, EventsWatcher, parse_event
from pi_app.shells.mom.outbound import OutboundQueue, split_for_slack
from pi_app.shells.mom.sandbox import DockerOperations, Sandbox, SandboxError, host_path


def test_split_for_slack() -> None:
    assert split_for_slack("short") == ["short"]
    chunks = split_for_slack("x" * 100_000)
    assert [len(c) for c in chunks] == [
        39_950 + len("\n_(continued 1...)_"),
        39_950 + len("\n_(continued 2...)_"),
        20_100,
    ]


async def test_one_failing_call_does_not_stop_the_queue() -> None:
    done: list[str] = []
    reported: list[str] = []

    async def ok(name: str) -> None:
        done.append(name)

    async def boom() -> None:
        raise RuntimeError("rate limited")

    async def report(text: str) -> None:
        reported.append(text)

    queue = OutboundQueue(report)
    queue.enqueue(lambda: ok("a"), "a")
    queue.enqueue(boom, "posting b")
    queue.enqueue(lambda: ok("c"), "c")
    await queue.flush()
    assert done == ["a", "c"] and reported == ["Error: posting b: rate limited"]


def test_cron() -> None:
    weekdays_nine = Cron("0 9 * * 1-5")
    monday = datetime(2025, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/Vienna"))
    assert weekdays_nine.matches(monday)
    assert not weekdays_nine.matches(monday + timedelta(days=5))  # Saturday
    assert not weekdays_nine.matches(monday + timedelta(minutes=1))
    every_quarter = Cron("*/15 * * * *")
    assert every_quarter.matches(monday.replace(minute=45)) and not every_quarter.matches(
        monday.replace(minute=50)
    )
    assert Cron("0 0 * * 0").matches(datetime(2025, 1, 5, 0, 0))  # Sunday as 0 (and 7)
    with pytest.raises(EventError):
        Cron("61 * * * *")
    with pytest.raises(EventError):
        Cron("* * *")


def test_event_validation() -> None:
    assert parse_event({"type": "immediate", "channelId": "C1", "text": "hi"}).kind == "immediate"
    with pytest.raises(EventError, match="offset"):
        parse_event({"type": "one-shot", "channelId": "C1", "text": "x", "at": "2025-01-01T09:00:00"})
    with pytest.raises(EventError, match="timezone"):
        parse_event(
            {
                "type": "periodic",
                "channelId": "C1",
                "text": "x",
                "schedule": "* * * * *",
                "timezone": "Mars/Base",
            }
        )
    with pytest.raises(EventError, match="unknown event type"):
        parse_event({"type": "weekly", "channelId": "C1", "text": "x"})


def test_the_watcher_fires_due_events_and_quarantines_bad_files(tmp_path: Path) -> None:
    fired: list[tuple[str, str]] = []
    watcher = EventsWatcher(tmp_path, lambda channel, text: fired.append((channel, text)))
    now = datetime.now(UTC)
    soon = (now + timedelta(minutes=5)).isoformat()
    (tmp_path / "later.json").write_text(
        json.dumps({"type": "one-shot", "channelId": "C1", "text": "t", "at": soon})
    )
    (tmp_path / "tick.json").write_text(
        json.dumps(
            {"type": "periodic", "channelId": "C2", "text": "p", "schedule": "* * * * *", "timezone": "UTC"}
        )
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    os.utime(bad, (now.timestamp() - 10, now.timestamp() - 10))
    watcher.tick(now)
    watcher.tick(now)  # the same minute fires a periodic event once
    assert fired == [("C2", f"[EVENT:tick.json:periodic:{now.strftime('%Y-%m-%dT%H:%M')}] p")]
    assert (tmp_path / "invalid" / "bad.json").exists() and (tmp_path / "invalid" / "bad.json.error").exists()
    watcher.tick(now + timedelta(minutes=6))
    assert fired[-2][1].startswith("[EVENT:later.json:one-shot:") and not (tmp_path / "later.json").exists()


def test_sandbox_option() -> None:
    assert Sandbox.parse("host").kind == "host"
    assert Sandbox.parse("docker:box").container == "box"
    with pytest.raises(SandboxError):
        Sandbox.parse("vm:x")


async def test_docker_commands_run_through_docker_exec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in ``docker`` records its argv and runs the command itself."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.json"
    docker = bin_dir / "docker"
    docker.write_text(
        "#!/usr/bin/env python3\nimport json, subprocess, sys\n"
        f"open({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
        "sys.exit(subprocess.call(sys.argv[-3:]))\n"
    )
    docker.chmod(docker.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("MOM_SLACK_BOT_TOKEN", "xoxb-secret")
    workspace = tmp_path / "ws"
    (workspace / "C1").mkdir(parents=True)
    out = bytearray()
    ops = DockerOperations("box", workspace)
    code = await ops.exec("echo $MOM_SLACK_BOT_TOKEN-done", str(workspace / "C1"), out.extend, None, 30, None)
    assert code == 0 and out.decode().strip() == "-done"  # the token never reaches the command
    assert json.loads(record.read_text()) == [
        "exec",
        "-w",
        "/workspace/C1",
        "box",
        "sh",
        "-c",
        "echo $MOM_SLACK_BOT_TOKEN-done",
    ]
    assert (
        host_path(Sandbox("docker", "box"), workspace, "/workspace/C1/a.txt", workspace)
        == workspace / "C1" / "a.txt"
    )
    await asyncio.sleep(0)
