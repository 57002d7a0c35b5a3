"""Transcript block kinds (the ``Block`` contract is documented in ``blocks/base.py``).

``Block`` subclasses are plain data that render themselves to Textual strips for a width and a
theme; the transcript (``pi_app/tui/transcript.py``) lays them out and paints only what is on
screen. Add a kind by subclassing ``Block`` and implementing ``build``.
"""

from pi_app.tui.blocks.assistant import AssistantBlock
from pi_app.tui.blocks.base import Block, render_rich, text_strip
from pi_app.tui.blocks.markdown import MarkdownSource, render_markdown
from pi_app.tui.blocks.text import HeaderBlock, NoteBlock, UserBlock
from pi_app.tui.blocks.theme import FALLBACK_DARK, FALLBACK_LIGHT, BlockTheme, RenderTheme
from pi_app.tui.blocks.tool import ToolBlock

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
