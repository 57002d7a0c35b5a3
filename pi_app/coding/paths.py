"""Every path pi reads or writes under the agent directory, derived in one place (decision D-24).

``<agentDir>`` is ``$PI_CODING_AGENT_DIR`` (a leading ``~`` or ``~/`` expanded), else ``~/.pi/agent``.
Nothing here creates a file or folder: directories are made by the first write that needs them,
so ``pi --help`` and ``pi --version`` leave no trace. ``is_offline`` says whether ``PI_OFFLINE``
(or ``--offline``) keeps pi from fetching packages.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "pi"
CONFIG_DIR_NAME = ".pi"
ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR"


def is_offline(flag: bool = False) -> bool:
    return flag or os.environ.get("PI_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def expand_user(path: str) -> str:
    """Expand a leading ``~`` or ``~/`` (not ``~user``)."""
    if path == "~":
        return str(Path.home())
    if path.startswith("~/") or path.startswith("~" + os.sep):
        return str(Path.home() / path[2:])
    return path


def agent_dir() -> Path:
    env = os.environ.get(ENV_AGENT_DIR)
    if env:
        return Path(expand_user(env))
    return Path.home() / CONFIG_DIR_NAME / "agent"


def settings_path() -> Path:
    return agent_dir() / "settings.json"


def models_path() -> Path:
    return agent_dir() / "models.json"


def auth_path() -> Path:
    return agent_dir() / "auth.json"


def keybindings_path() -> Path:
    return agent_dir() / "keybindings.json"


def trust_path() -> Path:
    return agent_dir() / "trust.json"


def models_store_path() -> Path:
    return agent_dir() / "models-store.json"


def debug_log_path() -> Path:
    return agent_dir() / "pi-debug.log"


def sessions_root() -> Path:
    return agent_dir() / "sessions"


def global_resource_dir(kind: str) -> Path:
    """``extensions``, ``skills``, ``prompts``, ``themes``, ``git``, ``bin`` under the agent dir."""
    return agent_dir() / kind


def project_config_dir(cwd: str | Path) -> Path:
    return Path(cwd) / CONFIG_DIR_NAME


def project_settings_path(cwd: str | Path) -> Path:
    return project_config_dir(cwd) / "settings.json"


def encode_cwd(cwd: str) -> str:
    """``/home/u/proj`` -> ``--home-u-proj--`` (pi's per-project session folder name)."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + trimmed.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def default_session_dir(cwd: str) -> Path:
    return sessions_root() / encode_cwd(cwd)


def resolve_session_dir(cwd: str, cli_session_dir: str | None = None, setting: str | None = None) -> Path:
    """``--session-dir`` > ``PI_CODING_AGENT_SESSION_DIR`` > ``sessionDir`` setting > default."""
    return chosen_session_dir(cli_session_dir, setting) or default_session_dir(cwd)


def chosen_session_dir(cli_session_dir: str | None = None, setting: str | None = None) -> Path | None:
    """The session folder the user chose (``--session-dir``, ``PI_CODING_AGENT_SESSION_DIR``,
    ``sessionDir``), or None when they chose none."""
    for candidate in (cli_session_dir, os.environ.get(ENV_SESSION_DIR), setting):
        if candidate:
            return Path(expand_user(candidate)).resolve()
    return None
