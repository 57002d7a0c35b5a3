"""Cross-process locking and atomic writes for pi's shared JSON files (decision D-25).

Used for ``settings.json``, ``auth.json``, ``trust.json`` and ``models-store.json``. The lock is a
directory ``<file>.lock`` (created with ``mkdir``, which is atomic), the convention the TypeScript
pi's lock library uses, so both programs respect each other's locks. A lock older than
``STALE_AFTER_S`` is considered abandoned (its holder crashed) and is broken.

``atomic_write`` writes a temp file in the same directory, fsyncs it and ``os.replace``s it over
the target, so an interrupted write never truncates the file. A replace needs only the folder's
permission, so ``check_writable`` first opens an existing target for writing: a read-only file
(0444) gets the EACCES the user asked for instead of being replaced (issue 19 item 4).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

STALE_AFTER_S = 10.0
RETRY_INTERVAL_S = 0.02
DEFAULT_TIMEOUT_S = 10.0


class LockTimeout(TimeoutError):
    """The lock could not be taken in time."""


@contextlib.contextmanager
def file_lock(path: str | Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold ``<path>.lock`` for the duration of the block (creates the parent dir if needed)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_dir = target.with_name(target.name + ".lock")
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            lock_dir.mkdir()
            break
        except FileExistsError:
            try:
                age = time.time() - lock_dir.stat().st_mtime
            except FileNotFoundError:
                continue
            if age > STALE_AFTER_S:
                with contextlib.suppress(OSError):
                    lock_dir.rmdir()
                continue
            if time.monotonic() > deadline:
                raise LockTimeout(f"Timed out waiting for lock {lock_dir}") from None
            time.sleep(RETRY_INTERVAL_S)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock_dir.rmdir()


def check_writable(path: str | Path) -> None:
    """Raise what opening an existing ``path`` for writing raises (``PermissionError`` for a
    read-only file; nothing for a missing one). Never blocks on a FIFO and never truncates."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    os.close(fd)


def atomic_write(
    path: str | Path, data: str | bytes, mode: int | None = None, encoding: str = "utf-8"
) -> None:
    """Replace ``path`` with ``data`` atomically. ``mode`` sets permissions (default: keep or 0644).
    An existing file that may not be written is left alone (``PermissionError``)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    check_writable(target)
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
