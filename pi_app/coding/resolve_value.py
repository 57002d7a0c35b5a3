"""Value resolution for ``models.json`` and ``auth.json`` values (decision D-7, spec 40 §2.14.3).

One rule for every configured secret or header value:

- ``!command`` runs ``command`` through the user's shell; the trimmed stdout is the value. A command
  that fails, times out (10 s) or prints nothing resolves to ``None``. Each distinct command string
  runs at most once per process (the result, including ``None``, is cached), even when many
  requests ask for it at the same time.
- A value containing ``$VAR`` or ``${VAR}`` is interpolated from the environment (unset -> empty);
  an empty result resolves to ``None``.
- Otherwise, if an environment variable with exactly that name is set and non-empty, its value;
  else the literal string.

``resolve_value`` is synchronous (it may block up to the timeout on a first ``!command``);
``resolve_value_async`` runs the same logic in a worker thread so the event loop keeps going.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import cache

COMMAND_TIMEOUT_S = 10.0


@cache  # compiled when a value first holds a "$" (start-up cost)
def _var_pattern() -> re.Pattern[str]:
    return re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


_command_cache: dict[str, str | None] = {}
_command_locks: dict[str, threading.Lock] = {}
_cache_guard = threading.Lock()


def _shell() -> list[str]:
    shell = os.environ.get("SHELL") or "/bin/sh"
    return [shell, "-c"]


def _run_command(command: str) -> str | None:
    try:
        completed = subprocess.run(
            [*_shell(), command],
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    value = completed.stdout.strip()
    return value or None


def _command_value(command: str) -> str | None:
    with _cache_guard:
        if command in _command_cache:
            return _command_cache[command]
        lock = _command_locks.setdefault(command, threading.Lock())
    with lock:
        with _cache_guard:
            if command in _command_cache:
                return _command_cache[command]
        value = _run_command(command)
        with _cache_guard:
            _command_cache[command] = value
        return value


def clear_command_cache() -> None:
    """Forget cached ``!command`` results (tests only; pi caches for the process lifetime)."""
    with _cache_guard:
        _command_cache.clear()
        _command_locks.clear()


def is_command(value: str) -> bool:
    return value.startswith("!")


def resolve_value(value: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Resolve one configured value; ``env`` defaults to ``os.environ``."""
    if value is None:
        return None
    environ = os.environ if env is None else env
    if is_command(value):
        return _command_value(value[1:].strip())
    if "$" in value and _var_pattern().search(value):
        result = _var_pattern().sub(lambda m: environ.get(m.group(1) or m.group(2), "") or "", value)
        return result or None
    from_env = environ.get(value)
    if from_env:
        return from_env
    return value or None


async def resolve_value_async(value: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """``resolve_value`` without blocking the event loop on a first ``!command``."""
    if value is None or not is_command(value):
        return resolve_value(value, env)
    with _cache_guard:
        command = value[1:].strip()
        if command in _command_cache:
            return _command_cache[command]
    return await asyncio.to_thread(resolve_value, value, env)


def resolve_headers(
    headers: Mapping[str, str] | None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Resolve every header value; headers that resolve to nothing are dropped."""
    out: dict[str, str] = {}
    for name, raw in (headers or {}).items():
        value = resolve_value(raw, env)
        if value:
            out[name] = value
    return out


async def resolve_value_in(value: str | None, lookup: Callable[[str], Awaitable[str | None]]) -> str | None:
    """``resolve_value`` with environment lookups through an async ``lookup`` (an ``AuthContext.env``)."""
    if value is None:
        return None
    if is_command(value):
        return await resolve_value_async(value)
    if "$" in value and _var_pattern().search(value):
        parts: list[str] = []
        last = 0
        for match in _var_pattern().finditer(value):
            parts.append(value[last : match.start()])
            parts.append(await lookup(match.group(1) or match.group(2)) or "")
            last = match.end()
        parts.append(value[last:])
        return "".join(parts) or None
    from_env = await lookup(value)
    if from_env:
        return from_env
    return value or None


async def resolve_headers_async(
    headers: Mapping[str, str] | None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, raw in (headers or {}).items():
        value = await resolve_value_async(raw, env)
        if value:
            out[name] = value
    return out
