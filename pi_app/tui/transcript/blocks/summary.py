"""Compaction and branch-summary markers in the transcript (R-TR-05).

Collapsed: a bold ``[compaction]`` (or ``[branch]``) label in ``customMessageLabel``, then
``Compacted from 12,345 tokens (ctrl+o to expand)`` in ``customMessageText``. Expanded (the
expand-tools key): the same label, ``**Compacted from 12,345 tokens**`` and the summary as
markdown. Branch summaries say ``Branch summary`` instead and have no token count.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import Block, estimate_text_height, indent, render_rich
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.markdown import render_markdown
from pi_app.tui.transcript.blocks.theme import BlockTheme, bg, fg


class SummaryBlock(Block):
    kind = "summary"

    def __init__(
        self,
        summary: str,
        *,
        branch: bool = False,
        tokens_before: int | None = None,
        expand_hint: str = "ctrl+o",
        key: str | None = None,
    ) -> None:
        super().__init__(key)
        self.summary = summary
        self.branch = branch
        self.tokens_before = tokens_before
        self.expand_hint = expand_hint

    @property
    def headline(self) -> str:
        if self.branch:
            return "Branch summary"
        return f"Compacted from {self.tokens_before or 0:,} tokens"

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        pad = output_pad()
        inner = max(1, width - 2 * pad)
        box = bg(theme, "customMessageBg")
        label = "[branch]" if self.branch else "[compaction]"
        lines = render_rich(Text(label, style=fg(theme, "customMessageLabel") + Style(bold=True)), inner)
        text_style = fg(theme, "customMessageText")
        if self.expanded:
            lines.extend(render_markdown(f"**{self.headline}**\n\n{self.summary}", inner, theme, text_style))
        else:
            hint = Text(f"{self.headline} ({self.expand_hint} to expand)", style=text_style)
            lines.extend(render_rich(hint, inner))
        strips = [Strip.blank(0)]
        strips.extend(strip.apply_style(box).crop_extend(0, width, box) for strip in indent(lines, pad))
        return strips

    def estimate_height(self, width: int) -> int:
        if self.expanded:
            return 4 + estimate_text_height(self.summary, width)
        return 3
