"""Finding sessions on disk: per-project listing, all projects, most recent, id prefixes (R-LIST).

Listing streams each file line by line and is best effort: a file whose first line is not a
session header, or that cannot be read, is skipped silently. ``SessionInfo.modified`` is the
newest user/assistant message time, so touching a file does not reorder the list.

Issue 20: the files are read newest first (by modification time) and each summary is handed to
``on_info`` as soon as it is read, so the ``/resume`` picker shows rows while the rest load.
Summaries are cached for the process by path, size and modification time: a second listing
reads only the files that changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pi_app.ai.util.content_text import content_text
from pi_app.ai.util.sanitize import loads_clean
from pi_app.coding import paths
from pi_app.coding.session.format import is_header, ms_from_iso
from pi_app.coding.session.storage import (
    JsonlSessionStorage,
    RemovableSessionStorage,
    SessionStorage,
    default_session_storage,
)

ProgressCallback = Callable[[int, int], None]
InfoCallback = Callable[["SessionInfo"], None]

FIRST_LINE_LIMIT = 64 * 1024


@dataclass
class SessionInfo:
    path: str
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str


def _dt(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def build_session_info(path: str, storage: SessionStorage | None = None) -> SessionInfo | None:
    """Read one file (streaming) into a ``SessionInfo``; None when it is not a session file."""
    storage = storage or default_session_storage()
    header: dict[str, Any] | None = None
    name: str | None = None
    count = 0
    first_message = ""
    texts: list[str] = []
    newest_ms = 0
    for line in storage.iter_lines(path):
        if not line.strip():
            continue
        try:
            raw = loads_clean(line)
        except (ValueError, RecursionError):
            if header is None:
                return None
            continue
        if header is None:
            if not is_header(raw):
                return None
            header = raw
            continue
        if not isinstance(raw, dict):
            continue
        kind = raw.get("type")
        if kind == "session_info":
            value = raw.get("name")
            name = value.strip() if isinstance(value, str) and value.strip() else None
        elif kind == "message":
            count += 1
            msg = raw.get("message")
            if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
                continue
            text = content_text(msg.get("content"), " ")
            if msg.get("role") == "user" and not first_message and text:
                first_message = text
            if text:
                texts.append(text)
            ts = msg.get("timestamp")
            ms = (
                ts
                if isinstance(ts, int | float) and not isinstance(ts, bool)
                else ms_from_iso(raw.get("timestamp"))
            )
            newest_ms = max(newest_ms, int(ms))
    if header is None:
        return None
    created_ms = ms_from_iso(header.get("timestamp"))
    if not newest_ms:
        newest_ms = created_ms or int(storage.mtime(path) * 1000)
    parent = header.get("parentSession")
    cwd = header.get("cwd")
    return SessionInfo(
        path=path,
        id=str(header["id"]),
        cwd=cwd if isinstance(cwd, str) else "",
        name=name,
        parent_session_path=parent if isinstance(parent, str) and parent else None,
        created=_dt(created_ms or storage.mtime(path) * 1000),
        modified=_dt(newest_ms),
        message_count=count,
        first_message=first_message or "(no messages)",
        all_messages_text=" ".join(texts),
    )


@runtime_checkable
class SessionIndex(Protocol):
    """A storage that keeps per-session summaries, so listing need not read every line."""

    def session_infos(self, directory: str | None = None) -> list[SessionInfo]:
        """The sessions of ``directory`` (all when None), newest activity first."""
        ...


class _Hit(Protocol):
    path: str


@runtime_checkable
class SessionSearchIndex(Protocol):
    """A storage with a full-text index of message text (the SQLite store's FTS5)."""

    def search(self, text: str, limit: int = 1000) -> Sequence[_Hit]: ...


def content_search(storage: SessionStorage | None = None) -> Callable[[str], dict[str, int] | None] | None:
    """For the session picker: query → {session path: rank, 0 best} from ``storage``'s full-text
    index (the default storage when None), or None when it has no index."""
    store = storage or default_session_storage()
    if not isinstance(store, SessionSearchIndex):
        return None

    def search(query: str) -> dict[str, int] | None:
        return {hit.path: rank for rank, hit in enumerate(store.search(query))}

    return search


def _indexed(
    storage: SessionIndex, directory: str | None, on_progress: ProgressCallback | None
) -> list[SessionInfo]:
    infos = storage.session_infos(directory)
    if on_progress is not None:  # every file was looked at, as a file-by-file listing reports
        total = len(infos)
        if directory is not None and isinstance(storage, SessionStorage):
            total = len(storage.list_files(directory))
        on_progress(total, total)
    return infos


StatKey = tuple[int, int, int]
_summaries: dict[str, tuple[StatKey, SessionInfo | None]] = {}


def _stat_key(path: str) -> StatKey | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _newest_first(files: list[str]) -> list[tuple[str, StatKey | None]]:
    keyed = [(path, _stat_key(path)) for path in files]
    keyed.sort(key=lambda item: item[1][0] if item[1] is not None else 0, reverse=True)
    return keyed


def cached_session_info(path: str, storage: SessionStorage, key: StatKey | None = None) -> SessionInfo | None:
    """``build_session_info``, from the process's cache while the file's size, modification time
    and inode are unchanged (only for files on disk; other storages read every time)."""
    if key is None or not isinstance(storage, JsonlSessionStorage):
        return build_session_info(path, storage)
    cached = _summaries.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    info = build_session_info(path, storage)
    _summaries[path] = (key, info)
    return info


def _read_infos(
    files: list[str],
    storage: SessionStorage,
    on_progress: ProgressCallback | None,
    on_info: InfoCallback | None,
    skip_errors: bool,
) -> list[SessionInfo]:
    infos: list[SessionInfo] = []
    ordered = _newest_first(files)
    for i, (path, key) in enumerate(ordered, 1):
        try:
            info = cached_session_info(path, storage, key)
        except OSError:
            if not skip_errors:
                raise
            info = None
        if info is not None:
            infos.append(info)
            if on_info is not None:
                on_info(info)
        if on_progress is not None:
            on_progress(i, len(ordered))
    infos.sort(key=lambda s: s.modified, reverse=True)
    return infos


def list_sessions_in(
    directory: str,
    storage: SessionStorage | None = None,
    on_progress: ProgressCallback | None = None,
    on_info: InfoCallback | None = None,
) -> list[SessionInfo]:
    storage = storage or default_session_storage()
    if isinstance(storage, SessionIndex):
        return _indexed(storage, directory, on_progress)
    return _read_infos(storage.list_files(directory), storage, on_progress, on_info, True)


def list_all_sessions(
    root: str | None = None,
    storage: SessionStorage | None = None,
    on_progress: ProgressCallback | None = None,
    on_info: InfoCallback | None = None,
) -> list[SessionInfo]:
    storage = storage or default_session_storage()
    base = root or str(paths.sessions_root())
    if isinstance(storage, SessionIndex):
        prefix = base.rstrip("/") + "/"
        return [
            info
            for info in _indexed(storage, None, on_progress)
            if info.path.startswith(prefix) and info.path[len(prefix) :].count("/") == 1
        ]
    try:
        dirs = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    except OSError:
        dirs = []
    files = [f for d in dirs for f in storage.list_files(os.path.join(base, d))]
    return _read_infos(files, storage, on_progress, on_info, False)


def read_header(path: str, storage: SessionStorage | None = None) -> dict[str, Any] | None:
    """The header of ``path`` if its first line (up to 64 KiB) is one."""
    storage = storage or default_session_storage()
    for line in storage.iter_lines(path):
        if not line.strip():
            continue
        if len(line) > FIRST_LINE_LIMIT:
            return None
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError):
            return None
        return raw if is_header(raw) else None
    return None


