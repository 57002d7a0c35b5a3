"""Shared helpers for the reliability tests: a throwaway pi home pointed at the fake server, and
the checks every session file must pass after a fault (spec 30 R-SES-02, decision D-26)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.helpers import PI, write_models_json


def _interruptible() -> None:
    """In the child before ``exec``: Ctrl+C (SIGINT) acts as on a terminal. A suite started as a
    background job of a non-interactive shell inherits SIGINT ignored, and so would ``pi``, which
    rightly keeps it that way (as ``nohup`` and ``cmd &`` expect): the tests that send SIGINT would
    then wait for a signal that can never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class PiHome:
    """A HOME with an agent dir and a project folder; ``env`` runs ``pi`` inside it."""

    home: Path
    agent_dir: Path
    project: Path

    @classmethod
    def make(cls, root: Path) -> PiHome:
        home = root / "home"
        agent_dir = home / ".pi" / "agent"
        project = root / "project"
        agent_dir.mkdir(parents=True)
        project.mkdir()
        return cls(home, agent_dir, project)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(HOME=str(self.home), PI_CODING_AGENT_DIR=str(self.agent_dir), PI_OFFLINE="1")
        env.update(extra)
        return env

    def point_at(self, base_url: str, api: str = "openai-completions", **model: object) -> Path:
        return write_models_json(self.agent_dir, base_url, api=api, **model)

    def write_settings(self, settings: dict[str, object]) -> Path:
        path = self.agent_dir / "settings.json"
        path.write_text(json.dumps(settings), encoding="utf-8")
        return path

    def sessions(self) -> list[Path]:
        root = self.agent_dir / "sessions"
        return sorted(root.rglob("*.jsonl")) if root.exists() else []

    def popen(self, *args: str, **extra_env: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [PI, *args],
            cwd=self.project,
            env=self.env(**extra_env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_interruptible,
        )

    def run(self, *args: str, timeout: float = 60, input: str = "", **extra_env: str):
        return subprocess.run(
            [PI, *args],
            cwd=self.project,
            env=self.env(**extra_env),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def fuzz_settings(default_examples: int) -> Any:
    """Hypothesis settings for the fuzz tests; ``PI_FUZZ_EXAMPLES`` raises the count locally."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=int(os.environ.get("PI_FUZZ_EXAMPLES", str(default_examples))),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def split_complete_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """The complete (newline-terminated) lines of a file and the unterminated tail (maybe b"")."""
    lines = data.split(b"\n")
    tail = lines.pop()
    return [line for line in lines if line.strip()], tail


def assert_no_traceback(*outputs: str) -> None:
    for text in outputs:
        assert "Traceback (most recent call last)" not in text, text


def read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    """Read a pty until ``needle`` shows up (or ``timeout`` passes); returns everything read."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen
