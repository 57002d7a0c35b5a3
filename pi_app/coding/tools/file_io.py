"""Local file access shared by the file tools: atomic writes, errno names and the regular-file gate.

``check_regular_file`` and ``open_regular_file`` refuse named pipes, sockets and devices before any
byte is read or written (issue 19 item 2): opening a FIFO blocks until someone opens the other end,
and ``/dev/zero`` never ends, so a tool touching one could never be aborted. The open is
non-blocking and re-checked on the descriptor, so a path swapped for a FIFO in between is caught too.

``atomic_write_bytes`` never truncates the target in place (spec 50 R-WRITE-05, D-46): it writes a
temporary file next to the *real* target (symlinks followed, so a link stays a link), copies the old
file's permission bits and owner (a new file gets the usual umask-based mode), fsyncs and
``os.replace``s. If anything fails before the replace, the original file is untouched and the temp
file removed. Two exceptions (issue 19 item 4): a file the process may not open for writing is
refused (EACCES, as pi 1.6.0), and a file with several hard links is rewritten in place, since a
replace would leave the other names with the old content.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotARegularFile(OSError):
    """The path is a pipe, socket or device: the file tools leave it alone."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", path)
        self.kind = kind


def _refuse_special(path: str, mode: int) -> None:
    for is_kind, kind in _KINDS:
        if is_kind(mode):
            raise NotARegularFile(path, kind)


def check_regular_file(path: str) -> None:
    """Raise ``NotARegularFile`` when ``path`` (links followed) is a pipe, socket or device; a
    missing path or a directory is left for the caller's own open to report."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    _refuse_special(path, mode)


def open_regular_file(path: str, flags: int = os.O_RDONLY) -> int:
    """A blocking descriptor on ``path`` opened with ``flags``; ``NotARegularFile`` for a pipe, socket
    or device (the open itself never waits for a FIFO's writer)."""
    check_regular_file(path)
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        _refuse_special(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def error_detail(exc: BaseException) -> str:
    """The sentence after "Could not <verb> file: <path>." that the model sees."""
    if isinstance(exc, NotARegularFile):
        return f"It is {exc.kind}, not a regular file."
    return f"Error code: {errno_name(exc)}."


def errno_name(exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code in errno.errorcode:
        return errno.errorcode[code]
    return type(exc).__name__


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Replace ``path`` (following symlinks) with ``data``, keeping its permission bits and owner.

    A file this process may not write is refused with the open's own error (EACCES for 0444, as
    pi 1.6.0 reports it), never replaced behind its mode. A file with more than one hard link is
    rewritten in place so every name sees the new content; any other is replaced atomically.
    """
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    try:
        fd = open_regular_file(target, os.O_WRONLY)
    except FileNotFoundError:
        _replace(target, data, 0o666 & ~_current_umask(), None)
        return
    try:
        info = os.fstat(fd)
        if info.st_nlink > 1:
            _write_in_place(fd, data)
            return
    finally:
        os.close(fd)
    _replace(target, data, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))


def _write_in_place(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _replace(target: str, data: bytes, mode: int, owner: tuple[int, int] | None) -> None:
    directory = os.path.dirname(target) or "."
    fd, temp_path = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_path, mode)
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            try:  # keep another user's file theirs (works for root; others keep their own id)
                os.chown(temp_path, *owner)
            except OSError:
                pass
        os.replace(temp_path, target)
    except BaseException:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise
