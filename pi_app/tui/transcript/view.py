"""The conversation transcript: a Line-API scroll view over a list of blocks (spec 60 §3.2).

How it stays cheap however long the conversation gets:

* Blocks (``pi_app/tui/transcript/blocks``) render themselves to strips and cache them per (width, theme
  version, block version, expanded). The transcript keeps one height per block and a prefix-sum
  index of block start rows; ``render_line(y)`` finds the block by bisection and returns the
  block's cached strip. Only rows on screen are ever asked for (R-TR-01).
* Heights are *exact* (measured at the current width and theme) or *estimated*. Appends and width
  or theme changes only estimate; just before each paint ``render_lines`` measures the blocks
  that intersect the viewport (from the bottom when following the tail, from the top row
  otherwise, so the top line never jumps). Ten thousand blocks cost what the visible ten cost.
* Changing a block re-measures only that block and re-indexes from it onward; streaming deltas
  are coalesced to one re-render per frame (``FRAME_INTERVAL``, R-TUI-05) and the assistant block
  re-renders only its unstable markdown tail (R-TR-02, R-TR-09).
* Follow mode (R-TR-03): the view follows the tail while it is at the bottom; a user scroll away
  from the bottom stops following and updates never move the viewport (the last row then shows
  1.6.0's "↓ Jump to latest message · Ctrl+End"); returning to the bottom
  (``scroll_bottom``) or sending a message (``add_user``) follows again. A resize keeps the same part of the top block at the top.
* Mouse selection (R-TR-11): rows carry Textual's selection offsets; ``get_selection`` renders
  only the blocks under the selection.
* Search (1.6.0's ``tui.altScreen.search``; ``transcript_search``): while a query is set every
  block is measured and its rendered rows searched; matches are highlighted as rows are painted
  (the current one reversed and bold, the others dim and underlined) and found again whenever the
  transcript changes (a streaming answer, a resize). ``jump_prompt`` moves between user messages.

The public methods used by the app (``add_header``, ``add_user``, ``add_note``,
``start_assistant``, ``update_assistant``, ``end_assistant``, ``tool_started``,
``tool_updated``, ``clear_blocks``) build the block kinds; ``append_block`` / ``refresh_block``
are the generic entry points for new kinds.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer

from pi_app.tui.input.keybindings import Keybindings, display_key
from pi_app.tui.transcript.blocks.base import Block
from pi_app.tui.transcript.blocks.text import HeaderBlock, NoteBlock, UserBlock
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK, BlockTheme, fg
from pi_app.tui.transcript.search import SearchState
from pi_app.tui.transcript.tool_calls import TurnToolCalls

if TYPE_CHECKING:  # imported on first use: the first frame (the start-up header) does without them
    from pi_app.tui.transcript.blocks.assistant import AssistantBlock
    from pi_app.tui.transcript.blocks.tool import ToolBlock

BlockT = TypeVar("BlockT", bound=Block)

_MATCH = Style(dim=True, underline=True)
"""A search match (as pi 1.6.0 marks them)."""
_CURRENT = Style(bold=True, reverse=True)
"""The current search match when the theme gives it no colours."""

FRAME_INTERVAL = 1 / 60
"""Streaming updates re-render at most once per this many seconds (R-TUI-05)."""
SYNC_MEASURE_LIMIT = 50
"""A search measures up to this many unmeasured blocks at once; more are measured in slices."""
MEASURE_SLICE_S = 0.012
"""How long one slice of that background measuring may take (keys and paints run between)."""


class Transcript(ScrollView, can_focus=False):
    """Ordered blocks, rendered line by line; see the module docstring."""

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
    }
    """

    def __init__(
        self,
        *,
        theme: BlockTheme | None = None,
        images: Any = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.blocks: list[Block] = []
        self._heights: list[int] = []
        self._exact: list[bool] = []
        self._starts: list[int] = [0]  # _starts[i] = first row of block i; _starts[-1] = total rows
        self._valid_to = 0  # _starts[: _valid_to + 1] are correct
        self._positions: dict[str, int] = {}
        self._width = 0
        self._theme: BlockTheme = theme or FALLBACK_DARK
        self._measured_theme_version = self._theme.version
        self._follow = True
        self._geometry_dirty = False  # heights changed since the virtual size was last set
        self._paint_requested = False
        self._dirty: dict[str, Block] = {}
        self._flush_timer: Timer | None = None
        self._calls_timer: Timer | None = None
        self._calls_message: Any = None  # the latest partial whose tool calls wait for the frame
        self.images = images
        """An ``ImageRenderer`` (``pi_app.tui.terminal.images``) for image parts; None shows text placeholders."""
        self.streaming: AssistantBlock | None = None
        self.tools = TurnToolCalls()
        """The current assistant turn's tool blocks by call id (ids repeat across turns)."""
        self.expand_all = False
        self.hide_thinking = False
        self.expand_hint = "ctrl+o"
        """Key hint shown in collapsed previews (the app sets it from the effective keybindings)."""
        self.search: SearchState | None = None
        """The open transcript search (None when closed)."""
        self._revision = 0
        """Bumped whenever a block is added, removed or changed (stale search matches)."""
        self._searched: tuple[int, int, int] | None = None
        self._search_lines: dict[str, tuple[list[Strip], list[str], list[str]]] = {}
        """Per block: the strips last searched, their text and their folded text."""
        self._measure_timer: Timer | None = None
        self._measure_cursor = 0
        self._find_keep = False
        self.search_listener: Any = None
        """Called after the matches change (the search bar repaints its counter)."""
        self.bottom_hint = "Ctrl+End"
        """The key of ``tui.altScreen.bottom`` in the "Jump to latest message" hint ("" hides it)."""

    def set_key_hints(self, keybindings: Keybindings) -> None:
        """The keys it shows: ``app.tools.expand`` in collapsed previews, ``tui.altScreen.bottom``
        in the "Jump to latest message" hint."""
        self.expand_hint = keybindings.hint("app.tools.expand")
        bottom = keybindings.keys("tui.altScreen.bottom")
        self.bottom_hint = display_key(bottom[0]) if bottom else ""

    # -- geometry -------------------------------------------------------------------------------

    @property
    def total_rows(self) -> int:
        self._reindex()
        return self._starts[-1]

    @property
    def following(self) -> bool:
        """True while the view sticks to the bottom (R-TR-03)."""
        return self._follow

    @property
    def render_theme(self) -> BlockTheme:
        return self._theme

    def set_render_theme(self, theme: BlockTheme) -> None:
        """Use ``theme`` for every block; blocks re-render lazily as they come into view (R-TUI-06)."""
        self._theme = theme
        self.refresh()

    def block_rows(self, block: Block) -> tuple[int, int]:
        """(first row, height) of ``block`` in the virtual space."""
        index = self._positions[block.key]
        self._reindex()
        return self._starts[index], self._heights[index]

    def blocks_of(self, kind: type[BlockT]) -> list[BlockT]:
        """The blocks of one kind, in order."""
        return [block for block in self.blocks if isinstance(block, kind)]

    def plain_lines(self) -> list[str]:
        """Every rendered line as text (renders all blocks: for debug dumps and tests only)."""
        width = self._width or self._content_width() or 80
        return [line for block in self.blocks for line in block.plain_lines(width, self._theme)]

    def _content_width(self) -> int:
        return max(0, self.scrollable_content_region.width)

    def _reindex(self) -> None:
        starts, heights = self._starts, self._heights
        n = len(heights)
        if self._valid_to >= n:
            return
        for i in range(self._valid_to, n):
            starts[i + 1] = starts[i] + heights[i]
        self._valid_to = n

    def _set_height(self, index: int, height: int) -> bool:
        if self._heights[index] == height:
            return False
        self._heights[index] = height
        self._valid_to = min(self._valid_to, index)
        return True

    def _measure(self, index: int) -> bool:
        """Render block ``index`` at the current width; True when its height changed."""
        strips = self.blocks[index].render(self._width, self._theme)
        self._exact[index] = True
        return self._set_height(index, len(strips))

    def _estimate(self, block: Block) -> int:
        return max(0, block.estimate_height(max(1, self._width or 80)))

    def _check_geometry(self) -> bool:
        """Adopt a new width or theme: every height becomes an estimate. True when it changed."""
        width = self._content_width()
        if width <= 0:
            return False
        if width == self._width and self._theme.version == self._measured_theme_version:
            return False
        old_width = self._width
        self._width = width
        self._measured_theme_version = self._theme.version
        for i, block in enumerate(self.blocks):
            self._exact[i] = False
            if old_width and self._heights[i]:
                # a wrapped block grows roughly in proportion to the narrowing
                self._heights[i] = max(1, math.ceil(self._heights[i] * old_width / width))
            else:
                self._heights[i] = self._estimate(block)
        self._valid_to = 0
        return True

    def _anchor(self) -> tuple[int, float] | None:
        """The block at the top row and how far into it the view starts (as a fraction)."""
        if self._follow or not self.blocks or self._width <= 0:
            return None
        self._reindex()
        top = int(self.scroll_offset.y)
        index = max(0, bisect_right(self._starts, top, 0, len(self.blocks)) - 1)
        return index, (top - self._starts[index]) / max(1, self._heights[index])

    def _settle(self) -> None:
        """Make the heights of the blocks on screen exact, keeping the anchor row in place."""
        anchor = self._anchor()
        changed = self._check_geometry()
        if self._width <= 0 or not self.blocks:
            if changed:
                self._sync_virtual_size()
            return
        view_height = max(1, self.scrollable_content_region.height)
        n = len(self.blocks)
        if self._follow:
            rows, i = 0, n - 1
            while i >= 0 and rows < view_height:
                if not self._exact[i]:
                    changed |= self._measure(i)
                rows += self._heights[i]
                i -= 1
        else:
            self._reindex()
            if changed and anchor is not None:
                # a new width: keep the same part of the same block at the top (no jump on resize)
                index, fraction = anchor
                self._measure(index)
                self._reindex()
                top = self._starts[index] + min(
                    int(fraction * self._heights[index]), max(0, self._heights[index] - 1)
                )
                self._sync_virtual_size()
                self.set_scroll(None, top)
            else:
                top = int(self.scroll_offset.y)
                index = max(0, bisect_right(self._starts, top, 0, n) - 1)
            rows = self._starts[index] - top
            while index < n and rows < view_height:
                if not self._exact[index]:
                    changed |= self._measure(index)
                rows += self._heights[index]
                index += 1
        if changed or self._geometry_dirty:
            self._sync_virtual_size()
        if changed:
            self.refresh()

    def _request_paint(self) -> None:
        """Heights changed: update the virtual size and scroll position at the next paint, once
        however many blocks were added before it (a rebuild of 2,000 messages is one layout)."""
        self._geometry_dirty = True
        if not self._paint_requested:
            self._paint_requested = True
            self.refresh()

    def _sync_virtual_size(self) -> None:
        self._geometry_dirty = False
        self._reindex()
        total = self._starts[-1]
        self.virtual_size = Size(self._width, total)
        if self._follow:
            end = max(0, total - self.scrollable_content_region.height)
            if int(self.scroll_offset.y) != end:
                self.set_scroll(None, end)  # takes effect in the frame being painted
                self.call_after_refresh(self._sync_scrollbar)

    def _sync_scrollbar(self) -> None:
        """Move the scrollbar thumb to a scroll position set during a paint (no watcher ran)."""
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    # -- Line API -------------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint_requested = False
        self._settle()
        if self.search is not None and self.search.query and self._search_stale():
            self._find(keep_current=True)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._width or self._content_width()
        row = self.scroll_offset.y + y
        self._reindex()
        n = len(self.blocks)
        if row < 0 or row >= self._starts[-1] or not n:
            return Strip.blank(width, self.rich_style)
        index = bisect_right(self._starts, row, 0, n) - 1
        strips = self.blocks[index].render(width, self._theme)
        offset = row - self._starts[index]
        if offset >= len(strips):
            return Strip.blank(width, self.rich_style)
        base = self.rich_style
        line = strips[offset].crop_extend(0, width, base).apply_style(base)
        if self.search is not None and self.search.matches:
            for start, end, current in self.search.in_row(row):
                line = self._restyle(
                    line, start, min(end, width), self._current_match() if current else _MATCH
                )
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(row)) is not None:
            line = self._highlight(line, span, width)
        if not self._follow and self.bottom_hint and y == self.scrollable_content_region.height - 1:
            line = self._with_bottom_hint(line, width)
        return line.apply_offsets(0, row)

    def _with_bottom_hint(self, line: Strip, width: int) -> Strip:
        """pi 1.6.0's "↓ Jump to latest message · <key>" over the last row while scrolled up."""
        from rich.cells import cell_len

        hint = f" ↓ Jump to latest message · {self.bottom_hint} "
        size = cell_len(hint)
        if size > width:
            return line
        start = (width - size) // 2
        before, _middle, after = line.crop_extend(0, width, self.rich_style).divide(
            [start, start + size, width]
        )[:3]
        style = self.rich_style + fg(self._theme, "muted")
        return Strip.join(
            [before, Strip([Segment(hint, style)], size), after]
        )  # lets Textual's mouse selection find the row (R-TR-11)

    def _current_match(self) -> Style:
        """The theme's ``searchMatchBg``/``searchMatchText`` (pi 1.6.0 tokens), bold."""
        theme = self._theme
        background = getattr(theme, "bg", {}).get("searchMatchBg")
        foreground = getattr(theme, "fg", {}).get("searchMatchText")
        if (background is None or not background) and (foreground is None or not foreground):
            return _CURRENT
        return (background or Style()) + (foreground or Style()) + Style(bold=True)

    def _highlight(self, line: Strip, span: tuple[int, int], width: int) -> Strip:
        start, end = span
        end = width if end == -1 else min(end, width)
        return self._restyle(line, start, end, self.screen.get_component_rich_style("screen--selection"))

    @staticmethod
    def _restyle(line: Strip, start: int, end: int, style: Style) -> Strip:
        if end <= start:
            return line
        width = max(line.cell_length, end)
        before, middle, after = line.divide([start, end, width])[:3]
        middle = Strip(Segment.apply_style(middle, post_style=style), middle.cell_length)
        return Strip.join([before, middle, after])

    # -- text selection (R-TR-11) ---------------------------------------------------------------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text; only the blocks under the selection are rendered."""
        self._reindex()
        total = self._starts[-1]
        first = 0 if selection.start is None else min(selection.start.y, total)
        last = total - 1 if selection.end is None else min(selection.end.y, total - 1)
        if total == 0 or last < first:
            return None
        width = self._width or self._content_width() or 80
        rows = [""] * first
        index = max(0, bisect_right(self._starts, first, 0, len(self.blocks)) - 1)
        row = self._starts[index]
        while index < len(self.blocks) and row <= last:
            for strip in self.blocks[index].render(width, self._theme):
                if row >= first and row <= last:
                    rows.append(strip.text.rstrip())
                row += 1
            index += 1
        return selection.extract("\n".join(rows) + "\n"), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._follow = round(new_value) >= self.max_scroll_y

    def on_resize(self) -> None:
        if self._follow:
            # a shorter view (a selector replaced the editor) must still end at the last line
            self._geometry_dirty = True
        self.refresh()

    # -- generic block management ---------------------------------------------------------------

    def append_block(self, block: Block) -> Block:
        """Add ``block`` at the end (height estimated until it is on screen)."""
        if block.key in self._positions:
            raise ValueError(f"duplicate transcript block key: {block.key}")
        block.set_expanded(self.expand_all)
        self._positions[block.key] = len(self.blocks)
        self._revision += 1
        self.blocks.append(block)
        self._heights.append(self._estimate(block))
        self._exact.append(False)
        self._starts.append(self._starts[-1])
        self._valid_to = min(self._valid_to, len(self.blocks) - 1)
        self._request_paint()
        return block

    def extend_blocks(self, blocks: Iterable[Block]) -> None:
        for block in blocks:
            self.append_block(block)

    def remove_block(self, block: Block) -> None:
        index = self._positions.pop(block.key, None)
        if index is None:
            return
        block.dispose()
        self._revision += 1
        self._search_lines.pop(block.key, None)
        del self.blocks[index], self._heights[index], self._exact[index], self._starts[index + 1]
        for later in self.blocks[index:]:
            self._positions[later.key] -= 1
        self._dirty.pop(block.key, None)
        self._valid_to = min(self._valid_to, index)
        self._sync_virtual_size()
        self.refresh()

    def refresh_block(self, block: Block, *, immediate: bool = False) -> None:
        """Re-render ``block`` (after ``block.changed()``): now, or coalesced to the next frame."""
        if block.key not in self._positions:
            return
        self._dirty[block.key] = block
        if immediate:
            self.flush()
        elif self._flush_timer is None and self.is_mounted:
            self._flush_timer = self.set_timer(FRAME_INTERVAL, self.flush)
        elif not self.is_mounted:
            self.flush()

    def flush(self) -> None:
        """Re-measure the blocks changed since the last frame and repaint only their rows."""
        self._flush_timer = None
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, {}
        self._revision += 1
        self._check_geometry()
        if self._width <= 0:
            for block in dirty.values():
                index = self._positions.get(block.key)
                if index is not None:
                    self._set_height(index, self._estimate(block))
            self._request_paint()
            return
        grew = False
        repaint: list[tuple[int, int]] = []
        for block in dirty.values():
            index = self._positions.get(block.key)
            if index is None:
                continue
            if not self._exact[index]:
                # never shown at this width: keep it lazy, the next paint measures it if visible
                grew |= self._set_height(index, self._estimate(block))
                continue
            grew |= self._measure(index)
            repaint.append((index, self._heights[index]))
        if grew:
            self._request_paint()
        else:
            for index, height in repaint:
                self.refresh_lines(self._starts[index], max(1, height))

    def invalidate_all(self) -> None:
        """Forget every cached rendering (settings that change how blocks look; R-TUI-06)."""
        for i, block in enumerate(self.blocks):
            block.invalidate()
            self._exact[i] = False
        self._revision += 1
        self.refresh()

    def set_expand_all(self, expanded: bool) -> None:
        """Expand or collapse every expandable block, and new blocks from now on (R-TR-06)."""
        self.expand_all = expanded
        for i, block in enumerate(self.blocks):
            if block.set_expanded(expanded):
                self._exact[i] = False
        self._revision += 1
        self.refresh()

    def set_hide_thinking(self, hide: bool) -> None:
        from pi_app.tui.transcript.blocks.assistant import AssistantBlock

        self.hide_thinking = hide
        for i, block in enumerate(self.blocks):
            if isinstance(block, AssistantBlock):
                block.set_hide_thinking(hide)
                self._exact[i] = False
        self._revision += 1
        self.refresh()

    def release_images(self) -> None:
        """Free every block's terminal-side resources (Kitty images) without removing blocks."""
        for block in self.blocks:
            block.dispose()

    def clear_blocks(self) -> None:
        """Drop every block (rebuilds, new session); terminal images are freed (R-IMG-04)."""
        for block in self.blocks:
            block.dispose()
        self.blocks.clear()
        self._search_lines.clear()
        self._revision += 1
        self._heights.clear()
        self._exact.clear()
        self._starts[:] = [0]
        self._valid_to = 0
        self._positions.clear()
        self._dirty.clear()
        self.streaming = None
        self._cancel_pending_tool_calls()
        self.tools.clear()
        self._follow = True
        self.set_scroll(0, 0)
        self._sync_virtual_size()
        self.refresh()

    # -- scrolling actions (R-TR-04) ------------------------------------------------------------

    def scroll_page_up_lines(self) -> None:
        self.scroll_to(y=self.scroll_y - max(1, self.scrollable_content_region.height), animate=False)

    def scroll_page_down_lines(self) -> None:
        self.scroll_to(y=self.scroll_y + max(1, self.scrollable_content_region.height), animate=False)

    def scroll_half_page_up(self) -> None:
        self.scroll_to(y=self.scroll_y - max(1, self.scrollable_content_region.height // 2), animate=False)

    def scroll_half_page_down(self) -> None:
        self.scroll_to(y=self.scroll_y + max(1, self.scrollable_content_region.height // 2), animate=False)

    def scroll_line_up(self) -> None:
        self.scroll_to(y=self.scroll_y - 1, animate=False)

    def scroll_line_down(self) -> None:
        self.scroll_to(y=self.scroll_y + 1, animate=False)

    def scroll_top(self) -> None:
        self.scroll_to(y=0, animate=False)

    def measure_all(self) -> None:
        """Make every height exact (search and prompt jumps need true rows); renders every block."""
        self._check_geometry()
        if self._width <= 0:
            return
        changed = False
        for i in range(len(self.blocks)):
            if not self._exact[i]:
                changed |= self._measure(i)
        if changed or self._geometry_dirty:
            self._sync_virtual_size()

    def scroll_to_row(self, row: int, *, context: int | None = None) -> None:
        """Bring ``row`` into view (``context`` rows below the top when it has to move)."""
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_offset.y)
        if top <= row < top + height:
            return
        above = height // 3 if context is None else context
        self._follow = False
        self.scroll_to(y=max(0, row - above), animate=False)

    def jump_prompt(self, direction: int) -> bool:
        """Scroll to the previous (-1) or next (1) user message; the next past the last one is the
        end (following again). False when there is nowhere to go.

        Works on block indices, so nothing above the view has to be measured: only blocks from
        the top row down are ever measured, so a row keeps naming the same block."""
        if not self.blocks:
            return False
        self._reindex()
        top = int(self.scroll_offset.y)
        here = max(0, bisect_right(self._starts, top, 0, len(self.blocks)) - 1)
        users = [i for i, block in enumerate(self.blocks) if isinstance(block, UserBlock)]
        if direction < 0:
            earlier = [i for i in users if i < here or (i == here and self._starts[i] < top)]
            if not earlier:
                return False
            self._follow = False
            self.scroll_to(y=self._starts[earlier[-1]], animate=False)
            return True
        later = [i for i in users if i > here]
        if later and self._starts[later[0]] <= self.max_scroll_y:
            self._follow = False
            self.scroll_to(y=self._starts[later[0]], animate=False)
            return True
        if self._follow:
            return False
        self.scroll_bottom()
        return True

    # -- search (1.6.0's tui.altScreen.search*) -------------------------------------------------

    def set_search(self, query: str | None) -> SearchState | None:
        """Open (or update) the search with ``query``; None closes it. The current match is the
        last one at or above the view's bottom row, scrolled into view."""
        if query is None:
            self.search = None
            self._searched = None
            self._search_lines = {}
            if self._measure_timer is not None:
                self._measure_timer.stop()
                self._measure_timer = None
            self.refresh()
            return None
        if self.search is None:
            self.search = SearchState()
        self.search.query = query
        self._find(keep_current=False)
        self._show_current()
        return self.search

    def search_step(self, direction: int) -> None:
        if self.search is None or self.search.pending:
            return
        if self._search_stale():
            self._find(keep_current=True)
        if self.search.step(direction) is not None:
            self._show_current()
        self.refresh()

    def _search_stale(self) -> bool:
        return self._searched != (self._revision, self._content_width(), self._theme.version)

    def _unmeasured(self) -> int:
        self._check_geometry()
        return 0 if self._width <= 0 else self._exact.count(False)

    def _measure_slice(self) -> None:
        """Measure blocks for the search for one time slice, keeping the top row where it is."""
        import time

        self._measure_timer = None
        if self.search is None:
            return
        self._check_geometry()
        anchor = self._anchor()
        deadline = time.perf_counter() + MEASURE_SLICE_S
        n = len(self.blocks)
        i = min(self._measure_cursor, n)
        width = self._width
        while i < n:  # at least one block per slice
            if not self._exact[i]:
                self._measure(i)
            self._search_text(self.blocks[i], width)
            i += 1
            if time.perf_counter() >= deadline:
                break
        self._measure_cursor = i
        self._reindex()
        self._sync_virtual_size()
        if anchor is not None:
            index, fraction = anchor
            height = self._heights[index]
            self.set_scroll(None, self._starts[index] + min(int(fraction * height), max(0, height - 1)))
        if i < n:
            self._measure_timer = self.set_timer(0.001, self._measure_slice)
            return
        self.search.pending = False
        self._find(keep_current=self._find_keep)
        self._show_current()

    def _find(self, *, keep_current: bool) -> None:
        from pi_app.tui.transcript.search import find_matches

        search = self.search
        if search is None:
            return
        unmeasured = self._unmeasured()
        if unmeasured > SYNC_MEASURE_LIMIT and self.is_mounted:
            # a long transcript: measure it in slices so typing stays responsive, then search
            self._find_keep = keep_current and search.current_match is not None
            search.pending = True
            if self._measure_timer is None:
                self._measure_cursor = 0
                self._measure_timer = self.set_timer(0.001, self._measure_slice)
            self._notify_search()
            return
        self.measure_all()
        self._reindex()
        previous = search.current_match
        width = self._width or self._content_width() or 80
        matches = []
        if search.query:
            for index, block in enumerate(self.blocks):
                lines, folded = self._search_text(block, width)
                matches.extend(find_matches(lines, search.query, self._starts[index], folded))
        if keep_current and previous is not None:
            search.set_matches(matches, previous.row)
        else:
            height = max(1, self.scrollable_content_region.height)
            search.set_matches(matches, int(self.scroll_offset.y) + height - 1)
        self._searched = (self._revision, self._content_width(), self._theme.version)
        self.refresh()
        self._notify_search()

    def _search_text(self, block: Block, width: int) -> tuple[list[str], list[str]]:
        """The block's rendered rows as text and folded, kept while its strips stay the same."""
        from pi_app.tui.transcript.search import fold

        strips = block.render(width, self._theme)
        entry = self._search_lines.get(block.key)
        if entry is None or entry[0] is not strips:
            lines = [strip.text for strip in strips]
            entry = self._search_lines[block.key] = (strips, lines, [fold(line) for line in lines])
        return entry[1], entry[2]

    def _notify_search(self) -> None:
        if self.search_listener is not None:
            self.search_listener()

    def _show_current(self) -> None:
        match = self.search.current_match if self.search is not None else None
        if match is not None:
            self.scroll_to_row(match.row)

    def scroll_bottom(self) -> None:
        """Jump to the end and follow the tail again."""
        self._follow = True
        self._sync_virtual_size()
        self.scroll_to(y=self.max_scroll_y, animate=False)
        self.refresh()

    # -- the block kinds the app uses -----------------------------------------------------------

    def _image_part(self, image: Any) -> Any:
        from pi_app.tui.terminal.images import image_part

        return image_part(image, self.images)

    def add_header(self, text: str) -> HeaderBlock:
        block = HeaderBlock(text)
        self.append_block(block)
        return block

    def add_user(self, text: str, images: Sequence[Any] = ()) -> UserBlock:
        """A user message; the view returns to the tail and follows (the user just sent it)."""
        block = UserBlock(text, [self._image_part(image) for image in images])
        self._follow = True
        self.append_block(block)
        return block

    def add_note(self, text: str, kind: str = "status") -> NoteBlock:
        """A status/warning/error line; a status right after a status replaces it (R-TR-05)."""
        last = self.blocks[-1] if self.blocks else None
        if kind == "status" and isinstance(last, NoteBlock) and last.note_kind == "status":
            last.set_text(text)
            self.refresh_block(last, immediate=True)
            return last
        block = NoteBlock(text, kind)
        self.append_block(block)
        return block

    def start_assistant(self, message: Any) -> AssistantBlock:
        from pi_app.tui.transcript.blocks.assistant import AssistantBlock

        block = AssistantBlock(message, hide_thinking=self.hide_thinking)
        block.streaming = True
        self.append_block(block)
        self.streaming = block
        self.tools.begin_turn()
        return block

    def update_assistant(self, message: Any) -> None:
        """A streamed delta: update the streaming block and show new tool calls as pending.

        A new tool call shows at once; the arguments of the ones shown follow once per frame, as
        the text does: reading a streaming call's arguments parses its JSON so far, so doing it
        on every delta made a long call cost time quadratic in its length (issue 20)."""
        block = self.streaming or self.start_assistant(message)
        block.set_message(message)
        self.refresh_block(block)
        if self._has_new_tool_call(message) or not self.is_mounted:
            self._show_tool_calls(message)
            return
        self._calls_message = message
        if self._calls_timer is None:
            self._calls_timer = self.set_timer(FRAME_INTERVAL, self._show_pending_tool_calls)

    def _has_new_tool_call(self, message: Any) -> bool:
        seen: dict[str, int] = {}
        for part in getattr(message, "content", None) or []:
            if getattr(part, "type", None) == "toolCall" and part.id:
                occurrence = seen[part.id] = seen.get(part.id, -1) + 1
                if self.tools.nth(part.id, occurrence) is None:
                    return True
        return False

    def _show_pending_tool_calls(self) -> None:
        self._calls_timer = None
        message, self._calls_message = self._calls_message, None
        if message is not None:
            self._show_tool_calls(message)

    def _cancel_pending_tool_calls(self) -> None:
        if self._calls_timer is not None:
            self._calls_timer.stop()
            self._calls_timer = None
        self._calls_message = None

    def end_assistant(self, message: Any) -> None:
        self._cancel_pending_tool_calls()
        block = self.streaming or self.start_assistant(message)
        block.finish(message)
        self.refresh_block(block, immediate=True)
        self.streaming = None
        self._show_tool_calls(message, final=True)

    def _show_tool_calls(self, message: Any, final: bool = False) -> None:
        seen: dict[str, int] = {}
        for part in getattr(message, "content", None) or []:
            if getattr(part, "type", None) != "toolCall" or not part.id:
                continue
            occurrence = seen[part.id] = seen.get(part.id, -1) + 1
            tool = self.tools.nth(part.id, occurrence)
            if tool is None:
                self._new_tool(part.id, part.name, part.arguments)
            elif tool.args != part.arguments:
                tool.set_args(part.arguments)
                self.refresh_block(tool, immediate=final)

    def _new_tool(self, call_id: str, name: str, args: Any) -> ToolBlock:
        from pi_app.tui.transcript.blocks.tool import ToolBlock

        tool = ToolBlock(call_id, name, args, expand_hint=self.expand_hint, image_factory=self._image_part)
        self.tools.add(tool)
        self.append_block(tool)
        return tool

    def tool_started(self, call_id: str, name: str, args: Any) -> ToolBlock:
        """A tool began executing: its block in this turn (a new one if the call was not shown)."""
        tool = self.tools.to_start(call_id)
        if tool is None:
            tool = self._new_tool(call_id, name, args)
            self.tools.mark_started(tool)
        else:
            tool.set_args(args)
            self.refresh_block(tool)
        return tool

    def tool_updated(
        self,
        call_id: str,
        name: str,
        args: Any,
        partial: Any,
        final: bool = False,
        is_error: bool | None = None,
    ) -> None:
        tool = self.tools.for_update(call_id, args) or self.tool_started(call_id, name, args)
        tool.set_args(args)
        tool.set_result(partial, is_error=is_error, final=final)
        self.refresh_block(tool, immediate=final)
