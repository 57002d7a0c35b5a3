"""The search back ends of ``grep`` and ``find`` (spec 50 §3.9, decision D-28).

Native: ``rg`` from the pinned ``ripgrep==14.1.0`` wheel (looked up next to ``sys.executable``
first, then ``<agent dir>/bin``, then ``PATH``; never downloaded). Fallback: a sorted ``os.scandir``
walk with ``ignore_rules`` and Python ``re``. ``PI_SEARCH_BACKEND=auto|native|python`` chooses
(``native`` fails loudly when rg is missing). Both produce the same records in the same order
(per-directory name order, depth first — what ``rg --sort path`` prints), skip ``.git`` and
symlinks, include hidden files and honour ignore files inside and outside git repositories.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.ignore_rules import IgnoreMatcher, matcher_for_root
from pi_app.coding.tools.shell import agent_bin_dir, kill_process_group
from pi_app.coding.tools.support import OperationAborted, raise_if_aborted

RG_UNAVAILABLE = "ripgrep (rg) is not available"
BINARY_SNIFF_BYTES = 8192
# Flags shared by grep and find: hidden files in, .git out, ignore files honoured everywhere, sorted.
RG_COMMON_FLAGS = ("--hidden", "--no-require-git", "--glob", "!.git", "--sort", "path")

Backend = Literal["native", "python"]


def _works(candidate: str) -> bool:
    try:
        done = subprocess.run([candidate, "--version"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@lru_cache(maxsize=1)
def find_rg() -> str | None:
    """Path of a working ``rg`` (memoised)."""
    exe = "rg.exe" if os.name == "nt" else "rg"
    candidates = [
        os.path.join(os.path.dirname(sys.executable), exe),
        os.path.join(sysconfig.get_path("scripts") or "", exe),
        os.path.join(agent_bin_dir(), exe),
        shutil.which("rg") or "",
    ]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and _works(candidate):
            return candidate
    return None


def selected_backend() -> Backend:
    mode = (os.environ.get("PI_SEARCH_BACKEND") or "auto").strip().lower()
    if mode == "python":
        return "python"
    if find_rg() is not None:
        return "native"
    if mode == "native":
        raise RuntimeError(RG_UNAVAILABLE)
    return "python"


def to_posix(path: str) -> str:
    return path.replace(os.sep, "/")


def display_text(path: str) -> str:
    """A path safe to print: undecodable bytes become U+FFFD."""
    return os.fsencode(path).decode("utf-8", "replace")


# --- native ----------------------------------------------------------------------------------------


@dataclass
class RgRun:
    exit_code: int | None
    stderr: str
    stopped: bool  # we killed rg because we had enough


async def run_rg(
    args: list[str], on_line: Callable[[bytes], bool], signal: AbortSignal | None, cwd: str | None = None
) -> RgRun:
    """Run rg, feeding each stdout line to ``on_line`` (return False to stop). Abort kills rg.

    ``cwd`` should be the search directory: rg matches ``--glob`` patterns relative to its own cwd.
    """
    raise_if_aborted(signal)
    rg = find_rg()
    if rg is None:
        raise RuntimeError(RG_UNAVAILABLE)
    try:
        proc = await asyncio.create_subprocess_exec(
            rg,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            cwd=cwd,
        )
    except OSError as exc:
        raise RuntimeError(f"Failed to run ripgrep: {exc}") from exc
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(proc.stderr.read())
    aborted = False

    def on_abort() -> None:
        nonlocal aborted
        aborted = True
        kill_process_group(proc.pid)

    remove = signal.add_listener(on_abort) if signal is not None else None
    stopped = False
    pending = b""
    try:
        while not stopped:
            chunk = await proc.stdout.read(256 * 1024)
            if not chunk:
                if pending:
                    on_line(pending)
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not on_line(line):
                    stopped = True
                    kill_process_group(proc.pid)
                    break
        while stopped and await proc.stdout.read(256 * 1024):
            pass  # drain what the killed rg left, so the pipe can close and wait() return
        await proc.wait()
        stderr = (await stderr_task).decode("utf-8", "replace")
    except BaseException:
        kill_process_group(proc.pid)
        stderr_task.cancel()
        raise
    finally:
        if remove is not None:
            remove()
    if aborted:
        raise OperationAborted()
    return RgRun(proc.returncode, stderr, stopped)


def rg_failure(run: RgRun) -> RuntimeError:
    message = run.stderr.strip().removeprefix("rg: ")
    return RuntimeError(message or f"ripgrep exited with code {run.exit_code}")


# --- pure Python -----------------------------------------------------------------------------------


def walk_files(
    root: str,
    signal: AbortSignal | None = None,
    prune_dir: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, str]]:
    """Yield ``(relative posix path, absolute path)`` of the non-ignored regular files below ``root``,
    in ``rg --sort path`` order. ``prune_dir(rel)`` may skip further directories."""

    def visit(directory: str, rel_dir: str, matcher: IgnoreMatcher) -> Iterator[tuple[str, str]]:
        raise_if_aborted(signal)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink():
                continue
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if not (is_dir or is_file) or matcher.is_ignored(entry.path, is_dir):
                continue
            if is_dir:
                if prune_dir is None or not prune_dir(rel):
                    yield from visit(entry.path, rel, matcher.child(entry.path))
            else:
                yield rel, entry.path

    yield from visit(root, "", matcher_for_root(root))


def is_binary_file(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"\x00" in handle.read(BINARY_SNIFF_BYTES)
    except OSError:
        return True


def compile_search_regex(pattern: str, ignore_case: bool, literal: bool) -> re.Pattern[str]:
    try:
        return re.compile(re.escape(pattern) if literal else pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ValueError(f"regex parse error: {exc}") from None
