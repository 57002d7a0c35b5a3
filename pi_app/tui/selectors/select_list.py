"""A searchable list that takes the editor's place: the building block of every selector (R-SEL-00).

``SelectListModel`` is the headless part (items, fuzzy filter, selection, scrolling window) and is
tested without Textual. ``SelectList`` draws it between two rules: an optional title, the search
line, the visible rows (``→`` marks the selection, a ``✓``-style marker per item), ``(i/N)`` when
the list scrolls, and a hint line. Keys go through the effective keybindings (``tui.select.*``);
printable keys type into the search, Backspace deletes; ``extra_keys`` maps more action ids to
callbacks (the scoped-models selector's Ctrl+A, Ctrl+S, …).

Callbacks, not messages: ``on_select(item)``, ``on_cancel()``, ``on_highlight(item)`` (used for
live theme preview). They run on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from pi_app.coding.fuzzy import fuzzy_filter
from pi_app.tui.editor.segments import truncate_cells
from pi_app.tui.input.keybindings import Keybindings
from pi_app.tui.input.keys import KeyPress, key_press
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK, BlockTheme, bg, fg


@dataclass
class SelectItem:
    value: Any
    label: str
    description: str | None = None
    marker: str = ""
    """Shown before the label (``✓`` for the current model, ``[x]`` in checklists)."""
    search_text: str | None = None


@dataclass
class SelectListModel:
    items: list[SelectItem] = field(default_factory=list)
    max_visible: int = 10
    query: str = ""
    selected: int = 0
    top: int = 0
    filtered: list[SelectItem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.filtered = list(self.items)

    def set_items(self, items: Sequence[SelectItem], keep: Any = None) -> None:
        self.items = list(items)
        self._refilter(keep)

    def set_query(self, query: str) -> None:
        """Filter by ``query``; the best match is selected (as pi 1.6.0's lists do), or the
        current item again when the query is cleared."""
        current = self.current()
        self.query = query
        self._refilter(None if query.strip() else (current.value if current else None))

    def _refilter(self, keep: Any = None) -> None:
        self.filtered = fuzzy_filter(
            self.items, self.query, lambda item: item.search_text or f"{item.label} {item.description or ''}"
        )
        self.selected = 0
        if keep is not None:
            for i, item in enumerate(self.filtered):
                if item.value == keep:
                    self.selected = i
                    break
        self._scroll()

    def current(self) -> SelectItem | None:
        return self.filtered[self.selected] if 0 <= self.selected < len(self.filtered) else None

    def select_value(self, value: Any) -> None:
        for i, item in enumerate(self.filtered):
            if item.value == value:
                self.selected = i
                self._scroll()
                return

    def move(self, delta: int) -> None:
        if not self.filtered:
            return
        self.selected = (self.selected + delta) % len(self.filtered)
        self._scroll()

    def page(self, delta: int) -> None:
        if not self.filtered:
            return
        self.selected = max(0, min(len(self.filtered) - 1, self.selected + delta * self.max_visible))
        self._scroll()

    def _scroll(self) -> None:
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + self.max_visible:
            self.top = self.selected - self.max_visible + 1
        self.top = max(0, min(self.top, max(0, len(self.filtered) - self.max_visible)))

    def visible(self) -> list[tuple[int, SelectItem]]:
        return list(enumerate(self.filtered))[self.top : self.top + self.max_visible]


class SelectList(Widget, can_focus=True):
    DEFAULT_CSS = """
    SelectList { height: auto; background: $background; }
    """

    def __init__(
        self,
        items: Sequence[SelectItem],
        *,
        title: str | None = None,
        keybindings: Keybindings | None = None,
        theme: BlockTheme | None = None,
        searchable: bool = True,
        max_visible: int = 10,
        hint: str | None = None,
        notice: str | None = None,
        empty_text: str = "No matches",
        on_select: Callable[[SelectItem], Any] | None = None,
        on_cancel: Callable[[], Any] | None = None,
        on_highlight: Callable[[SelectItem], Any] | None = None,
        extra_keys: dict[str, Callable[[], Any]] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.model = SelectListModel(list(items), max_visible=max_visible)
        self.title = title
        self.keybindings = keybindings or Keybindings()
        self.pi_theme = theme or FALLBACK_DARK
        self.searchable = searchable
        self.hint = hint
        self.notice = notice
        self.empty_text = empty_text
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_highlight = on_highlight
        self.extra_keys = dict(extra_keys or {})
        self._strips: list[Strip] = []
        self._built_for: tuple[Any, ...] | None = None
        self._version = 0

    # -- state ----------------------------------------------------------------------------------

    def changed(self) -> None:
        """Repaint after the model or the texts changed."""
        self._version += 1
        self._built_for = None
        self.refresh(layout=True)

    def set_items(self, items: Sequence[SelectItem], keep: Any = None) -> None:
        current = self.model.current()
        self.model.set_items(items, keep if keep is not None else (current.value if current else None))
        self.changed()

    # -- drawing --------------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._build(width))

    def _build(self, width: int) -> list[Strip]:
        key = (width, self._version, self.pi_theme.version, self.pi_theme.name)
        if key != self._built_for:
            self._built_for = key
            base = self.rich_style
            self._strips = [strip.apply_style(base) for strip in self._render_strips(width)]
        return self._strips

    def _line(self, text: str, style: Style, width: int) -> Strip:
        return Strip([Segment(truncate_cells(text, width), style)]).crop_extend(0, width, None)

    def _render_strips(self, width: int) -> list[Strip]:
        theme = self.pi_theme
        model = self.model
        rule = Strip([Segment("─" * width, fg(theme, "border"))], width)
        strips = [rule]
        if self.title:
            strips.append(self._line(f" {self.title}", fg(theme, "accent") + Style(bold=True), width))
        if self.notice:
            strips.append(self._line(f" {self.notice}", fg(theme, "warning"), width))
        if self.searchable:
            query = Strip(
                [
                    Segment(" > ", fg(theme, "muted")),
                    Segment(model.query, fg(theme, "text")),
                    Segment(" ", Style(reverse=True)),
                ]
            )
            strips.append(query.crop_extend(0, width, None))
        if not model.filtered:
            strips.append(self._line(f"  {self.empty_text}", fg(theme, "muted"), width))
        label_width = 0
        shown = model.visible()
        if shown and width > 40:
            longest = max(cell_len(item.marker + item.label) for _, item in shown)
            label_width = min(longest + 4, max(12, width // 2))
        for index, item in shown:
            selected = index == model.selected
            prefix = "→ " if selected else "  "
            style = fg(theme, "accent") + Style(bold=True) if selected else fg(theme, "text")
            label = truncate_cells(f"{item.marker}{item.label}", max(1, (label_width or width) - 3))
            segments = [Segment(" " + prefix + label, style)]
            if item.description and label_width:
                used = 3 + cell_len(label)
                gap = max(1, label_width - used + 3)
                room = max(0, width - used - gap)
                segments.append(
                    Segment(" " * gap + truncate_cells(item.description, room), fg(theme, "muted"))
                )
            row = Strip(segments)
            if selected:  # the whole row, text included, sits on the selection colour
                row = row.apply_style(bg(theme, "selectedBg"))
            row = row.crop_extend(0, width, bg(theme, "selectedBg") if selected else None)
            strips.append(row)
        if len(model.filtered) > model.max_visible:
            strips.append(
                self._line(f"  ({model.selected + 1}/{len(model.filtered)})", fg(theme, "muted"), width)
            )
        if self.hint:
            strips.append(self._line(f" {self.hint}", fg(theme, "dim"), width))
        strips.append(rule)
        return strips

    def render_line(self, y: int) -> Strip:
        strips = self._build(self.size.width)
        return strips[y] if 0 <= y < len(strips) else Strip.blank(self.size.width)

    def on_resize(self) -> None:
        self.changed()

    # -- keys -----------------------------------------------------------------------------------

    async def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.handle_key(key_press(event))

    # the list's own key handler, not Textual's async Widget.handle_key (on_key stops every key first)
    def handle_key(self, press: KeyPress) -> None:  # type: ignore[override]
        kb = self.keybindings
        model = self.model
        for action, callback in self.extra_keys.items():
            if kb.matches(press, action):
                callback()
                self.changed()
                return
        before = model.current()
        if kb.matches(press, "tui.select.up"):
            model.move(-1)
        elif kb.matches(press, "tui.select.down"):
            model.move(1)
        elif kb.matches(press, "tui.select.pageUp"):
            model.page(-1)
        elif kb.matches(press, "tui.select.pageDown"):
            model.page(1)
        elif kb.matches(press, "tui.select.confirm"):
            item = model.current()
            if item is not None and self.on_select is not None:
                self.on_select(item)
            return
        elif kb.matches(press, "tui.select.cancel"):
            if self.searchable and model.query and press.key_id == "escape":
                model.set_query("")
            elif self.on_cancel is not None:
                self.on_cancel()
                return
        elif self.searchable and kb.matches(press, "tui.editor.deleteCharBackward"):
            model.set_query(model.query[:-1])
        elif self.searchable and press.character:
            model.set_query(model.query + press.character)
        else:
            return
        after = model.current()
        if after is not None and after is not before and self.on_highlight is not None:
            self.on_highlight(after)
        self.changed()
