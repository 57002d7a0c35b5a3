"""Where session bytes live: the ``SessionStorage`` protocol and its implementations (D-36).

The manager never calls ``open()`` itself. ``JsonlSessionStorage`` is the real one: appends are
small synchronous writes with a flush; whole-file writes go through a temp file and
``os.replace`` so an interrupted rewrite never truncates a session. ``InMemorySessionStorage``
keeps files in a dict, which makes most tests disk-free.

Text is read and written as UTF-8 with ``surrogateescape`` so bytes that are not valid UTF-8
survive a rewrite unchanged.

The third implementation, ``sqlite_store.SqliteSessionStorage`` (issue 25), keeps sessions in one
SQLite database. ``default_session_storage`` is the storage used wherever none is passed: JSONL
unless ``set_default_session_storage`` chose another; on first use it follows the ``sessionStore``
setting or ``PI_SESSION_STORE`` (``store_choice``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from pi_app.coding.filelock import atomic_write

ENCODING = "utf-8"
ERRORS = "surrogateescape"


class SessionWriteError(OSError):
    """A session line or file could not be written; the entry stays in memory."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"Session could not be saved: {reason} ({path})")
        self.path = path
        self.reason = reason


class SessionStoreError(RuntimeError):
    """The configured session store cannot be used at all (a corrupt or too new database); the
    message is one line for the user, and the store was left as it was."""


@runtime_checkable
class SessionStorage(Protocol):
    def exists(self, path: str) -> bool: ...

    def load(self, path: str) -> str | None:
        """The whole text of ``path``, or None when it does not exist."""
        ...

    def append(self, path: str, text: str) -> None: ...

    def rewrite(self, path: str, text: str) -> None:
        """Replace ``path`` with ``text`` atomically (creating parent folders)."""
        ...

    def rename(self, path: str, new_path: str) -> None: ...

    def copy(self, path: str, new_path: str) -> None: ...

    def list_files(self, directory: str, suffix: str = ".jsonl") -> list[str]:
        """Absolute paths of the files in ``directory`` ending with ``suffix`` (missing dir -> [])."""
        ...

    def mtime(self, path: str) -> float: ...

    def iter_lines(self, path: str) -> Iterator[str]:
        """The lines of ``path`` one at a time (streaming; never the whole file in one string)."""
        ...


@runtime_checkable
class RemovableSessionStorage(Protocol):
    """A storage whose sessions are not files on disk, so removing one is its own operation."""

    def delete(self, path: str) -> None: ...


class JsonlSessionStorage:
    """Session files on the local disk."""

    def exists(self, path: str) -> bool:
        return os.path.isfile(path)

    def load(self, path: str) -> str | None:
        try:
            with open(path, encoding=ENCODING, errors=ERRORS, newline="") as fh:
                return fh.read()
        except FileNotFoundError:
            return None

    def append(self, path: str, text: str) -> None:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding=ENCODING, errors=ERRORS, newline="\n") as fh:
                fh.write(text)
                fh.flush()
        except OSError as exc:
            raise SessionWriteError(path, exc.strerror or str(exc)) from exc

    def rewrite(self, path: str, text: str) -> None:
        try:
            atomic_write(path, text.encode(ENCODING, ERRORS))
        except OSError as exc:
            raise SessionWriteError(path, exc.strerror or str(exc)) from exc

    def rename(self, path: str, new_path: str) -> None:
        os.replace(path, new_path)

    def copy(self, path: str, new_path: str) -> None:
        with open(path, "rb") as src:
            data = src.read()
        atomic_write(new_path, data)

    def list_files(self, directory: str, suffix: str = ".jsonl") -> list[str]:
        # scandir: the entry's type comes with the listing, no stat per file (500 sessions: the
        # /resume picker's first row waited on these)
        try:
            with os.scandir(directory) as entries:
                return [entry.path for entry in entries if entry.name.endswith(suffix) and entry.is_file()]
        except OSError:
            return []

    def mtime(self, path: str) -> float:
        try:
            return os.stat(path).st_mtime
        except OSError:
            return 0.0

    def iter_lines(self, path: str) -> Iterator[str]:
        try:
            with open(path, encoding=ENCODING, errors=ERRORS, newline="") as fh:
                for line in fh:
                    yield line.rstrip("\n")
        except OSError:
            return


_default_storage: SessionStorage | None = None


def default_session_storage() -> SessionStorage:
    """The storage sessions use when none is given (``JsonlSessionStorage`` unless configured)."""
    global _default_storage
    if _default_storage is None:
        from pi_app.coding.session.store_choice import configured_storage

        _default_storage = configured_storage()
    return _default_storage


def set_default_session_storage(storage: SessionStorage | None) -> None:
    """Make ``storage`` the default (None: back to JSONL files)."""
    global _default_storage
    _default_storage = storage


class InMemorySessionStorage:
    """Files in a dict: the same behaviour without touching the disk."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self._mtimes: dict[str, float] = {}
        self._clock = 0.0

    def _touch(self, path: str) -> None:
        self._clock += 1.0
        self._mtimes[path] = self._clock

    def exists(self, path: str) -> bool:
        return path in self.files

    def load(self, path: str) -> str | None:
        return self.files.get(path)

    def append(self, path: str, text: str) -> None:
        self.files[path] = self.files.get(path, "") + text
        self._touch(path)

    def rewrite(self, path: str, text: str) -> None:
        self.files[path] = text
        self._touch(path)

    def rename(self, path: str, new_path: str) -> None:
        self.files[new_path] = self.files.pop(path)
        self._mtimes[new_path] = self._mtimes.pop(path, 0.0)

    def copy(self, path: str, new_path: str) -> None:
        self.files[new_path] = self.files[path]
        self._touch(new_path)

    def list_files(self, directory: str, suffix: str = ".jsonl") -> list[str]:
        prefix = directory.rstrip("/") + "/"
        return [
            p
            for p in self.files
            if p.startswith(prefix) and "/" not in p[len(prefix) :] and p.endswith(suffix)
        ]

    def mtime(self, path: str) -> float:
        return self._mtimes.get(path, 0.0)

    def iter_lines(self, path: str) -> Iterator[str]:
        yield from self.files.get(path, "").split("\n")
