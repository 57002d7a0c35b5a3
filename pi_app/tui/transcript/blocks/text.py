"""Plain block kinds: the start-up header, user messages and status/warning/error notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import Block, estimate_text_height, indent, render_rich
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.theme import BlockTheme, bg, fg

NoteKind = Literal["status", "warning", "error", "info"]


def padded_box(content: list[Strip], width: int, style: Style, pad_x: int = 1, pad_y: int = 1) -> list[Strip]:
    """Frame ``content`` (rendered for ``width - 2*pad_x``) in a filled box of exactly ``width``."""
    inner = max(1, width - 2 * pad_x)
    blank = Strip.blank(width, style)
    left = Strip.blank(pad_x, style)
    rows = [blank] * pad_y
    for strip in content:
        row = Strip.join([left, strip.apply_style(style).crop_extend(0, inner, style), left])
        rows.append(row.crop(0, width))
    rows.extend([blank] * pad_y)
    return rows


class HeaderBlock(Block):
    """The start-up header: logo line, key hints, loaded resources (plain text, muted)."""

    kind = "header"

    def __init__(self, text: str, key: str | None = None) -> None:
        super().__init__(key)
        self.text = text

    def set_text(self, text: str) -> None:
        self.text = text
        self.changed()

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        return indent(render_rich(Text(self.text, style=fg(theme, "muted")), width - 2))

    def estimate_height(self, width: int) -> int:
        return estimate_text_height(self.text, width)


class UserBlock(Block):
    """A user message: ``userMessageBg`` box with ``userMessageText``, images below the text."""

    kind = "user"

    def __init__(self, text: str, images: Sequence[Any] = (), key: str | None = None) -> None:
        super().__init__(key)
        self.text = text
        self.images = list(images)
        """``ImageBlockPart``-like objects with ``render(width, theme) -> list[Strip]``."""

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        style = bg(theme, "userMessageBg") + fg(theme, "userMessageText")
        pad = output_pad()
        inner = max(1, width - 2 * pad)
        content = render_rich(Text(self.text), inner) if self.text else []
        for image in self.images:
            content.extend(image.render(inner, theme))
        return [Strip.blank(0), *padded_box(content, width, style, pad_x=pad)]

    def estimate_height(self, width: int) -> int:
        return 3 + estimate_text_height(self.text, max(1, width - 2))

    def dispose(self) -> None:
        for image in self.images:
            image.dispose()


class NoteBlock(Block):
    """A status (dim), warning or error line, preceded by one blank line (R-TR-05)."""

    kind = "note"
    _TOKENS = {"status": "dim", "info": "muted", "warning": "warning", "error": "error"}

    def __init__(self, text: str, note_kind: NoteKind | str = "status", key: str | None = None) -> None:
        super().__init__(key)
        self.text = text
        self.note_kind = note_kind

    def set_text(self, text: str) -> None:
        self.text = text
        self.changed()

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        style = fg(theme, self._TOKENS.get(self.note_kind, "text"))
        return [Strip.blank(0), *indent(render_rich(Text(self.text, style=style), width - 2))]

    def estimate_height(self, width: int) -> int:
        return 1 + estimate_text_height(self.text, width)
