"""What the interactive shell shows of the session's loaded resources.

Context files, skills, prompt templates, extensions and their commands come from the session's
resource loader and the extension host when it has them (``pi_app.coding``); this module only reads
them for the start-up header and for slash-command autocomplete, tolerating sessions built
without a loader (tests, SDK hosts). Nothing here loads or executes a resource.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from pi_app.tui.editor.autocomplete import CommandInfo

if TYPE_CHECKING:
    from pathlib import Path

    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.extensions.types import Extension
    from pi_app.coding.launch import LaunchOptions
    from pi_app.coding.resources.loader import ResourceLoader
    from pi_app.coding.resources.prompt_templates import PromptTemplate
    from pi_app.coding.resources.skills import Skill
    from pi_app.coding.resources.themes import ThemeSpec
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.extensions.host import AppExtensions


class ResourceHost(Protocol):
    """What reading the loaded resources needs of the app."""

    session: AgentSession | None
    settings: SettingsManager | None
    options: LaunchOptions
    cwd: str
    agent_dir: Path
    ext: AppExtensions


def _loader(app: ResourceHost) -> ResourceLoader | None:
    return app.session.resource_loader if app.session is not None else None


def _short(path: str, cwd: str) -> str:
    home = os.path.expanduser("~")
    if path.startswith(cwd + os.sep):
        return os.path.relpath(path, cwd)
    if home and path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


def context_files(app: ResourceHost) -> list[str]:
    if app.options.no_context_files or app.session is None:  # the header lists them once it is ready
        return []
    loader = _loader(app)
    files: list[Any] = []  # ContextFile records (an extension's agents-files override may give paths)
    if loader is not None:
        files = list(loader.get_agents_files())
    else:
        from pi_app.coding.resources.context_files import load_context_files

        try:
            files = list(load_context_files(app.cwd, app.agent_dir))
        except Exception:
            files = []
    return [_short(str(getattr(f, "path", f)), app.cwd) for f in files]


def skills(app: ResourceHost) -> list[Skill]:
    loader = _loader(app)
    return list(loader.get_skills().items) if loader is not None else []


def prompt_templates(app: ResourceHost) -> list[PromptTemplate]:
    loader = _loader(app)
    return list(loader.get_prompts().items) if loader is not None else []


def themes(app: ResourceHost) -> list[ThemeSpec]:
    """Theme specs the loader found (CLI, packages, settings arrays, trusted project, user dir)."""
    loader = _loader(app)
    return list(loader.get_themes().items) if loader is not None else []


def extension_paths(app: ResourceHost) -> list[str]:
    """The loaded extensions' paths as the header lists them (``~`` for home, cwd-relative)."""
    return [_short(e.path, app.cwd) for e in extensions(app)]


def extensions(app: ResourceHost) -> list[Extension]:
    loader = _loader(app)
    return list(loader.get_extensions().extensions) if loader is not None else []


def extra_command_infos(app: ResourceHost) -> list[CommandInfo]:
    """Slash commands beyond the built-ins: templates, extension commands, ``skill:<name>``."""
    infos = [CommandInfo(t.name, t.description or None) for t in prompt_templates(app)]
    infos += app.ext.command_infos()  # with argument completions (``extensions.host``)
    if app.settings is None or app.settings.get_enable_skill_commands():
        infos += [CommandInfo(f"skill:{s.name}", s.description or None) for s in skills(app)]
    return [info for info in infos if info.name]
