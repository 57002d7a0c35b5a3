"""Files that follow the session tree: what each point of the tree had on disk, and going back to it.

The files at an entry are read off the checkpoints on the path from the root to it: a file's state
is the ``after`` of the last checkpoint on that path that touched it; a file that no checkpoint on
the path touched is as it was before pi first changed it (the ``before`` of its earliest checkpoint
anywhere in the session, since every branch starts from the same files).

``plan_restore(session, from_id, to_id)`` compares the disk with the files at ``to_id``. A file
whose disk content is not what pi left at ``from_id`` was changed outside pi since: it is a
*conflict*, restored only when the user says so. ``apply_restore`` writes (or deletes) the files
and records the restore as a checkpoint of its own, so that moving back undoes it.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.coding.checkpoints.recorder import (
    CHECKPOINT_TYPE,
    TOO_BIG,
    State,
    absolute_path,
    read_state,
)
from pi_app.coding.checkpoints.store import ContentStore

if TYPE_CHECKING:
    from pi_app.coding.checkpoints.recorder import CheckpointRecorder


def _checkpoints(entries: Sequence[Any]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for entry in entries:
        if entry.type == "custom" and entry.raw.get("customType") == CHECKPOINT_TYPE:
            data = entry.raw.get("data")
            files = data.get("files") if isinstance(data, dict) else None
            if isinstance(files, list):
                out.append([f for f in files if isinstance(f, dict) and isinstance(f.get("path"), str)])
    return out


def files_at(all_entries: Sequence[Any], branch: Sequence[Any]) -> dict[str, State]:
    """Every file any checkpoint of the session touched, as it was at the end of ``branch``."""
    states: dict[str, State] = {}
    for files in _checkpoints(all_entries):  # file order: the earliest checkpoint comes first
        for record in files:
            states.setdefault(record["path"], record.get("before"))
    for files in _checkpoints(branch):
        for record in files:
            states[record["path"]] = record.get("after")
    return states


@dataclass(frozen=True)
class FileChange:
    path: str
    disk: State  # what is on disk now
    target: State  # what the chosen point had
    conflict: bool  # changed outside pi since pi last wrote it


@dataclass
class RestorePlan:
    changes: list[FileChange] = field(default_factory=list)
    unrestorable: list[str] = field(default_factory=list)  # too big to have been kept

    @property
    def conflicts(self) -> list[FileChange]:
        return [c for c in self.changes if c.conflict]

    def __bool__(self) -> bool:
        return bool(self.changes or self.unrestorable)


@dataclass
class RestoreResult:
    restored: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def plan_restore(recorder: CheckpointRecorder, from_id: str | None, to_id: str | None) -> RestorePlan:
    manager = recorder.session.session_manager
    entries = manager.get_entries()
    now = files_at(entries, manager.get_branch(from_id) if from_id else [])
    target = files_at(entries, manager.get_branch(to_id) if to_id else [])
    plan = RestorePlan()
    for path in sorted(target):
        wanted = target[path]
        disk = read_state(recorder.store, absolute_path(path, recorder.cwd))
        if disk == wanted:
            continue
        if wanted == TOO_BIG or (disk == TOO_BIG and wanted is None):
            plan.unrestorable.append(path)
            continue
        expected = now.get(path, wanted)
        plan.changes.append(FileChange(path, disk, wanted, conflict=disk != expected))
    return plan


def apply_restore(
    recorder: CheckpointRecorder, plan: RestorePlan, *, overwrite_conflicts: bool = False
) -> RestoreResult:
    result = RestoreResult()
    records: list[dict[str, State]] = []
    for change in plan.changes:
        if change.conflict and not overwrite_conflicts:
            result.skipped.append(change.path)
            continue
        full = absolute_path(change.path, recorder.cwd)
        try:
            _put_back(recorder.store, full, change.target)
        except (OSError, KeyError) as exc:
            result.failed.append((change.path, _reason(exc)))
            continue
        result.restored.append(change.path)
        records.append({"path": change.path, "before": change.disk, "after": change.target})
    if records:
        recorder.record(records, tool=None, reason="restore")
    return result


def _put_back(store: ContentStore, full: str, state: State) -> None:
    from pi_app.coding.tools.file_io import atomic_write_bytes

    if state is None:
        if os.path.lexists(full):
            os.unlink(full)
        return
    data = store.get(state)
    os.makedirs(os.path.dirname(full) or ".", exist_ok=True)
    atomic_write_bytes(full, data)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return "its saved content is missing from the checkpoint store"
    return exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)


def diff_text(recorder: CheckpointRecorder, plan: RestorePlan, max_lines: int = 400) -> str:
    """A unified diff from the disk to the restored files, for the user to look at."""
    lines: list[str] = []
    for change in plan.changes:
        old = _text(recorder.store, change.disk)
        new = _text(recorder.store, change.target)
        marker = " (changed outside pi)" if change.conflict else ""
        lines.append(f"--- {change.path}{marker}")
        lines.extend(
            difflib.unified_diff(
                old, new, fromfile=f"{change.path} (now)", tofile=f"{change.path} (restored)", lineterm=""
            )
        )
        if len(lines) > max_lines:
            lines = [*lines[:max_lines], "…"]
            break
    return "\n".join(lines)


def _text(store: ContentStore, state: State) -> list[str]:
    if state is None or state == TOO_BIG:
        return []
    try:
        return store.get(state).decode("utf-8", "replace").splitlines()
    except KeyError:
        return ["(content missing from the checkpoint store)"]
