"""Transcript block kinds (the ``Block`` contract is documented in ``blocks/base.py``).

``Block`` subclasses are plain data that render themselves to Textual strips for a width and a
theme; the transcript (``pi_app/tui/transcript/view.py``) lays them out and paints only what is on
screen. Add a kind by subclassing ``Block`` and implementing ``build``.

Importing ``pi_app.tui.transcript.blocks.<kind>`` loads only that kind: the names below are resolved on first
use, so the start-up header (``blocks/startup.py``) paints without the assistant and tool blocks
(which import the message types, the markdown renderer and the tool renderers).
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "AssistantBlock": "assistant",
    "Block": "base",
    "render_rich": "base",
    "text_strip": "base",
    "MarkdownSource": "markdown",
    "render_markdown": "markdown",
    "HeaderBlock": "text",
    "NoteBlock": "text",
    "UserBlock": "text",
    "FALLBACK_DARK": "theme",
    "FALLBACK_LIGHT": "theme",
    "BlockTheme": "theme",
    "RenderTheme": "theme",
    "ToolBlock": "tool",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FALLBACK_DARK",
    "FALLBACK_LIGHT",
    "AssistantBlock",
    "Block",
    "BlockTheme",
    "HeaderBlock",
    "MarkdownSource",
    "NoteBlock",
    "RenderTheme",
    "ToolBlock",
    "UserBlock",
    "render_markdown",
    "render_rich",
    "text_strip",
]
