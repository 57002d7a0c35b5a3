"""``ForkSelector``: the ``/fork`` list of user messages (spec 60 R-SEL-02, spec 30 R-NAV-04).

Every user message of the session file (all branches, file order, non-empty text) is a row; the
newest is selected first. Enter posts ``Selected(entry_id)``; the owner forks the session at that
message and puts its text in the editor. Escape posts ``Cancelled``.

Our decision: one line per message with its number at the right edge (pi uses three lines per
message), so ten messages fit beside the transcript in a 24-row terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.strip import Strip

from pi_app.ai.util.content_text import content_text
from pi_app.tui.editor.segments import truncate_cells
from pi_app.tui.input.keys import key_press
from pi_app.tui.selectors.bindings import DEFAULT_SELECTOR_KEYS, KeyMap
from pi_app.tui.selectors.lines import LineView, rule, styled, theme_of
from pi_app.tui.selectors.list_cursor import ListCursor
from pi_app.tui.selectors.slot import Answer

FORK_ACTIONS = (
    "tui.select.up",
    "tui.select.down",
    "tui.select.pageUp",
    "tui.select.pageDown",
    "tui.select.confirm",
    "tui.select.cancel",
)


@dataclass(frozen=True)
class ForkCandidate:
    entry_id: str
    text: str


def fork_candidates(entries: Sequence[Any]) -> list[ForkCandidate]:
    """The user messages of ``entries`` (session entries in file order) that have text."""
    found = []
    for entry in entries:
        raw = entry.raw
        message = raw.get("message") if raw.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            text = content_text(message.get("content"))
            if text.strip():
                found.append(ForkCandidate(entry.id, text))
    return found


class ForkSelector(Vertical, can_focus=True):
    DEFAULT_CSS = """
    ForkSelector { height: auto; }
    """

    @dataclass
    class Selected(Answer):
        selector: ForkSelector
        entry_id: str
        text: str

    @dataclass
    class Cancelled(Answer):
        selector: ForkSelector

    def __init__(
        self,
        candidates: Sequence[ForkCandidate],
        *,
        page_size: int = 10,
        keys: KeyMap | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.candidates = list(candidates)
        self.cursor = ListCursor(len(self.candidates), page_size, selected=len(self.candidates) - 1)
        self.keys = keys or DEFAULT_SELECTOR_KEYS
        self.view = LineView(self._paint)

    def compose(self) -> ComposeResult:
        yield self.view

    @property
    def selected(self) -> ForkCandidate | None:
        return self.candidates[self.cursor.selected] if self.candidates else None

    def _paint(self, width: int) -> list[Strip]:
        theme = theme_of(self)
        lines = [
            rule(theme, width),
            styled([("  Fork from Message", None)], theme, width, bold=True),
            styled(
                [("  Its history goes into a new session; its text into the editor.", "muted")], theme, width
            ),
            rule(theme, width),
        ]
        if not self.candidates:
            lines.append(styled([("  No user messages found", "muted")], theme, width))
        start, end = self.cursor.window()
        total = len(self.candidates)
        for i in range(start, end):
            lines.append(self._row(i, theme, width))
        if self.cursor.scrolls:
            lines.append(styled([(f"  ({self.cursor.selected + 1}/{total})", "muted")], theme, width))
        lines.append(rule(theme, width))
        return lines

    def _row(self, index: int, theme: Any, width: int) -> Strip:
        selected = index == self.cursor.selected
        number = f" #{index + 1} "
        room = max(1, width - 2 - len(number))
        text = truncate_cells(" ".join(self.candidates[index].text.split()), room, "…")  # cells: CJK
        padded = text + " " * (room - cell_len(text))
        runs = [("› " if selected else "  ", "accent"), (padded, None), (number, "muted")]
        return styled(runs, theme, width, bold=selected, background="selectedBg" if selected else None)

    def row_texts(self) -> list[str]:
        start, end = self.cursor.window()
        return [self.candidates[i].text for i in range(start, end)]

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        action = self.keys.first_match(key_press(event), FORK_ACTIONS)
        if action == "tui.select.confirm":
            chosen = self.selected
            if chosen is not None:
                self.post_message(self.Selected(self, chosen.entry_id, chosen.text))
            return
        if action == "tui.select.cancel":
            self.post_message(self.Cancelled(self))
            return
        if action is None or not self.cursor.apply(action):
            return
        self.view.repaint()
