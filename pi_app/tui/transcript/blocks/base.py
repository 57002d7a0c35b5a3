"""The ``Block`` contract: one transcript entry that renders itself to strips for a width.

A block is data, not a widget. The transcript asks ``block.render(width, theme)`` for the lines of
the block and caches nothing itself; the block caches its own strips under the key
``(width, theme.version, version, expanded)`` (spec 60 §2.2), so a finished block renders once per
width and theme, however often the screen is painted.

Writing a block kind:

* subclass ``Block``, give it a ``kind`` and implement ``build(width, theme) -> list[Strip]``;
  every strip must be at most ``width`` cells (longer ones are cropped, never wrapped);
* call ``self.changed()`` whenever the content changes (it bumps ``version``); the transcript is
  told through ``Transcript.refresh_block(block)`` (or the typed helpers such as
  ``update_assistant``), which re-measures only that block;
* override ``estimate_height(width)`` if a cheap guess exists: blocks that have not been shown at
  the current width keep a guessed height until they scroll into view (that is what lets 10,000
  blocks cost no more to lay out than the ten on screen);
* override ``dispose()`` to release terminal resources (Kitty images) when the block is dropped.

A ``build`` that raises never takes the app down: the block shows one error-coloured line and the
exception goes to the log (R-TUI-12).

Nothing in a block drives the terminal: ``render`` shows any control character left in a strip as a
visible stand-in (``␛`` for ESC; ``pi_app.terminal_text.visible_controls``), so model text, tool
arguments or an extension's block can never write the clipboard (OSC 52), set the title or clear the
screen (issue 19 item 5). Blocks should clean their text before laying it out (the assistant block
does), so widths stay right; this is the net under them.
"""

from __future__ import annotations

import io
import itertools
import logging
from typing import ClassVar

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from pi_app.terminal_text import terminal_unsafe, visible_controls
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

log = logging.getLogger(__name__)

_keys = itertools.count(1)

_console = Console(
    file=io.StringIO(),
    width=80,
    color_system="truecolor",
    force_terminal=True,
    legacy_windows=False,
    emoji=False,
    highlight=False,
    markup=False,
)


def render_rich(renderable: RenderableType, width: int, style: Style | None = None) -> list[Strip]:
    """Render any Rich renderable to strips at ``width`` (lines are not padded)."""
    options = _console.options.update_width(max(1, width))
    lines = _console.render_lines(renderable, options, style=style, pad=False)
    return [Strip(line) for line in lines]


def indent(strips: list[Strip], columns: int = 1) -> list[Strip]:
    """``strips`` shifted right by ``columns`` blank cells (render them ``2 * columns`` narrower)."""
    if columns <= 0:
        return strips
    pad = Strip.blank(columns)
    return [Strip.join([pad, strip]) if strip.cell_length else strip for strip in strips]


def text_strip(text: str, style: Style | None = None) -> Strip:
    """One strip holding ``text`` (no wrapping; the caller keeps it within the width)."""
    return Strip([Segment(text, style)])


class Block:
    """Base class of every transcript entry; see the module docstring for the contract."""

    kind: ClassVar[str] = "block"

    def __init__(self, key: str | None = None) -> None:
        self.key: str = key or f"{self.kind}-{next(_keys)}"
        self.version = 0
        self.expanded = False
        self.render_count = 0
        """How many times ``build`` ran (tests and benchmarks read it)."""
        self._cache_key: tuple[int, int, int, bool] | None = None
        self._strips: list[Strip] = []

    # -- the contract ---------------------------------------------------------------------------

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        """Produce the block's lines for ``width``; called only on a cache miss."""
        raise NotImplementedError

    def estimate_height(self, width: int) -> int:
        """A cheap guess of the height at ``width`` for blocks not rendered yet."""
        return 1

    def dispose(self) -> None:
        """Release resources held outside Python (called when the block leaves the transcript)."""

    # -- caching --------------------------------------------------------------------------------

    def render(self, width: int, theme: BlockTheme) -> list[Strip]:
        """The block's strips for ``width`` and ``theme``, from the cache when nothing changed."""
        key = (width, theme.version, self.version, self.expanded)
        if key != self._cache_key:
            self.render_count += 1
            try:
                strips = self.build(width, theme)
            except Exception as error:  # a broken renderer must not kill the app (R-TUI-12)
                log.exception("rendering %s block %s failed", self.kind, self.key)
                message = f"[{self.kind} failed to render: {type(error).__name__}: {error}]"
                strips = [text_strip(message[:width], fg(theme, "error"))]
            strips = [_visible(s) for s in strips]
            self._strips = [s if s.cell_length <= width else s.crop(0, width) for s in strips]
            self._cache_key = key
        return self._strips

    def is_cached(self, width: int, theme: BlockTheme) -> bool:
        return self._cache_key == (width, theme.version, self.version, self.expanded)

    def changed(self) -> None:
        """Mark the content as changed: the next ``render`` rebuilds."""
        self.version += 1

    def invalidate(self) -> None:
        """Drop the cached strips (theme or setting changes that the key does not capture)."""
        self._cache_key = None
        self._strips = []

    def set_expanded(self, expanded: bool) -> bool:
        """Set the expanded flag; True when it changed (only expandable kinds care)."""
        if self.expanded == expanded:
            return False
        self.expanded = expanded
        return True

    def plain_lines(self, width: int, theme: BlockTheme) -> list[str]:
        """The rendered text without styles (debug dumps and tests)."""
        return [strip.text for strip in self.render(width, theme)]


def _visible(strip: Strip) -> Strip:
    if not terminal_unsafe(strip.text):
        return strip
    return Strip([Segment(visible_controls(seg.text), seg.style) for seg in strip if not seg.control])


def estimate_text_height(text: str, width: int) -> int:
    """Rows ``text`` needs when each line wraps at ``width`` (a guess: ignores word boundaries)."""
    width = max(1, width)
    return sum(max(1, -(-len(line) // width)) for line in text.split("\n"))
