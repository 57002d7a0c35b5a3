"""Reading ``settings.json`` files: the one JSON reader of settings, and the start-up peek.

``SettingsManager`` (``pi_app.coding.settings``) reads each scope through ``read_json_object`` and
``parse_json_object``. This module imports no pydantic, so the app can ask for the theme of its
first frame with ``startup_theme`` before the session (and its manager) exists; once the manager is
there the app asks it (``SettingsManager.get_theme``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_app.coding import paths


class SettingsParseError(ValueError):
    pass


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The object in ``path``; None when missing; SettingsParseError when unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsParseError(exc.strerror or str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise SettingsParseError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    return parse_json_object(text)


def parse_json_object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise SettingsParseError(str(exc)) from exc
    if not isinstance(data, dict):
        raise SettingsParseError("the file does not contain a JSON object")
    return data


def _scope(path: Path) -> dict[str, Any]:
    try:
        return read_json_object(path) or {}
    except SettingsParseError:  # the manager uses defaults for such a scope
        return {}


def startup_theme(cwd: str | Path, agent_dir: Path) -> str | None:
    """The ``theme`` setting as ``SettingsManager.get_theme`` will give it (a project value other
    than null hides the global one; a value of the wrong type counts as unset; an empty name as
    none), without building a manager."""
    project = _scope(paths.project_settings_path(cwd))
    merged = project if project.get("theme") is not None else _scope(agent_dir / "settings.json")
    value = merged.get("theme")
    return value if isinstance(value, str) and value else None
