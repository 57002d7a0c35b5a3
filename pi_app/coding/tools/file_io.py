"""Local file access shared by the file tools: atomic writes and errno names.

``atomic_write_bytes`` never truncates the target in place (spec 50 R-WRITE-05, D-46): it writes a
temporary file next to the *real* target (symlinks followed, so a link stays a link), copies the old
file's permission bits (a new file gets the usual umask-based mode), fsyncs and ``os.replace``s.
If anything fails before the replace, the original file is untouched and the temp file removed.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile


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
    """Replace ``path`` (following symlinks) with ``data`` atomically, keeping its permission bits."""
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    directory = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    fd, temp_path = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_path, mode)
        os.replace(temp_path, target)
    except BaseException:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise
