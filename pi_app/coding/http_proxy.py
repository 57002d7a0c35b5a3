"""The ``httpProxy`` setting (pi 1.6.0): a proxy URL for every request pi makes.

As 1.6.0 it is read from the agent directory's ``settings.json`` only (a project cannot route a
user's keys through its own proxy) and applied as ``HTTP_PROXY`` and ``HTTPS_PROXY`` when those
are not already set, so the environment wins. Every HTTP client pi builds (``new_http_client``:
providers, OAuth, token refresh) takes its proxies from the environment, with ``NO_PROXY``
honoured, as httpx does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.coding.settings import SettingsManager


def apply_http_proxy(value: Any) -> None:
    proxy = value.strip() if isinstance(value, str) else ""
    if not proxy:
        return
    for name in ("HTTP_PROXY", "HTTPS_PROXY"):
        if not os.environ.get(name) and not os.environ.get(name.lower()):
            os.environ[name] = proxy
            os.environ.pop(name.lower(), None)  # an empty lower-case one would cancel it


def apply_http_proxy_setting(settings: SettingsManager) -> None:
    """From a ``SettingsManager``'s global (agent-directory) settings."""
    try:
        value = settings.get_global_settings().get("httpProxy")
    except Exception:  # unreadable settings are reported elsewhere
        return
    apply_http_proxy(value)


def apply_http_proxy_from_agent_dir(agent_dir: str | Path) -> None:
    """For the commands that run without a session (``--list-models``, ``pi auth``): the file read
    as ``SettingsManager`` reads it, without building one."""
    from pathlib import Path

    from pi_app.coding.settings_files import SettingsParseError, read_json_object

    try:
        data = read_json_object(Path(agent_dir) / "settings.json") or {}
    except SettingsParseError:
        return
    apply_http_proxy(data.get("httpProxy"))
