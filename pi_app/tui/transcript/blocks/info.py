"""A markdown panel in the transcript for command output (``/hotkeys``, ``/changelog``, …)."""

from __future__ import annotations

from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import Block, estimate_text_height, indent
from pi_app.tui.transcript.blocks.markdown import render_markdown
from pi_app.tui.transcript.blocks.theme import BlockTheme


class InfoBlock(Block):
    kind = "info"

    def __init__(self, markdown: str, key: str | None = None) -> None:
        super().__init__(key)
        self.markdown = markdown

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        return [Strip.blank(0), *indent(render_markdown(self.markdown, max(1, width - 2), theme))]

    def estimate_height(self, width: int) -> int:
        return 1 + estimate_text_height(self.markdown, width)
