"""Where mom's bash commands run: on the host, or in a Docker container (``--sandbox``).

Both are ``BashOperations`` for the bash tool's pluggable operations seam (spec 50 §2.5, D-37):

- ``host``: the built-in local operations, with mom's own secrets (``MOM_*`` variables) taken out
  of the command's environment, so ``env`` in a command shows no Slack token;
- ``docker:<name>``: ``docker exec -w <dir> <name> sh -c <command>`` through the same local
  operations (an argv quoted by ``shlex.join``, no hand-written escaping). The workspace folder is
  mounted at ``/workspace`` in the container, so host paths under it map one to one.

``validate_docker`` checks at start-up that docker answers and the container runs, else names the
command that starts it. Decision: in Docker mode the agent gets bash (and attach) only, so every
file access happens inside the container; on the host it also has read, edit and write.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_app.ext import AbortSignal, create_local_bash_operations

CONTAINER_WORKSPACE = "/workspace"


class SandboxError(Exception):
    """The sandbox option is malformed or the container is not usable."""


@dataclass(frozen=True)
class Sandbox:
    kind: str  # "host" | "docker"
    container: str | None = None

    @classmethod
    def parse(cls, text: str) -> Sandbox:
        if text == "host":
            return cls("host")
        if text.startswith("docker:") and text[7:].strip():
            return cls("docker", text[7:].strip())
        raise SandboxError(f"--sandbox={text}: use host or docker:<container-name>")

    def describe(self) -> str:
        return "the host" if self.kind == "host" else f"Docker container {self.container}"


def scrubbed_env(env: dict[str, str] | None) -> dict[str, str]:
    base = dict(os.environ if env is None else env)
    return {k: v for k, v in base.items() if not k.startswith("MOM_")}


class HostOperations:
    """Local execution without mom's secrets in the environment."""

    def __init__(self) -> None:
        self._local = create_local_bash_operations()

    async def exec(
        self,
        command: str,
        cwd: str,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str] | None,
    ) -> int | None:
        return await self._local.exec(command, cwd, on_data, signal, timeout, scrubbed_env(env))


class DockerOperations:
    """``docker exec`` into a running container that mounts the workspace at ``/workspace``."""

    def __init__(self, container: str, workspace: Path) -> None:
        self.container = container
        self.workspace = workspace.resolve()
        self._local = create_local_bash_operations()

    def container_path(self, host_path: str) -> str:
        try:
            rel = Path(host_path).resolve().relative_to(self.workspace)
        except ValueError:
            return CONTAINER_WORKSPACE
        return str(Path(CONTAINER_WORKSPACE) / rel) if rel.parts else CONTAINER_WORKSPACE

    async def exec(
        self,
        command: str,
        cwd: str,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str] | None,
    ) -> int | None:
        argv = ["docker", "exec", "-w", self.container_path(cwd), self.container, "sh", "-c", command]
        return await self._local.exec(shlex.join(argv), cwd, on_data, signal, timeout, scrubbed_env(env))


def bash_operations(sandbox: Sandbox, workspace: Path) -> HostOperations | DockerOperations:
    if sandbox.kind == "docker" and sandbox.container:
        return DockerOperations(sandbox.container, workspace)
    return HostOperations()


def host_path(sandbox: Sandbox, workspace: Path, path: str, cwd: Path) -> Path:
    """A path the agent named (a container path in Docker mode) as a host path."""
    if sandbox.kind == "docker" and (
        path == CONTAINER_WORKSPACE or path.startswith(CONTAINER_WORKSPACE + "/")
    ):
        return workspace / path[len(CONTAINER_WORKSPACE) :].lstrip("/")
    candidate = Path(os.path.expanduser(path))
    return candidate if candidate.is_absolute() else cwd / candidate


async def validate_docker(container: str) -> None:
    if shutil.which("docker") is None:
        raise SandboxError("--sandbox=docker: the docker command is not installed")
    process = await asyncio.create_subprocess_exec(
        "docker",
        "inspect",
        "-f",
        "{{.State.Running}}",
        container,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    if process.returncode != 0 or out.decode().strip() != "true":
        raise SandboxError(
            f"container {container} is not running; start one with the workspace mounted, e.g. "
            f"docker run -d --name {container} -v <workspace>:/workspace alpine:latest tail -f /dev/null"
        )
