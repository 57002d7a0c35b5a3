"""One SSH connection to a pod, over ``asyncssh``: run a command, stream its output, write a file.

A pod is given as the ssh command a user would type (``ssh -p 2222 -i ~/.ssh/gpu root@1.2.3.4``,
the leading ``ssh`` optional) and ``parse_ssh_command`` turns the options pods understands into
asyncssh's connection options: ``-p``, ``-i``, ``-l``, ``-J`` and ``-o`` with ``Port``, ``User``,
``IdentityFile``, ``UserKnownHostsFile``, ``StrictHostKeyChecking``; ``~/.ssh/config`` applies as
with OpenSSH (asyncssh reads it). Host keys are checked against the known-hosts file as ``ssh``
does; ``StrictHostKeyChecking=no`` turns the check off.

Files are written with ``cat > path`` on the remote side (no SFTP subsystem needed); secrets go
through stdin, never through a command line (spec 70 §5.2).
"""

from __future__ import annotations

import os
import shlex
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncssh

# ssh(1) options that take an argument; those pods does not map are accepted and ignored
_SSH_OPTIONS_WITH_ARGUMENT = set("BbcDEeFIiJLlmOopQRSWw")


class PodError(Exception):
    """A failure worth one line to the user (no traceback)."""


def _import_asyncssh() -> ModuleType:
    """asyncssh, imported without the deprecation warnings newer ``cryptography`` releases raise
    for the DSA support asyncssh still declares: five of them would reach the user's terminal
    before any one-line answer (pods never offers DSA keys)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"DSA is deprecated")
        import asyncssh

    return asyncssh


@dataclass
class SshTarget:
    host: str
    port: int | None = None
    username: str | None = None
    identity_files: list[str] = field(default_factory=list)
    known_hosts: str | None = None  # a file; None means the default (~/.ssh/known_hosts)
    check_host_key: bool = True
    jump: str | None = None

    def describe(self) -> str:
        user = f"{self.username}@" if self.username else ""
        port = f":{self.port}" if self.port else ""
        return f"{user}{self.host}{port}"


def _apply_option(target: SshTarget, option: str) -> None:
    key, _, value = option.replace(" ", "=", 1).partition("=")
    key = key.strip().lower()
    value = value.strip()
    if key == "port":
        target.port = int(value)
    elif key == "user":
        target.username = value
    elif key == "identityfile":
        target.identity_files.append(value)
    elif key == "userknownhostsfile":
        target.known_hosts = value
    elif key == "stricthostkeychecking":
        target.check_host_key = value.lower() not in ("no", "off", "false")


def parse_ssh_command(text: str) -> SshTarget:
    """``ssh [-p port] [-i key] [-o K=V] [user@]host`` (or ``ssh://user@host:port``) → target."""
    words = shlex.split(text)
    if words and words[0] in ("ssh", "/usr/bin/ssh"):
        words = words[1:]
    pending: list[tuple[str, str]] = []
    destination: str | None = None
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1 and destination is None:
            letter, rest = word[1], word[2:]
            if letter in _SSH_OPTIONS_WITH_ARGUMENT:
                if not rest:
                    i += 1
                    if i >= len(words):
                        raise PodError(f"ssh option {word} needs a value")
                    rest = words[i]
                pending.append((letter, rest))
        elif destination is None:
            destination = word
        else:
            raise PodError(f"unexpected {word!r} after the host in the ssh command (no remote command here)")
        i += 1
    if not destination:
        raise PodError(f"no host in the ssh command {text!r}")
    port: int | None = None
    if destination.startswith("ssh://"):
        destination = destination[6:]
        host_part = destination.rsplit("@", 1)[-1]
        if ":" in host_part:
            host_only, _, port_text = host_part.rpartition(":")
            destination = destination[: len(destination) - len(host_part)] + host_only
            port = int(port_text)
    user, _, host = destination.rpartition("@")
    target = SshTarget(host=host, port=port, username=user or None)
    for letter, value in pending:
        try:
            if letter == "p":
                target.port = int(value)
            elif letter == "i":
                target.identity_files.append(value)
            elif letter == "l":
                target.username = value
            elif letter == "J":
                target.jump = value
            elif letter == "o":
                _apply_option(target, value)
        except ValueError:
            raise PodError(f"bad value {value!r} for ssh option -{letter}") from None
    return target


@dataclass
class RunResult:
    stdout: str
    stderr: str
    code: int


class PodConnection:
    """An open SSH connection; use ``async with connect(target) as pod``."""

    def __init__(self, connection: asyncssh.SSHClientConnection, target: SshTarget) -> None:
        self.connection = connection
        self.target = target

    @property
    def peer_address(self) -> str:
        """The IP address the connection reached (the host clients use for the pod's endpoints)."""
        peer = self.connection.get_extra_info("peername")
        return str(peer[0]) if peer else self.target.host

    async def run(self, command: str, *, input: str | None = None, check: bool = True) -> RunResult:
        result = await self.connection.run(command, input=input, check=False)
        code = result.exit_status if result.exit_status is not None else 255
        out = _text(result.stdout)
        err = _text(result.stderr)
        if check and code != 0:
            detail = (err or out).strip().splitlines()
            raise PodError(
                f"`{command}` failed on {self.target.describe()} (exit {code})"
                + (f": {detail[-1]}" if detail else "")
            )
        return RunResult(out, err, code)

    async def stream(self, command: str, on_text: Callable[[str], None], *, pty: bool = False) -> int:
        """Run ``command``, handing its output (stdout and stderr merged) to ``on_text`` as it comes."""
        asyncssh = _import_asyncssh()

        process = await self.connection.create_process(
            command, stderr=asyncssh.STDOUT, term_type="xterm" if pty else None
        )
        try:
            while True:
                chunk = await process.stdout.read(4096)
                if not chunk:
                    break
                on_text(_text(chunk))
            await process.wait()
        finally:
            process.close()
        return process.exit_status if process.exit_status is not None else 255

    async def write_file(self, path: str, text: str, *, private: bool = False) -> None:
        """Write ``text`` to ``path`` on the pod (``$HOME`` expands); ``private`` makes it 0600."""
        umask = "umask 077; " if private else ""
        await self.run(f'{umask}mkdir -p "$(dirname "{path}")" && cat > "{path}"', input=text)


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


class connect:
    """Open a connection to ``target``; failures become one-line ``PodError``s."""

    def __init__(self, target: SshTarget, timeout_s: float = 20.0) -> None:
        self.target = target
        self.timeout_s = timeout_s
        self._connection: asyncssh.SSHClientConnection | None = None

    async def __aenter__(self) -> PodConnection:
        asyncssh = _import_asyncssh()

        target = self.target
        options: dict[str, object] = {"connect_timeout": self.timeout_s}
        if target.port:
            options["port"] = target.port
        if target.username:
            options["username"] = target.username
        if target.identity_files:
            options["client_keys"] = [os.path.expanduser(p) for p in target.identity_files]
        if not target.check_host_key:
            options["known_hosts"] = None
        elif target.known_hosts:
            options["known_hosts"] = os.path.expanduser(target.known_hosts)
        if target.jump:
            options["tunnel"] = target.jump
        try:
            self._connection = await asyncssh.connect(target.host, **options)
        except asyncssh.HostKeyNotVerifiable as exc:
            raise PodError(
                f"host key of {target.describe()} not verified ({exc.reason}); "
                "add it to known_hosts (ssh once by hand) or pass -o UserKnownHostsFile=..."
            ) from None
        except asyncssh.PermissionDenied:
            raise PodError(f"permission denied for {target.describe()} (which key? pass -i <key>)") from None
        except (TimeoutError, OSError, asyncssh.Error) as exc:
            reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
            raise PodError(f"cannot connect to {target.describe()}: {reason}") from None
        return PodConnection(self._connection, target)

    async def __aexit__(self, *exc: object) -> None:
        if self._connection is not None:
            self._connection.close()
            await self._connection.wait_closed()
