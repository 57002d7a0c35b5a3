"""Moving sessions between JSONL files and the SQLite store, losslessly (issue 25).

``import_jsonl`` puts every ``*.jsonl`` file of the given files and folders (folders searched
recursively) into the store under its absolute path, so a session keeps the path pi already knows
it by. ``export_jsonl`` writes each stored session back to a file: to its own path, or below
another root folder keeping its path relative to the sessions root. Text goes through the store
as UTF-8 with ``surrogateescape``, so any bytes (torn lines, invalid UTF-8, missing final newline)
come back identical.

Neither direction overwrites a different session silently: an existing target with other content
is reported as a conflict and left alone unless ``replace`` is given; identical content counts as
unchanged. Files are written atomically (temp file + ``os.replace``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pi_app.coding.filelock import atomic_write
from pi_app.coding.session.sqlite_store import SqliteSessionStorage
from pi_app.coding.session.storage import ENCODING, ERRORS


@dataclass
class TransferReport:
    """What an import or export did, path by path."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def summary(self, verb: str) -> str:
        parts = [f"{verb} {len(self.written)} session(s)"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} unchanged")
        if self.conflicts:
            parts.append(f"{len(self.conflicts)} left alone (different content exists; use --replace)")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        return ", ".join(parts)


def jsonl_files(sources: Iterable[str | Path]) -> Iterator[Path]:
    """The ``*.jsonl`` files among ``sources`` (folders searched recursively), sorted per folder."""
    for source in sources:
        path = Path(source).expanduser().absolute()
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        elif path.is_file():
            yield path


BATCH = 500  # sessions per transaction on import (one commit each would pay the FTS merge per file)


def import_jsonl(
    store: SqliteSessionStorage, sources: Iterable[str | Path], replace: bool = False
) -> TransferReport:
    report = TransferReport()
    files = list(jsonl_files(sources))
    for start in range(0, len(files), BATCH):
        with store.batch():
            _import_files(store, files[start : start + BATCH], replace, report)
    return report


def _import_files(
    store: SqliteSessionStorage, files: list[Path], replace: bool, report: TransferReport
) -> None:
    for file in files:
        key = str(file)
        try:
            text = file.read_bytes().decode(ENCODING, ERRORS)
        except OSError as exc:
            report.failed.append((key, exc.strerror or str(exc)))
            continue
        existing = store.load(key)
        if existing == text:
            report.unchanged.append(key)
            continue
        if existing is not None and not replace:
            report.conflicts.append(key)
            continue
        store.rewrite(key, text)
        report.written.append(key)


def export_target(path: str, sessions_root: str | None, to: str | None) -> str:
    """Where the stored session ``path`` is written: itself, or re-rooted under ``to``."""
    if to is None:
        return path
    if sessions_root is not None:
        root = sessions_root.rstrip("/") + "/"
        if path.startswith(root):
            return os.path.join(to, path[len(root) :])
    return os.path.join(to, os.path.basename(os.path.dirname(path)), os.path.basename(path))


def export_jsonl(
    store: SqliteSessionStorage,
    to: str | Path | None = None,
    sessions_root: str | Path | None = None,
    replace: bool = False,
) -> TransferReport:
    report = TransferReport()
    root = str(sessions_root) if sessions_root is not None else None
    for directory in store.directories():
        for path in store.list_files(directory, suffix=""):
            target = export_target(path, root, str(to) if to is not None else None)
            text = store.load(path)
            if text is None:
                continue
            data = text.encode(ENCODING, ERRORS)
            try:
                with open(target, "rb") as fh:
                    existing: bytes | None = fh.read()
            except FileNotFoundError:
                existing = None
            except OSError as exc:
                report.failed.append((target, exc.strerror or str(exc)))
                continue
            if existing == data:
                report.unchanged.append(target)
                continue
            if existing is not None and not replace:
                report.conflicts.append(target)
                continue
            try:
                atomic_write(target, data)
            except OSError as exc:
                report.failed.append((target, exc.strerror or str(exc)))
                continue
            report.written.append(target)
    return report
