"""The colour lookups a block needs while rendering, and a built-in fallback palette.

Blocks never read CSS: the transcript hands them a theme object and they ask it for pi's colour
tokens (spec 60 §2.6). Any object with ``name``, ``version``, ``fg``, ``bg`` and ``is_light``
works; the ``PiTheme`` built by ``pi_app/tui/theme/themes.py`` has exactly these attributes. ``version``
must change whenever a colour changes, because it is part of every block's cache key.

``FALLBACK_DARK`` / ``FALLBACK_LIGHT`` cover the tokens the block kinds use so that blocks render
before (or without) a loaded theme; values follow pi's built-in palettes where the spec quotes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from rich.style import Style


class BlockTheme(Protocol):
    """What a block may read from a theme (read-only: ``PiTheme`` and ``RenderTheme`` are frozen)."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def fg(self) -> Mapping[str, Style]: ...
    @property
    def bg(self) -> Mapping[str, Style]: ...
    @property
    def is_light(self) -> bool: ...


@dataclass(frozen=True)
class RenderTheme:
    """A minimal concrete theme (used by tests and as the fallback before themes load)."""

    name: str
    version: int
    fg: Mapping[str, Style] = field(default_factory=dict)
    bg: Mapping[str, Style] = field(default_factory=dict)
    is_light: bool = False


def fg(theme: BlockTheme, token: str) -> Style:
    """The foreground style of ``token``; a null style when the theme lacks it."""
    return theme.fg.get(token) or Style.null()


def bg(theme: BlockTheme, token: str) -> Style:
    """The background style of ``token``; a null style when the theme lacks it."""
    return theme.bg.get(token) or Style.null()


_DARK_FG = {
    "accent": "#8abeb7",
    "border": "#5f87ff",
    "borderAccent": "#00d7ff",
    "borderMuted": "#505050",
    "success": "#b5bd68",
    "error": "#cc6666",
    "warning": "#ffff00",
    "muted": "#808080",
    "dim": "#666666",
    "text": "#d4d4d4",
    "thinkingText": "#808080",
    "userMessageText": "#d4d4d4",
    "customMessageText": "#d4d4d4",
    "customMessageLabel": "#9575cd",
    "toolTitle": "#d4d4d4",
    "toolOutput": "#808080",
    "mdHeading": "#f0c674",
    "mdLink": "#81a2be",
    "mdLinkUrl": "#666666",
    "mdCode": "#8abeb7",
    "mdCodeBlock": "#b5bd68",
    "mdCodeBlockBorder": "#808080",
    "mdQuote": "#808080",
    "mdQuoteBorder": "#808080",
    "mdHr": "#808080",
    "mdListBullet": "#8abeb7",
    "toolDiffAdded": "#b5bd68",
    "toolDiffRemoved": "#cc6666",
    "toolDiffContext": "#808080",
    "bashMode": "#b5bd68",
}
_DARK_BG = {
    "selectedBg": "#3a3a4a",
    "userMessageBg": "#343541",
    "customMessageBg": "#2d2838",
    "toolPendingBg": "#282832",
    "toolSuccessBg": "#283228",
    "toolErrorBg": "#3c2828",
}
_LIGHT_FG = {
    **_DARK_FG,
    "accent": "#5a8080",
    "border": "#547da7",
    "borderAccent": "#5a8080",
    "borderMuted": "#b0b0b0",
    "success": "#588458",
    "error": "#aa5555",
    "warning": "#9a7326",
    "muted": "#6c6c6c",
    "dim": "#8a8a8a",
    "text": "#000000",
    "thinkingText": "#6c6c6c",
    "userMessageText": "#000000",
    "customMessageText": "#000000",
    "toolTitle": "#000000",
    "toolOutput": "#6c6c6c",
    "mdHeading": "#9a7326",
    "mdLink": "#547da7",
    "mdCode": "#5a8080",
    "mdCodeBlock": "#588458",
    "bashMode": "#588458",
}
_LIGHT_BG = {
    "selectedBg": "#d0d0e0",
    "userMessageBg": "#e8e8e8",
    "customMessageBg": "#ede7f6",
    "toolPendingBg": "#e8e8f0",
    "toolSuccessBg": "#e8f0e8",
    "toolErrorBg": "#f0e8e8",
}


def _build(name: str, fgs: dict[str, str], bgs: dict[str, str], is_light: bool) -> RenderTheme:
    return RenderTheme(
        name=name,
        version=0,
        fg={k: Style(color=v) for k, v in fgs.items()},
        bg={k: Style(bgcolor=v) for k, v in bgs.items()},
        is_light=is_light,
    )


FALLBACK_DARK = _build("dark", _DARK_FG, _DARK_BG, False)
FALLBACK_LIGHT = _build("light", _LIGHT_FG, _LIGHT_BG, True)
