"""``--api-key`` is not left for every local user to read in ``ps`` (issue 19 item 8).

pi 1.6.0 renames its process to "pi"; pi for Python rewrites its arguments with the key shown as
``***`` once the command line is read, and ``--help`` says that the environment is safer.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

KEY = "sk-test-SECRET-0123456789"


@pytest.mark.parametrize("form", [["--api-key", KEY], [f"--api-key={KEY}"]])
def test_the_key_is_not_in_the_process_arguments(tmp_path: Path, llm_server: FakeLLMServer, form) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    proc = subprocess.Popen(
        [PI, "--model", "fake/fake-model", *form, "--mode", "rpc"],
        cwd=home.project,
        env=home.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b'{"id":"1","type":"get_state"}\n')
        proc.stdin.flush()
        while json.loads(proc.stdout.readline()).get("command") != "get_state":
            pass
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        ps = subprocess.run(["ps", "-o", "args=", "-p", str(proc.pid)], capture_output=True, text=True).stdout
    finally:
        proc.kill()
        proc.wait()

    assert KEY.encode() not in cmdline
    assert KEY not in ps and "***" in ps and "--mode rpc" in ps


def test_help_says_the_environment_is_safer(tmp_path: Path) -> None:
    result = subprocess.run([PI, "--help"], capture_output=True, text=True, timeout=30)
    option = result.stdout[result.stdout.index("--api-key") :].split("\n  --", 1)[0]
    assert "environment is safer" in " ".join(option.split())