def find_most_recent_session(directory: str, storage: SessionStorage | None = None) -> str | None:
    """The valid session file with the newest mtime in ``directory`` (R-LIST-05)."""
    storage = storage or default_session_storage()
    candidates = [p for p in storage.list_files(directory) if read_header(p, storage) is not None]
    if not candidates:
        return None
    return max(candidates, key=storage.mtime)


def looks_like_path(arg: str) -> bool:
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


@dataclass
class SessionMatch:
    info: SessionInfo
    local: bool  # found in the current project's session dir


def find_session_by_prefix(
    prefix: str, session_dir: str, storage: SessionStorage | None = None, sessions_root: str | None = None
) -> SessionMatch | None:
    """First session whose id starts with ``prefix``: the current project first, then every project."""
    for info in list_sessions_in(session_dir, storage):
        if info.id.startswith(prefix):
            return SessionMatch(info, True)
    for info in list_all_sessions(sessions_root, storage):
        if info.id.startswith(prefix):
            return SessionMatch(info, Path(info.path).parent == Path(session_dir))
    return None


def delete_session_file(path: str) -> str:
    """Remove a session file from the picker (R-LIST-10): a ``trash`` CLI when one is on PATH (so it
    can be restored), else a plain delete. Returns ``"trash"`` or ``"deleted"``."""
    import shutil
    import subprocess

    storage = default_session_storage()
    if isinstance(storage, RemovableSessionStorage):
        storage.delete(path)
        return "deleted"
    trash = shutil.which("trash") or shutil.which("trash-put")
    if trash is not None:
        try:
            subprocess.run([trash, path], check=True, capture_output=True, timeout=10)
            return "trash"
        except (OSError, subprocess.SubprocessError):
            pass
    os.remove(path)
    return "deleted"
