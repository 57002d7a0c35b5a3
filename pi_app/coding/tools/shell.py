"""Shell discovery, the bash environment and process-group killing (spec 50 R-BASH-01..05, 09, 10).

Every bash child runs in its own session/process group, so a kill reaches the whole tree
(``sleep 100 & sleep 100; wait``). Running groups are tracked in a process-wide set and killed at
interpreter exit; the CLI should also call ``kill_tracked_process_groups`` from its SIGHUP/SIGTERM
handlers. Such a signal can arrive after a shell started but before its group is tracked; the
handler then asks ``defer_exit_signal`` and, while a start is under way (``starting_shell``), the
signal is raised again once the group is tracked, so no group is left behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal as signals
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

SESSION_ENV_VARS = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")

_TRACKED_GROUPS: set[int] = set()
_STARTING: list[None] = []  # one item per shell being started (list operations are atomic)
_DEFERRED_SIGNALS: list[int] = []


class ShellNotFoundError(OSError):
    pass


@lru_cache(maxsize=8)
def resolve_shell(shell_path: str | None = None) -> str:
    """The shell to run ``-c <command>`` with: the configured path, /bin/bash, bash on PATH, sh."""
    if shell_path:
        expanded = os.path.expanduser(shell_path)
        if not os.path.isfile(expanded):
            raise ShellNotFoundError(f"Custom shell path not found: {shell_path}")
        return expanded
    if os.path.isfile("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "sh"


def agent_bin_dir() -> str:
    """``<agent dir>/bin``; the agent dir honours ``PI_CODING_AGENT_DIR`` like the rest of pi."""
    agent_dir = os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(os.path.expanduser("~"), ".pi", "agent")
    return os.path.join(os.path.expanduser(agent_dir), "bin")


def _with_bin_dir(env: dict[str, str], bin_dir: str | None) -> dict[str, str]:
    if not bin_dir:
        return env
    key = next((k for k in env if k.upper() == "PATH"), "PATH")
    entries = [e for e in env.get(key, "").split(os.pathsep) if e]
    if bin_dir not in entries:
        env[key] = os.pathsep.join([bin_dir, *entries])
    return env


def _session_value(ctx: Any, getter: str, attribute: str) -> Any:
    manager = getattr(ctx, "session_manager", None)
    method = getattr(manager, getter, None) if manager is not None else None
    if callable(method):
        return method()
    return getattr(ctx, attribute, None)


def build_shell_env(
    ctx: Any = None,
    expose_session_environment: bool = True,
    bin_dir: str | None = None,
    base: dict[str, str] | None = None,
) -> dict[str, str]:
    """The child environment: the process env, pi's bin dir on PATH, and the ``PI_*`` session vars."""
    env = dict(os.environ if base is None else base)
    _with_bin_dir(env, bin_dir if bin_dir is not None else agent_bin_dir())
    for name in SESSION_ENV_VARS:
        env.pop(name, None)
    if not expose_session_environment or ctx is None:
        return env
    values = {
        "PI_SESSION_ID": _session_value(ctx, "get_session_id", "session_id"),
        "PI_SESSION_FILE": _session_value(ctx, "get_session_file", "session_file"),
        "PI_REASONING_LEVEL": getattr(ctx, "thinking_level", None),
    }
    model = getattr(ctx, "model", None)
    if model is not None:
        values["PI_PROVIDER"] = getattr(model, "provider", None)
        values["PI_MODEL"] = getattr(model, "id", None)
    if values["PI_SESSION_FILE"]:
        values["PI_SESSION_FILE"] = os.path.abspath(str(values["PI_SESSION_FILE"]))
    env.update({k: str(v) for k, v in values.items() if v})
    return env


@dataclass
class BashSpawnContext:
    """What ``spawn_hook`` may rewrite just before the shell starts (R-BASH-05)."""

    command: str
    cwd: str
    env: dict[str, str]


def kill_process_group(pid: int) -> None:
    """SIGKILL the whole group led by ``pid``; fall back to the pid; ignore "already gone"."""
    try:
        os.killpg(pid, signals.SIGKILL)
        return
    except ProcessLookupError:
        return
    except OSError:
        pass
    try:
        os.kill(pid, signals.SIGKILL)
    except OSError:
        pass


def track_process_group(pid: int) -> None:
    _TRACKED_GROUPS.add(pid)


def untrack_process_group(pid: int) -> None:
    _TRACKED_GROUPS.discard(pid)


@contextlib.contextmanager
def starting_shell() -> Iterator[None]:
    """Around starting a shell and tracking its group: an exit signal deferred meanwhile is raised
    again at the end (see the module docstring)."""
    _STARTING.append(None)
    try:
        yield
    finally:
        _STARTING.pop()
        if not _STARTING:
            while _DEFERRED_SIGNALS:
                os.kill(os.getpid(), _DEFERRED_SIGNALS.pop())


def defer_exit_signal(signum: int) -> bool:
    """For the SIGHUP/SIGTERM handler: True when a shell is being started and the signal will be
    raised again once its group is tracked; False: handle it now."""
    if not _STARTING:
        return False
    _DEFERRED_SIGNALS.append(signum)
    if _STARTING:
        return True
    try:  # the start ended meanwhile (another thread): handle it now unless that end took it
        _DEFERRED_SIGNALS.remove(signum)
    except ValueError:
        return True
    return False


def kill_tracked_process_groups() -> None:
    """Kill every bash group still running (pi shutdown)."""
    for pid in list(_TRACKED_GROUPS):
        kill_process_group(pid)
    _TRACKED_GROUPS.clear()


atexit.register(kill_tracked_process_groups)
