"""Shared by the ``bounds_*.py`` benchmarks: run the real ``pi`` against the loopback fake server
in a throwaway home and report its peak resident memory.

Peak RSS comes from ``os.wait4`` on the ``pi`` process (its own high-water mark; short-lived
children such as the bash tool's shell report their own). Each benchmark prints a baseline run
(same command, tiny payload) next to the heavy one, so the figure to read is the difference.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.helpers import PI, write_models_json  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402


@dataclass
class Measured:
    label: str
    peak_rss_mb: float
    seconds: float
    returncode: int
    stderr: str

    def line(self) -> str:
        status = "ok" if self.returncode == 0 else f"exit {self.returncode}: {self.stderr.strip()[:120]}"
        return f"{self.label:<34} peak RSS {self.peak_rss_mb:8.1f} MB   {self.seconds:7.1f} s   {status}"


def measure(label: str, turns: list[list], args: list[str], prepare=None) -> Measured:
    """Run ``pi <args>`` with ``turns`` queued on a fresh fake server; ``prepare(project)`` runs first."""
    with tempfile.TemporaryDirectory(prefix="pi-bounds-") as tmp:
        home = Path(tmp) / "home"
        agent_dir = home / ".pi" / "agent"
        project = Path(tmp) / "project"
        project.mkdir(parents=True)
        if prepare is not None:
            prepare(project)
        env = dict(os.environ, HOME=str(home), PI_CODING_AGENT_DIR=str(agent_dir), PI_OFFLINE="1")
        with FakeLLMServer() as server:
            write_models_json(agent_dir, server.base_url)
            for turn in turns:
                server.enqueue(*turn)
            started = time.monotonic()
            proc = subprocess.Popen(
                [PI, *args],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            assert proc.stderr is not None
            err = proc.stderr.read()  # drained while it runs; stdout goes to /dev/null
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.monotonic() - started
    return Measured(label, usage.ru_maxrss / 1024, seconds, proc.returncode, err.decode("utf-8", "replace"))


def report(title: str, results: list[Measured]) -> None:
    print(title)
    for result in results:
        print("  " + result.line())
    base = results[0].peak_rss_mb
    for result in results[1:]:
        print(f"  {result.label}: {result.peak_rss_mb - base:+.1f} MB over the baseline")
