"""Loaded by every Python process started with this folder on ``PYTHONPATH`` (the offline tests).

Records each outgoing network attempt of the process — ``socket.connect``/``connect_ex`` on an
IP socket, a name lookup of a host that is not loopback, and the start of ``git``/``npm``/``curl``
style downloaders — as one JSON line in ``$PI_GUARD_LOG``. A connect to an address other than
``$PI_GUARD_ALLOW`` (``host:port``, comma-separated), a lookup and a downloader spawn are refused
with ``OSError`` so nothing leaves the machine even when the guard finds a bug.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess

_LOG = os.environ.get("PI_GUARD_LOG")
_ALLOW = {a.strip() for a in os.environ.get("PI_GUARD_ALLOW", "").split(",") if a.strip()}
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "", None}
# Programs that reach the network, and their sub-commands that stay local (checked first).
_DOWNLOADERS = {"git", "npm", "npx", "curl", "wget", "pip", "pip3", "uv"}
_LOCAL_SUBCOMMANDS = {
    "root",
    "prefix",
    "config",
    "ls",
    "list",
    "--version",
    "-v",
    "version",
    "rev-parse",
    "status",
    "log",
    "show",
    "diff",
    "init",
    "show-toplevel",
}


def _record(kind: str, target: str, allowed: bool) -> None:
    if not _LOG:
        return
    with open(_LOG, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": kind, "target": target, "allowed": allowed, "pid": os.getpid()}) + "\n")


def _target(address: object) -> str | None:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return None  # AF_UNIX paths and the like are not network


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
_popen_init = subprocess.Popen.__init__


def _check(sock: socket.socket, address: object) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    target = _target(address)
    if target is None:
        return
    allowed = target in _ALLOW
    _record("connect", target, allowed)
    if not allowed:
        raise OSError(f"socket guard: connection to {target} refused")


def connect(self: socket.socket, address: object) -> None:
    _check(self, address)
    return _connect(self, address)


def connect_ex(self: socket.socket, address: object) -> int:
    _check(self, address)
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    name = host.decode() if isinstance(host, bytes) else host
    if name not in _LOOPBACK_NAMES:
        _record("resolve", str(name), False)
        raise socket.gaierror(socket.EAI_NONAME, f"socket guard: lookup of {name} refused")
    return _getaddrinfo(host, *args, **kwargs)


def popen_init(self, args, *rest, **kwargs):  # type: ignore[no-untyped-def]
    argv = [args] if isinstance(args, str | bytes) else list(args)
    program = os.path.basename(str(argv[0]).split()[0]) if argv else ""
    words = [os.path.basename(str(a)) for a in argv[1:3]] if len(argv) > 1 else []
    if program in _DOWNLOADERS and not (words and words[0] in _LOCAL_SUBCOMMANDS):
        _record("spawn", " ".join(map(str, argv)), False)
        raise OSError(f"socket guard: {program} refused")
    return _popen_init(self, args, *rest, **kwargs)


socket.socket.connect = connect  # type: ignore[method-assign]
socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
socket.getaddrinfo = getaddrinfo
subprocess.Popen.__init__ = popen_init  # type: ignore[method-assign]
