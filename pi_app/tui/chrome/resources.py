"""What the interactive shell shows of the session's loaded resources.

Context files, skills, prompt templates, extensions and their commands come from the session's
resource loader and extension runner when it has them (``pi_app.coding``); this module only reads
them for the start-up header and for slash-command autocomplete, tolerating sessions built
without a loader (tests, SDK hosts). Nothing here loads or executes a resource.
"""

from __future__ import annotations

import os
from typing import Any

from pi_app.tui.editor.autocomplete import CommandInfo


def _loader(app: Any) -> Any:
    return getattr(app.session, "resource_loader", None) if app.session is not None else None


def _items(result: Any) -> list[Any]:
    if result is None:
        return []
    items = getattr(result, "items", result)
    return list(items) if isinstance(items, list | tuple) else []


def _short(path: str, cwd: str) -> str:
    home = os.path.expanduser("~")
    if path.startswith(cwd + os.sep):
        return os.path.relpath(path, cwd)
    if home and path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


def context_files(app: Any) -> list[str]:
    if app.options.no_context_files or app.session is None:  # the header lists them once it is ready
        return []
    loader = _loader(app)
    files: list[Any] = []
    if loader is not None and hasattr(loader, "get_agents_files"):
        files = _items(loader.get_agents_files())
    else:
        from pi_app.coding.resources.context_files import load_context_files

        try:
            files = load_context_files(app.cwd, app.agent_dir)
        except Exception:
            files = []
    return [_short(str(getattr(f, "path", f)), app.cwd) for f in files]


def skills(app: Any) -> list[Any]:
    loader = _loader(app)
    return _items(loader.get_skills()) if loader is not None and hasattr(loader, "get_skills") else []


def prompt_templates(app: Any) -> list[Any]:
    loader = _loader(app)
    return _items(loader.get_prompts()) if loader is not None and hasattr(loader, "get_prompts") else []


def themes(app: Any) -> list[Any]:
    """Theme specs the loader found (CLI, packages, settings arrays, trusted project, user dir)."""
    loader = _loader(app)
    return _items(loader.get_themes()) if loader is not None and hasattr(loader, "get_themes") else []


def extension_paths(app: Any) -> list[str]:
    """The loaded extensions' paths as the header lists them (``~`` for home, cwd-relative)."""
    return [_short(str(getattr(e, "path", e)), app.cwd) for e in extensions(app)]


def extensions(app: Any) -> list[Any]:
    loader = _loader(app)
    if loader is None or not hasattr(loader, "get_extensions"):
        return []
    result = loader.get_extensions()
    return list(getattr(result, "extensions", None) or [])


def extension_commands(app: Any) -> list[Any]:
    """Registered extension commands (objects with ``name``, ``description``)."""
    runner = getattr(app.session, "extension_runner", None) if app.session is not None else None
    if runner is None:
        return []
    for attribute in ("get_registered_commands", "get_commands", "commands"):
        value = getattr(runner, attribute, None)
        if value is None:
            continue
        try:
            found = value() if callable(value) else value
        except Exception:
            return []
        if isinstance(found, dict):
            found = list(found.values())
        return list(found or [])
    return []


def extra_command_infos(app: Any) -> list[CommandInfo]:
    """Slash commands beyond the built-ins: templates, extension commands, ``skill:<name>``."""
    infos = [
        CommandInfo(getattr(t, "name", ""), getattr(t, "description", None) or None)
        for t in prompt_templates(app)
    ]
    ext = getattr(app, "ext", None)
    if ext is not None:  # with argument completions (``ext_host``)
        infos += ext.command_infos()
    else:
        infos += [
            CommandInfo(getattr(c, "name", ""), getattr(c, "description", None) or None)
            for c in extension_commands(app)
        ]
    enabled = True
    if app.settings is not None and hasattr(app.settings, "get_enable_skill_commands"):
        enabled = bool(app.settings.get_enable_skill_commands())
    if enabled:
        infos += [
            CommandInfo(f"skill:{getattr(s, 'name', '')}", getattr(s, "description", None) or None)
            for s in skills(app)
        ]
    return [info for info in infos if info.name]
