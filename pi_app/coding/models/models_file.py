"""Programmatic edits of ``models.json``: add, replace or remove one provider entry.

Hosts that provision their own endpoints (``pi pods``, an SDK script that starts a local server)
call ``set_models_provider(path, name, entry)`` instead of writing the file themselves. Under the
file's lock (decision D-25) it re-reads the file, replaces ``providers[name]`` (or deletes it when
``entry`` is None), validates the result with the same schema and semantic checks the loader uses,
and writes it atomically. A file that does not parse is never overwritten (R-PHIL-11): the call
raises ``ModelsFileError`` naming the path and the problem, and the file stays as it was.

Decision: the rewritten file is plain JSON with two-space indentation; ``//`` comments of a
hand-written file do not survive an edit through this function (pi 0.73.1 accepts them on load, so
the file stays loadable by both programs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_app.coding.filelock import atomic_write, file_lock
from pi_app.coding.models.model_config import parse_models_config, strip_json_comments


class ModelsFileError(Exception):
    """``models.json`` could not be read, or the edit would make it invalid; nothing was written."""


def _read_raw(target: Path) -> dict[str, Any]:
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"providers": {}}
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelsFileError(f"cannot read {target}: {exc}") from None
    if not text.strip():
        return {"providers": {}}
    try:
        raw = json.loads(strip_json_comments(text))
    except (ValueError, RecursionError) as exc:
        raise ModelsFileError(f"{target} is not valid JSON ({exc}); it was left unchanged") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("providers", {}), dict):
        raise ModelsFileError(f"{target} has no providers object; it was left unchanged")
    raw.setdefault("providers", {})
    return raw


def set_models_provider(path: str | Path, name: str, entry: Mapping[str, Any] | None) -> bool:
    """Set ``providers[name]`` to ``entry`` (camelCase keys, as in the file) or remove it (None).

    Returns True when the file changed. Other providers and unknown top-level keys are kept.
    """
    target = Path(path)
    with file_lock(target):
        raw = _read_raw(target)
        providers: dict[str, Any] = raw["providers"]
        before = providers.get(name)
        if entry is None:
            if name not in providers:
                return False
            del providers[name]
        else:
            providers[name] = dict(entry)
            if before == providers[name]:
                return False
        text = json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
        _, error = parse_models_config(text, target)
        if error:
            raise ModelsFileError(error.replace("\n\n", "; "))
        atomic_write(target, text)
    return True


def get_models_provider(path: str | Path, name: str) -> dict[str, Any] | None:
    """The raw entry ``providers[name]`` of ``models.json`` (None when absent or unreadable)."""
    try:
        raw = _read_raw(Path(path))
    except ModelsFileError:
        return None
    entry = raw["providers"].get(name)
    return dict(entry) if isinstance(entry, dict) else None
