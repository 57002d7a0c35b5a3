"""Clickable file paths (OSC 8) in tool headers, where the terminal shows them (pi 1.6.0).

``terminal.hyperlinks`` in settings.json (1.6.0's key) decides: ``true`` or ``false`` force it,
``"auto"`` (the default) uses what the terminal is known to do (``terminal.detect_capabilities``:
kitty, Ghostty, WezTerm, iTerm2, VS Code, Alacritty, Windows Terminal and truecolor terminals).
Under tmux links are off unless the attached client lists ``hyperlinks`` in
``#{client_termfeatures}`` (tmux strips OSC 8 otherwise); under screen they are off.

``link_base()`` is the folder relative paths are resolved against while links are on (None when
off); the tool renderer reads it and puts ``file://`` URIs on the path in ``read``, ``write``,
``edit`` and ``ls`` headers (Textual writes them as OSC 8). Nothing else changes: the header text is
the same with links on or off.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.tui.terminal.probe import TerminalCapabilities

_state: dict[str, str | None] = {"base": None}


def link_base() -> str | None:
    return _state["base"]


def set_link_base(base: str | None) -> None:
    _state["base"] = base


def file_uri(path: str, base: str) -> str | None:
    """The ``file://`` URI of ``path`` (``~`` and relative paths resolved), None for an empty path."""
    if not path:
        return None
    expanded = os.path.expanduser(path)
    full = expanded if os.path.isabs(expanded) else os.path.join(base, expanded)
    try:
        return Path(os.path.normpath(full)).as_uri()
    except ValueError:
        return None


def tmux_forwards_hyperlinks(timeout: float = 0.5) -> bool:
    try:
        out = subprocess.run(
            ["tmux", "display-message", "-p", "#{client_termfeatures}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "hyperlinks" in [part.strip() for part in out.split(",")]


def hyperlinks_enabled(
    setting: bool | str,
    capabilities: TerminalCapabilities,
    env: Mapping[str, str] | None = None,
    *,
    probe_tmux: Callable[[], bool] | None = None,
) -> bool:
    """``terminal.hyperlinks`` (True / False / "auto") against the terminal's capabilities."""
    if setting is True or setting is False:
        return setting
    env = os.environ if env is None else env
    term = env.get("TERM", "")
    if term.startswith("screen") and not env.get("TMUX"):
        return False
    if env.get("TMUX") or term.startswith("tmux"):
        return bool((probe_tmux or tmux_forwards_hyperlinks)())
    return capabilities.hyperlinks and capabilities.has_color
