"""Markdown to strips the way pi draws it (R-TR-07), over markdown-it's syntax tree.

What it looks like: headings bold in ``mdHeading`` (h1 underlined); ``**bold**``, ``*italic*``,
``~~strike~~``; inline code in ``mdCode``; links in ``mdLink`` with the URL after them in
``mdLinkUrl`` when it differs from the text; bullets ``- `` and ordered markers (the source
numbers, ``preserve_ordered_list_markers``) in ``mdListBullet``; block quotes behind a ``│`` in
``mdQuoteBorder`` with ``mdQuote`` text; rules of ``─`` in ``mdHr``; fenced code between its
```` ``` ```` fences (``mdCodeBlockBorder``), each line behind the ``markdown.codeBlockIndent`` prefix
(two spaces by default, ``layout.code_block_indent``) and highlighted with the theme's
``syntax*`` tokens (``mdCodeBlock`` when the language is unknown); tables with box-drawing lines,
one space of padding in every cell and a rule between rows; a list nested in a list item four
columns right of the item's marker (pi 1.6.0's look).
Soft line breaks stay line breaks (models write line-oriented text).

An unclosed fence renders as code reaching to the end of the text without a closing fence line,
so a streaming answer only ever grows at the bottom (R-TR-08). Every strip fits ``width``.

Drawings (issue 17, as pi 1.6.0): a closed ```` ```mermaid ```` block is drawn as a diagram
(``diagrams``: lines dim, labels in the text colour); ``$…$`` and ``$$…$$`` math (markdown-it's
dollarmath rule: no space just inside the dollars and no digit after the closing one, so ``$5 and
$10`` stays text) is written in Unicode (``math_text``); a display formula stands two columns in, its
fractions stacked over a rule and the limits of ``\\sum``/``\\lim`` above and below (one line when
that would not fit). ``Drawings`` turns either off (the block's expanded view shows the source: Ctrl+O);
anything that cannot be drawn shows its source as it would without the feature.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import _console, render_rich
from pi_app.tui.transcript.blocks.layout import code_block_indent
from pi_app.tui.transcript.blocks.syntax import highlight_lines
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    return md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)


@dataclass(frozen=True)
class Drawings:
    """What to draw instead of showing its source."""

    mermaid: bool = True
    math: bool = True


ALL_DRAWINGS = Drawings()
SOURCE_ONLY = Drawings(mermaid=False, math=False)


def render_markdown_strips(
    text: str, width: int, theme: BlockTheme, style: Style | None = None, drawings: Drawings = ALL_DRAWINGS
) -> list[Strip]:
    """Render ``text`` to strips of at most ``width`` cells (no leading or trailing blank rows)."""
    from markdown_it.tree import SyntaxTreeNode

    width = max(1, width)
    tokens = _parser().parse(text)
    root = SyntaxTreeNode(tokens)
    renderer = _Renderer(theme, style or Style(), text.split("\n"), drawings)
    strips = renderer.blocks(root.children, width)
    while strips and not strips[-1].cell_length:
        strips.pop()
    while strips and not strips[0].cell_length:
        strips.pop(0)
    return strips


NESTED_LIST_INDENT = 4
"""Columns from a list item's marker to the marker of a list nested in it (pi 1.6.0)."""


