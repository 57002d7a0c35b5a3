"""Markdown to strips, with a stable prefix so a streaming message re-renders only its tail.

``MarkdownSource`` holds the (growing) text of one markdown part. It splits the text into
*chunks* at stable boundaries: the start of a line that begins at column 0 after a blank line,
outside any fenced code block. Everything before the last boundary can no longer change as text
is appended, so each chunk is rendered once per (width, theme) and cached; only the *tail* (the
text after the last boundary) is rendered again when more text arrives (R-TR-09). Chunks are
joined with one blank line, which is what Rich puts between top-level blocks anyway, so a message
looks the same whether it streamed in or was loaded whole.

An unclosed fence renders as a code block that runs to the end of the text (markdown-it does
this), so streaming never makes earlier lines jump (R-TR-08).

Rendering itself is ``md_render`` (pi's look: fences kept, ``- `` bullets, theme colours and
pygments highlighting coloured by the theme's syntax tokens).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.style import Style
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import indent
from pi_app.tui.transcript.blocks.theme import BlockTheme

if TYPE_CHECKING:
    from pi_app.tui.transcript.blocks.md_render import Drawings

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def render_markdown(
    text: str, width: int, theme: BlockTheme, style: Style | None = None, drawings: Drawings | None = None
) -> list[Strip]:
    """Render one markdown text (no chunking) to strips, pi's way (``md_render``)."""
    if not text.strip():
        return []
    from pi_app.tui.transcript.blocks.md_render import ALL_DRAWINGS, render_markdown_strips

    return render_markdown_strips(text, width, theme, style, drawings or ALL_DRAWINGS)


class MarkdownSource:
    """The growing text of one markdown part, split into cached stable chunks and a live tail."""

    def __init__(self, renderer: Callable[..., list[Strip]] | None = None) -> None:
        self._render = renderer or render_markdown
        self.text = ""
        self._boundaries: list[int] = [0]  # chunk i starts at _boundaries[i]
        self._scan = 0  # start of the first line not scanned yet
        self._fence: str | None = None  # the open fence marker ("```", "~~~~", ...)
        self._blank_before = False
        self._chunk_cache: dict[int, tuple[tuple[object, ...], list[Strip]]] = {}
        self.chunk_renders = 0
        """How many chunk or tail renders ran (tests of R-TR-09 read it)."""

    # -- text -----------------------------------------------------------------------------------

    def set_text(self, text: str) -> None:
        """Replace the text; appending keeps every stable chunk, anything else starts over."""
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if text == self.text:
            return
        if not text.startswith(self.text[: self._boundaries[-1]]) or len(text) < self._boundaries[-1]:
            self.__init__(self._render)  # type: ignore[misc]  # an edit, not an append: rescan
        self.text = text
        self._advance()

    def _advance(self) -> None:
        text = self.text
        while True:
            end = text.find("\n", self._scan)
            if end < 0:
                return
            line = text[self._scan : end]
            start = self._scan
            self._scan = end + 1
            fence = _FENCE.match(line)
            if self._fence is not None:
                if fence and fence.group(1)[0] == self._fence[0] and len(fence.group(1)) >= len(self._fence):
                    if not line[fence.end() :].strip():
                        self._fence = None
                continue
            if not line.strip():
                self._blank_before = True
                continue
            if self._blank_before and not line[0].isspace() and start > self._boundaries[-1]:
                self._boundaries.append(start)
            self._blank_before = False
            if fence:
                self._fence = fence.group(1)

    @property
    def stable_length(self) -> int:
        """Characters of the text that can no longer change the rendering of earlier lines."""
        return self._boundaries[-1]

    def chunks(self) -> list[str]:
        bounds = self._boundaries
        return [self.text[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]

    # -- rendering ------------------------------------------------------------------------------

    def render(
        self,
        width: int,
        theme: BlockTheme,
        style: Style | None = None,
        margin: int = 0,
        drawings: Drawings | None = None,
    ) -> list[Strip]:
        """The strips at ``width``, each shifted right by ``margin`` blank cells (the caller's
        indent, cached with the chunks so a repaint of a long reply only re-renders its tail).
        ``drawings`` says whether mermaid and math are drawn (``md_render.Drawings``)."""
        key = (width, theme.version, style, margin, drawings)
        parts: list[list[Strip]] = []
        bounds = self._boundaries
        for i in range(len(bounds) - 1):
            cached = self._chunk_cache.get(i)
            if cached is None or cached[0] != key:
                self.chunk_renders += 1
                chunk = self.text[bounds[i] : bounds[i + 1]]
                cached = (key, self._render_part(chunk, width, theme, style, margin, drawings))
                self._chunk_cache[i] = cached
            parts.append(cached[1])
        tail = self.text[bounds[-1] :]
        if tail.strip():
            self.chunk_renders += 1
            parts.append(self._render_part(tail, width, theme, style, margin, drawings))
        strips: list[Strip] = []
        for part in parts:
            if not part:
                continue
            if strips:
                strips.append(Strip.blank(0))
            strips.extend(part)
        return strips

    def _render_part(
        self,
        text: str,
        width: int,
        theme: BlockTheme,
        style: Style | None,
        margin: int,
        drawings: Drawings | None = None,
    ) -> list[Strip]:
        strips = (
            self._render(text, width, theme)
            if drawings is None
            else self._render(text, width, theme, drawings=drawings)
        )
        if style is not None:
            strips = [strip.apply_style(style) for strip in strips]
        return indent(strips, margin)
