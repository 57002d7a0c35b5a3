"""The start-up header block: logo, key hints, loaded resources (spec 60 §2.1 item 1, R-FOOT-07).

Collapsed (the default, like pi 0.73.1) it shows the version, one line of the most used keys and
a line saying how to see everything; expanded (the expand-tools key) it lists every key hint and
the loaded context files, skills, prompt templates, extensions and themes. With
``quietStartup`` only the version line remains. Hints are built by the caller from the effective
keybindings, never hard-coded here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import Block, indent, render_rich
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg


@dataclass
class HeaderContent:
    """What the start-up header shows (``pi_app.tui.chrome.header.build_header`` fills it)."""

    version_line: str
    summary: list[tuple[str, str]] = field(default_factory=list)
    """(key, what) pairs for the one-line summary."""
    more_line: str | None = None
    hints: list[tuple[str, str]] = field(default_factory=list)
    """(key, what) pairs, one per line when expanded."""
    resources: list[tuple[str, Sequence[str]]] = field(default_factory=list)
    """(heading, items) sections of loaded resources."""
    notices: list[str] = field(default_factory=list)
    quiet: bool = False
    tip: str | None = None
    """One line under the collapsed header (not in quiet or expanded form)."""


class StartupHeaderBlock(Block):
    kind = "header"

    def __init__(
        self,
        content: HeaderContent,
        key: str | None = "startup-header",
        *,
        override: Callable[[int, BlockTheme], list[Strip]] | None = None,
    ) -> None:
        super().__init__(key)
        self.content = content
        self.override = override
        """An extension's header (``set_header``) drawn instead of the built-in one."""

    def set_content(self, content: HeaderContent) -> None:
        self.content = content
        self.changed()

    def _text(self, theme: BlockTheme) -> Text:
        c = self.content
        key_style = fg(theme, "dim")
        text_style = fg(theme, "muted")
        out = Text()
        name, _, version = c.version_line.partition(" ")
        out.append(name, fg(theme, "accent") + Style(bold=True))
        out.append(f" {version}" if version else "", key_style)
        if c.quiet:
            for notice in c.notices:
                out.append("\n" + notice, text_style)
            return out
        if self.expanded:
            for key, what in c.hints:
                out.append("\n")
                out.append(key, key_style)
                out.append(f" {what}", text_style)
            for heading, items in c.resources:
                if not items:
                    continue
                out.append("\n\n")
                out.append(f"[{heading}]", fg(theme, "mdHeading"))
                for item in items:
                    out.append(f"\n  {item}", key_style)
        else:
            out.append("\n")
            for i, (key, what) in enumerate(c.summary):
                if i:
                    out.append(" · ", key_style)
                out.append(key, key_style)
                out.append(f" {what}", text_style)
            if c.more_line:
                out.append("\n" + c.more_line, key_style)
            if c.tip:
                out.append("\n\n" + c.tip, text_style)
        for notice in c.notices:
            out.append("\n\n" + notice, text_style)
        return out

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        if self.override is not None:
            custom = self.override(max(1, width - 2), theme)
            return [Strip.blank(0), *indent(custom)] if custom else []
        return [Strip.blank(0), *indent(render_rich(self._text(theme), max(1, width - 2)))]

    def estimate_height(self, width: int) -> int:
        c = self.content
        if c.quiet:
            return 2
        if self.expanded:
            return 2 + len(c.hints) + sum(2 + len(items) for _, items in c.resources)
        return 4 + len(c.notices) * 2 + (2 if c.tip else 0)