class _Renderer:
    def __init__(
        self, theme: BlockTheme, base: Style, source_lines: list[str], drawings: Drawings = ALL_DRAWINGS
    ) -> None:
        self.theme = theme
        self.base = base
        self.source = source_lines
        self.drawings = drawings

    def token(self, name: str) -> Style:
        return self.base + fg(self.theme, name)

    # -- blocks ---------------------------------------------------------------------------------

    def blocks(self, nodes: list[Any], width: int, tight: bool = False) -> list[Strip]:
        out: list[Strip] = []
        for node in nodes:
            rendered = self.block(node, width, tight)
            if not rendered:
                continue
            if out and not tight:
                out.append(Strip.blank(0))
            out.extend(rendered)
        return out

    def block(self, node: Any, width: int, tight: bool) -> list[Strip]:
        kind = node.type
        if kind == "paragraph":
            return self.wrap(self.inline(node.children[0] if node.children else None), width)
        if kind == "heading":
            style = self.token("mdHeading") + Style(bold=True, underline=node.tag == "h1")
            text = self.inline(node.children[0] if node.children else None, style)
            if node.tag not in ("h1", "h2"):
                text = Text(node.markup + " ", style) + text
            return self.wrap(text, width)
        if kind in ("bullet_list", "ordered_list"):
            return self.list(node, width)
        if kind == "blockquote":
            return self.quote(node, width)
        if kind in ("fence", "code_block"):
            return self.code(node, width)
        if kind == "math_block":
            return self.math_block(node, width)
        if kind == "hr":
            return [Strip([Segment("─" * width, self.token("mdHr"))])]
        if kind == "table":
            return self.table(node, width)
        if kind == "html_block":
            return self.wrap(Text(node.content.rstrip("\n"), self.token("text")), width)
        return self.blocks(node.children, width, tight) if node.children else []

    def wrap(self, text: Text, width: int) -> list[Strip]:
        return render_rich(text, width)

    def list(self, node: Any, width: int) -> list[Strip]:
        ordered = node.type == "ordered_list"
        start = int(node.attrs.get("start", 1)) if ordered else 1
        tight = not any(
            child.type == "paragraph" and not child.hidden
            for item in node.children
            for child in item.children
        )
        out: builtins.list[Strip] = []
        bullet_style = self.token("mdListBullet")
        for index, item in enumerate(node.children):
            if ordered:
                number = item.info if item.info else str(start + index)
                marker = f"{number}{node.markup or '.'} "
            else:
                marker = "- "
            indent = len(marker)
            body = self._item_body(item.children, width, indent, tight) or [(Strip.blank(0), indent)]
            if out and not tight:
                out.append(Strip.blank(0))
            out.append(Strip.join([Strip([Segment(marker, bullet_style)]), body[0][0]]))
            out.extend(
                Strip.join([Strip.blank(pad), strip]) if strip.cell_length else strip
                for strip, pad in body[1:]
            )
        return out

    def _item_body(
        self, children: builtins.list[Any], width: int, indent: int, tight: bool
    ) -> builtins.list[tuple[Strip, int]]:
        """A list item's lines, each with its indent: the marker's width for the item's own text,
        ``NESTED_LIST_INDENT`` for a list inside it (as pi 1.6.0 draws nested lists)."""
        lines: builtins.list[tuple[Strip, int]] = []
        for child in children:
            nested = child.type in ("bullet_list", "ordered_list")
            pad = max(NESTED_LIST_INDENT, indent) if nested else indent
            rendered = self.block(child, max(1, width - pad), tight)
            if not rendered:
                continue
            if lines and not tight:
                lines.append((Strip.blank(0), 0))
            lines.extend((strip, pad) for strip in rendered)
        return lines

    def quote(self, node: Any, width: int) -> builtins.list[Strip]:
        saved = self.base
        self.base = saved + fg(self.theme, "mdQuote")
        try:
            body = self.blocks(node.children, max(1, width - 2))
        finally:
            self.base = saved
        border = Strip([Segment("│ ", self.token("mdQuoteBorder"))])
        return [Strip.join([border, strip]) for strip in body]

    def code(self, node: Any, width: int) -> builtins.list[Strip]:
        border = self.token("mdCodeBlockBorder")
        language = (node.info or "").strip().split(" ")[0] if node.type == "fence" else ""
        content = node.content[:-1] if node.content.endswith("\n") else node.content
        if (
            language.lower() == "mermaid"
            and self.drawings.mermaid
            and self._fence_closed(node, node.markup or "```")
        ):
            drawn = self.diagram(content, width)
            if drawn is not None:
                return drawn
        lines = highlight_lines(content, self.theme, language=language or None, fallback="mdCodeBlock")
        fence = node.markup or "```"
        out = [Strip([Segment(fence + language, border)]).crop(0, width)] if node.type == "fence" else []
        prefix = code_block_indent()
        inner = max(1, width - cell_len(prefix))
        pad = Strip([Segment(prefix)]) if prefix else Strip.blank(0)
        for line in lines if content else []:
            pieces = (
                render_rich(line, inner)
                if line.cell_len > inner
                else [Strip(list(line.render(_console, end="")))]
            )
            for piece in pieces or [Strip.blank(0)]:
                out.append(Strip.join([pad, piece]))
        if node.type == "fence" and self._fence_closed(node, fence):
            out.append(Strip([Segment(fence, border)]).crop(0, width))
        return out

    def diagram(self, source: str, width: int) -> builtins.list[Strip] | None:
        from pi_app.tui.transcript.blocks.diagrams import draw_mermaid, is_line_char

        lines = draw_mermaid(source, max(1, width - 2))
        if lines is None:
            return None
        line_style, label_style = self.token("dim") + Style(dim=True), self.token("text")
        pad = Strip.blank(2)
        out: builtins.list[Strip] = []
        for line in lines:
            segments: builtins.list[Segment] = []
            for char in line:
                style = line_style if is_line_char(char) else label_style
                if segments and segments[-1].style == style:
                    segments[-1] = Segment(segments[-1].text + char, style)
                else:
                    segments.append(Segment(char, style))
            out.append(Strip.join([pad, Strip(segments)]))
        return out

    def math_block(self, node: Any, width: int) -> builtins.list[Strip]:
        source = node.content.strip("\n")
        if self.drawings.math:
            from pi_app.tui.transcript.blocks.math_text import latex_to_lines, latex_to_unicode

            text_style = self.token("text")
            lines = latex_to_lines(source)
            if lines is not None and max(cell_len(line) for line in lines) <= width - 2:
                return [Strip.join([Strip.blank(2), Strip([Segment(line, text_style)])]) for line in lines]
            drawn = latex_to_unicode(source)  # too wide to stack: one line, wrapped
            if drawn is not None:
                return [
                    Strip.join([Strip.blank(2), s])
                    for s in render_rich(Text(drawn, text_style), max(1, width - 2))
                ]
        code = self.token("mdCodeBlock")
        lines = ["$$", *source.split("\n"), "$$"]
        return [s for line in lines for s in render_rich(Text(line, code), width)]

    def _fence_closed(self, node: Any, fence: str) -> bool:
        if not node.map:
            return True
        first, last = node.map
        if last - first < 2 or last - 1 >= len(self.source):
            return False
        closing = self.source[last - 1].strip()
        return closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0])

    def table(self, node: Any, width: int) -> builtins.list[Strip]:
        table = Table(
            box=box.SQUARE, show_edge=True, show_lines=True, pad_edge=True, border_style=self.token("mdHr")
        )
        rows: builtins.list[builtins.list[Text]] = []
        header: builtins.list[Text] = []
        for section in node.children:
            for row in section.children:
                cells = [self.inline(cell.children[0] if cell.children else None) for cell in row.children]
                if section.type == "thead":
                    header = cells
                else:
                    rows.append(cells)
        for cell in header:
            table.add_column(cell, header_style=self.token("mdHeading") + Style(bold=True))
        for row in rows:
            table.add_row(*row)
        return render_rich(table, width)

    # -- inline ---------------------------------------------------------------------------------

    def inline(self, node: Any, style: Style | None = None) -> Text:
        out = Text()
        if node is None:
            return out
        self._inline_children(node.children, style or self.token("text"), out)
        return out

    def _inline_children(self, nodes: builtins.list[Any], style: Style, out: Text) -> None:
        for node in nodes:
            kind = node.type
            if kind == "text":
                out.append(node.content, style)
            elif kind in ("softbreak", "hardbreak"):
                out.append("\n", style)
            elif kind == "code_inline":
                out.append(node.content, style + fg(self.theme, "mdCode"))
            elif kind in ("math_inline", "math_inline_double"):
                drawn = None
                if self.drawings.math:
                    from pi_app.tui.transcript.blocks.math_text import latex_to_unicode

                    drawn = latex_to_unicode(node.content)
                dollars = "$$" if kind == "math_inline_double" else "$"
                out.append(drawn if drawn is not None else f"{dollars}{node.content}{dollars}", style)
            elif kind == "strong":
                self._inline_children(node.children, style + Style(bold=True), out)
            elif kind == "em":
                self._inline_children(node.children, style + Style(italic=True), out)
            elif kind == "s":
                self._inline_children(node.children, style + Style(strike=True), out)
            elif kind == "link":
                href = str(node.attrs.get("href", ""))
                start = len(out)
                self._inline_children(
                    node.children, style + fg(self.theme, "mdLink") + Style(underline=True), out
                )
                shown = out.plain[start:]
                if href and href != shown and f"mailto:{shown}" != href:
                    out.append(f" ({href})", style + fg(self.theme, "mdLinkUrl"))
            elif kind == "image":
                alt = node.content or str(node.attrs.get("alt", "")) or "image"
                out.append(f"[{alt}]", style + fg(self.theme, "mdLink"))
            elif kind in ("html_inline",):
                out.append(node.content, style)
            elif node.children:
                self._inline_children(node.children, style, out)
