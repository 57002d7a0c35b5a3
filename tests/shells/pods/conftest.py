"""A real OpenSSH server on a loopback port, as the current user, and a "pod" behind it.

The fixture generates a throwaway host key and user key, writes an ``sshd_config`` in a temporary
folder (no system file is touched) and starts Debian's ``/usr/sbin/sshd -D`` on a free port. The
remote side gets its own ``HOME`` and a ``PATH`` whose first folder holds the stand-ins: ``vllm``
(``stand_in_vllm.py``, which serves the fake LLM server) and ``nvidia-smi`` (two H100s). Running as
root, sshd needs its privilege-separation folder ``/run/sshd``, which the Debian service would
create at start; the fixture creates it when missing.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"

NVIDIA_SMI = """#!/bin/sh
case "$*" in
  *--query-gpu*) printf '0, NVIDIA H100 80GB HBM3, 81559 MiB\\n1, NVIDIA H100 80GB HBM3, 81559 MiB\\n' ;;
  *) printf 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\\n' ;;
esac
"""


@dataclass
class Pod:
    root: Path
    port: int
    remote_home: Path
    local_home: Path
    ssh_command: str

    def env(self, **extra: str) -> dict[str, str]:
        """The environment for a local ``pi`` process (its own HOME and agent dir)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI", "ANTHROPIC"))}
        env.update(HOME=str(self.local_home), PI_OFFLINE="1", **extra)
        env.pop("SSH_AUTH_SOCK", None)
        return env

    def pi(self, *args: str, timeout: float = 90, **extra_env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pi_app", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env(**extra_env),
            cwd=self.local_home,
            stdin=subprocess.DEVNULL,
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


@pytest.fixture
def pod(tmp_path: Path) -> Iterator[Pod]:
    if not os.path.exists(SSHD):
        pytest.fail("sshd not found: install Debian's openssh-server (.ci/run does)")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    remote_home, local_home, bin_dir = tmp_path / "remote-home", tmp_path / "local-home", tmp_path / "bin"
    for folder in (remote_home, local_home, bin_dir):
        folder.mkdir()
    _keygen(tmp_path / "host_key")
    _keygen(tmp_path / "user_key")
    shutil.copy(tmp_path / "user_key.pub", tmp_path / "authorized_keys")
    vllm = bin_dir / "vllm"
    vllm.write_text(
        f'#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} {REPO}/tests/shells/pods/stand_in_vllm.py "$@"\n'
    )
    (bin_dir / "nvidia-smi").write_text(NVIDIA_SMI)
    for script in bin_dir.iterdir():
        script.chmod(0o755)
    port = _free_port()
    config = tmp_path / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp_path}/host_key\nPidFile {tmp_path}/sshd.pid\n"
        f"AuthorizedKeysFile {tmp_path}/authorized_keys\nStrictModes no\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        "PermitRootLogin prohibit-password\n"
        f"SetEnv HOME={remote_home} PATH={bin_dir}:/usr/local/bin:/usr/bin:/bin\n"
    )
    host_key = (tmp_path / "host_key.pub").read_text().split()
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    log = open(tmp_path / "sshd.log", "w")
    server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if server.poll() is not None:
                pytest.fail(f"sshd exited: {(tmp_path / 'sshd.log').read_text()}")
            time.sleep(0.05)
    user = getpass.getuser()
    ssh = (
        f"ssh -p {port} -i {tmp_path}/user_key -o UserKnownHostsFile={tmp_path}/known_hosts {user}@127.0.0.1"
    )
    try:
        yield Pod(tmp_path, port, remote_home, local_home, ssh)
    finally:
        # every stand-in vllm still running was started through this pod: end it by its recorded pid
        calls = remote_home / "vllm-calls.jsonl"
        if calls.exists():
            import json

            for line in calls.read_text().splitlines():
                try:
                    os.kill(json.loads(line)["pid"], 15)
                except (ProcessLookupError, KeyError, ValueError):
                    pass
        server.terminate()
        server.wait(10)
        log.close()
