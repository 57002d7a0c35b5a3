"""File checkpoints that follow the session tree (issue 27; no pi has them).

``attach_checkpoints(session, agent_dir)`` records every change the built-in tools make
(``recorder``) with the old contents in a content-addressed store (``store``); ``restore`` says what
another point of the tree had on disk and puts it back. ``collect_garbage`` is ``pi checkpoints gc``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_app.coding.checkpoints.recorder import CHECKPOINT_TYPE, CheckpointRecorder
from pi_app.coding.checkpoints.store import ContentStore

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession

__all__ = ["CHECKPOINT_TYPE", "CheckpointRecorder", "ContentStore", "attach_checkpoints", "collect_garbage"]


def store_root(agent_dir: Path) -> Path:
    return agent_dir / "checkpoints"


def attach_checkpoints(session: AgentSession, agent_dir: Path) -> CheckpointRecorder | None:
    """Start recording for this session unless ``checkpoints.enabled`` is false."""
    settings = session.settings_manager.get_checkpoint_settings()
    if not settings.enabled:
        return None
    return CheckpointRecorder(session, ContentStore(store_root(agent_dir), settings.max_file_bytes))


def referenced_digests(session_files: list[str]) -> set[str]:
    """Every content digest a checkpoint entry of these session files names."""
    import json

    digests: set[str] = set()
    for path in session_files:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if CHECKPOINT_TYPE not in line:
                        continue
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    data = entry.get("data") if entry.get("customType") == CHECKPOINT_TYPE else None
                    for record in (data or {}).get("files", []) if isinstance(data, dict) else []:
                        for key in ("before", "after"):
                            value = record.get(key) if isinstance(record, dict) else None
                            if isinstance(value, str) and len(value) == 64:
                                digests.add(value)
        except OSError:
            continue
    return digests


def collect_garbage(agent_dir: Path, sessions_root: Path) -> tuple[int, int]:
    """Remove stored contents no session file refers to; (objects removed, bytes freed)."""
    files = [str(p) for p in sessions_root.rglob("*.jsonl")] if sessions_root.is_dir() else []
    return ContentStore(store_root(agent_dir)).gc(referenced_digests(files))
