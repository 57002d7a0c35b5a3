"""``TreeNavigator``: the ``/tree`` selector that replaces the editor (spec 60 R-SEL-01).

Layout, top to bottom: a rule, the title, one line of key help (built from the effective keys),
the search line, a rule, the visible window of the tree (half the terminal height) with the
``(n/total)`` line under it, and a closing rule. ``shift+l`` swaps the rows for a one-line label
editor (decision D-42: a plain ``l`` types into the search).

The widget only renders and forwards keys; ``TreeNavModel`` does the work. It never touches the
session: it posts ``Selected``, ``Cancelled`` and ``LabelChanged`` and the owner acts on them
(the app appends the label entry and runs the navigation, then closes the selector). While
idle it has the model build search texts in slices (``warm_search``), ahead of the first letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip

from pi_app.tui.input.keys import key_press
from pi_app.tui.selectors.bindings import DEFAULT_SELECTOR_KEYS, KeyMap
from pi_app.tui.selectors.inline_input import InlineInput
from pi_app.tui.selectors.lines import LineView, Run, fit, rule, styled, theme_of
from pi_app.tui.selectors.slot import Answer
from pi_app.tui.selectors.tree_model import RowView, TreeNavModel

if TYPE_CHECKING:
    from pi_app.tui.transcript.blocks.theme import BlockTheme

TREE_ACTIONS = (
    "app.tree.editLabel",
    "app.tree.toggleLabelTimestamp",
    "app.tree.foldOrUp",
    "app.tree.unfoldOrDown",
    "app.tree.filter.cycleBackward",
    "app.tree.filter.cycleForward",
    "app.tree.filter.default",
    "app.tree.filter.noTools",
    "app.tree.filter.userOnly",
    "app.tree.filter.labeledOnly",
    "app.tree.filter.all",
    "tui.select.up",
    "tui.select.down",
    "tui.editor.cursorLeft",
    "tui.select.pageUp",
    "tui.editor.cursorRight",
    "tui.select.pageDown",
    "tui.select.confirm",
    "tui.select.cancel",
    "tui.editor.deleteCharBackward",
)
WARM_SEARCH_ROWS = 400
WARM_SEARCH_PAUSE = 0.01
WARM_SEARCH_START = 0.1
FILTER_TOGGLES = {
    "app.tree.filter.noTools": "no-tools",
    "app.tree.filter.userOnly": "user-only",
    "app.tree.filter.labeledOnly": "labeled-only",
    "app.tree.filter.all": "all",
}


def row_strip(row: RowView, theme: BlockTheme, width: int) -> Strip:
    """Paint one tree row: cursor, connectors (dim), markers, label, then the entry text."""
    runs: list[Run] = [("› " if row.selected else "  ", "accent"), (row.prefix, "dim")]
    runs.append((row.fold_marker, "accent"))
    if row.on_path:
        runs.append(("• ", "accent"))
    if row.label:
        runs.append((f"[{row.label}] ", "warning"))
    if row.label_time:
        runs.append((f"{row.label_time} ", "muted"))
    runs.extend(row.content)
    if row.is_leaf:
        runs.append((" ← active", "accent"))
    background = "selectedBg" if row.selected else None
    return styled(fit(runs, width), theme, width, bold=row.selected, background=background)


class TreeNavigator(Vertical, can_focus=True):
    """The session tree with search, filters, folding and labels; posts what the user chose."""

    DEFAULT_CSS = """
    TreeNavigator { height: auto; }
    TreeNavigator.-labeling #tree-rows { display: none; }
    """

    @dataclass
    class Selected(Answer):
        """Enter on an entry."""

        navigator: TreeNavigator
        entry_id: str

    @dataclass
    class Cancelled(Answer):
        """Escape with an empty search."""

        navigator: TreeNavigator

    @dataclass
    class LabelChanged(Message):
        """The label editor saved ``label`` (None clears it) for ``entry_id``."""

        navigator: TreeNavigator
        entry_id: str
        label: str | None

    def __init__(
        self,
        roots: Any,
        current_leaf_id: str | None,
        *,
        page_size: int = 10,
        filter_mode: str = "default",
        selected_id: str | None = None,
        keys: KeyMap | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.model = TreeNavModel(
            roots, current_leaf_id, page_size=page_size, filter_mode=filter_mode, selected_id=selected_id
        )
        self.keys = keys or DEFAULT_SELECTOR_KEYS
        self._label_target: str | None = None
        self.label_editor = InlineInput("Label (empty to remove):", self.keys)
        self.header = LineView(self._paint_header, id="tree-header")
        self.rows = LineView(self._paint_rows, id="tree-rows")

    def on_mount(self) -> None:
        self.set_timer(WARM_SEARCH_START, self._warm_search)  # after the first paint

    def _warm_search(self) -> None:
        """Build search texts a slice at a time between key presses, so the first search letter
        on a large session only filters (a key waits for at most one slice)."""
        if not self.model.warm_search(WARM_SEARCH_ROWS):
            self.set_timer(WARM_SEARCH_PAUSE, self._warm_search)

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.rows
        yield self.label_editor
        yield LineView(lambda width: [rule(theme_of(self), width)], id="tree-footer")

    # -- painting -------------------------------------------------------------------------------

    def help_text(self) -> str:
        k = self.keys
        filters = "/".join(
            k.hint(f"app.tree.filter.{name}")
            for name in ("default", "noTools", "userOnly", "labeledOnly", "all")
        )
        cycle = f"{k.hint('app.tree.filter.cycleForward')}/{k.hint('app.tree.filter.cycleBackward')}"
        return (
            f"↑/↓: move. ←/→: page. {k.hint('app.tree.foldOrUp')}/{k.hint('app.tree.unfoldOrDown')}: "
            f"fold/branch. {k.hint('app.tree.editLabel')}: label. {filters}: filters ({cycle} cycle). "
            f"{k.hint('app.tree.toggleLabelTimestamp')}: label time"
        )

    def _paint_header(self, width: int) -> list[Strip]:
        theme = theme_of(self)
        search: list[Run] = [("  Type to search:", "muted")]
        if self.model.search:
            search.append((f" {self.model.search}", "accent"))
        help_line = "  " + self.help_text()
        if len(help_line) > width:
            help_line = help_line[: max(0, width - 3)] + "..."
        return [
            rule(theme, width),
            styled([("  Session Tree", None)], theme, width, bold=True),
            styled([(help_line, "muted")], theme, width),
            styled(search, theme, width),
            rule(theme, width),
        ]

    def _paint_rows(self, width: int) -> list[Strip]:
        theme = theme_of(self)
        model = self.model
        if not model.visible_count:
            lines = [styled([("  No entries found", "muted")], theme, width)]
        else:
            lines = [row_strip(row, theme, width) for row in model.rows()]
        lines.append(styled([(f"  {model.status_text()}", "muted")], theme, width))
        return lines

    def repaint(self) -> None:
        self.header.repaint()
        self.rows.repaint()

    def row_texts(self) -> list[str]:
        """The visible rows as plain text (tests)."""
        return [row.plain() for row in self.model.rows()]

    # -- keys -----------------------------------------------------------------------------------

    @property
    def labeling(self) -> bool:
        return self._label_target is not None

    def on_key(self, event: events.Key) -> None:
        if self.labeling:
            return  # the label editor's keys
        press = key_press(event)
        event.stop()
        event.prevent_default()
        action = self.keys.first_match(press, TREE_ACTIONS)
        model = self.model
        if action is None:
            if press.character:
                model.type_text(press.character)
                self.repaint()
            return
        search = model.search
        if action == "tui.select.confirm":
            if model.selected_id:
                self.post_message(self.Selected(self, model.selected_id))
            return
        if action == "tui.select.cancel":
            if model.clear_search():
                self.repaint()
            else:
                self.post_message(self.Cancelled(self))
            return
        if action == "app.tree.editLabel":
            self.open_label_editor()
            return
        self._move(action)
        if model.search != search:
            self.repaint()
        else:  # a move, fold or filter: the header (key help, search line) is unchanged
            self.rows.repaint()

    def _move(self, action: str) -> None:
        model = self.model
        if action == "tui.select.up":
            model.move_up()
        elif action == "tui.select.down":
            model.move_down()
        elif action in ("tui.editor.cursorLeft", "tui.select.pageUp"):
            model.page_up()
        elif action in ("tui.editor.cursorRight", "tui.select.pageDown"):
            model.page_down()
        elif action == "app.tree.foldOrUp":
            model.fold_or_up()
        elif action == "app.tree.unfoldOrDown":
            model.unfold_or_down()
        elif action == "app.tree.filter.default":
            model.set_filter("default")
        elif action in FILTER_TOGGLES:
            model.toggle_filter(FILTER_TOGGLES[action])
        elif action == "app.tree.filter.cycleForward":
            model.cycle_filter(1)
        elif action == "app.tree.filter.cycleBackward":
            model.cycle_filter(-1)
        elif action == "tui.editor.deleteCharBackward":
            model.backspace()
        elif action == "app.tree.toggleLabelTimestamp":
            model.toggle_label_timestamps()

    # -- label editor ---------------------------------------------------------------------------

    def open_label_editor(self) -> None:
        node = self.model.selected_node
        if node is None:
            return
        self._label_target = node.entry.id
        self.add_class("-labeling")
        self.label_editor.open(node.label or "")

    def close_label_editor(self) -> None:
        self._label_target = None
        self.label_editor.close()
        self.remove_class("-labeling")
        self.focus()
        self.repaint()

    @on(InlineInput.Closed)
    def _label_closed(self, event: InlineInput.Closed) -> None:
        event.stop()
        self.close_label_editor()

    @on(InlineInput.Saved)
    def _label_saved(self, event: InlineInput.Saved) -> None:
        event.stop()
        target = self._label_target
        if target is None:
            return
        label = event.value or None
        self.model.set_label(target, label)
        self.post_message(self.LabelChanged(self, target, label))
        self.close_label_editor()
