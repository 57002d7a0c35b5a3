"""The headless prompt-editor model (spec 60 §2.4, R-ED-01…13). No Textual import.

``EditorBuffer`` holds the logical lines, the cursor (an index into the line, always on a segment
boundary), the paste registry, the kill ring, the undo stack and the prompt history, and
implements every editing command of the prompt editor. The Textual widget (``widget.py``) only
maps keys to these methods and draws ``layout(width)``.

Rules worth knowing before changing anything:

* Undo (no redo): one snapshot (text, cursor, paste registry and counter) per unit. Typed word
  characters coalesce; a typed whitespace starts a new unit, so undo removes "space + word";
  every paste, newline, deletion, kill, yank, completion, ``set_text`` and history step is one
  unit (R-ED-09).
* Kill ring (R-ED-08): consecutive kills accumulate into one entry (backward kills prepend,
  forward kills append); ``yank_pop`` works only right after a yank and with two or more entries.
* Paste markers (R-ED-12/13): a paste of more than 10 lines or 1000 characters is stored in the
  registry and shown as ``[paste #N +L lines]`` / ``[paste #N C chars]``; deleting a marker
  removes its entry and renumbers the higher ones so ids stay dense; ``get_expanded_text`` puts the
  pasted text back. Text that merely looks like a marker (no registry entry) is ordinary text.
* Vertical moves (R-ED-05) work on visual (wrapped) lines, so they take the layout width.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from rich.cells import cell_len

from pi_app.tui.editor.history import PromptHistory
from pi_app.tui.editor.segments import PASTE_MARKER, TextChunk, char_class, segment_bounds, wrap
from pi_app.tui.input.typed_text import is_text, keep_text

LARGE_PASTE_LINES = 10
LARGE_PASTE_CHARS = 1000
TAB = "    "


@dataclass
class EditorState:
    """The editor's lines and cursor (line and column index into that line)."""

    lines: list[str] = field(default_factory=lambda: [""])
    cursor_line: int = 0
    cursor_col: int = 0


@dataclass
class EditorSnapshot:
    """One undo step: the state and the paste markers' texts at that moment."""

    state: EditorState
    pastes: dict[int, str]
    paste_counter: int


class KillRing:
    """Killed texts, newest last; independent of the system clipboard."""

    def __init__(self) -> None:
        self.entries: list[str] = []

    def push(self, text: str, *, prepend: bool, accumulate: bool) -> None:
        if not text:
            return
        if accumulate and self.entries:
            self.entries[-1] = text + self.entries[-1] if prepend else self.entries[-1] + text
        else:
            self.entries.append(text)

    def peek(self) -> str | None:
        return self.entries[-1] if self.entries else None

    def rotate(self) -> None:
        if len(self.entries) > 1:
            self.entries.insert(0, self.entries.pop())

    def __len__(self) -> int:
        return len(self.entries)


class UndoStack:
    def __init__(self) -> None:
        self._items: list[EditorSnapshot] = []

    def push(self, snapshot: EditorSnapshot) -> None:
        self._items.append(snapshot)

    def pop(self) -> EditorSnapshot | None:
        return self._items.pop() if self._items else None

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class VisualLine:
    """One row of the laid-out editor: logical line ``line`` from ``start`` to ``end``."""

    line: int
    start: int
    end: int
    text: str
    last: bool
    """True for the last visual row of its logical line."""


def normalize_text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", TAB)


def _clean_paste(text: str) -> str:
    text = normalize_text(text)
    return "".join(ch for ch in text if ch == "\n" or is_text(ch))


class EditorBuffer:
    def __init__(self, history: PromptHistory | None = None) -> None:
        self.lines: list[str] = [""]
        self.cursor_line = 0
        self.cursor_col = 0
        self.pastes: dict[int, str] = {}
        self.paste_counter = 0
        self.kill_ring = KillRing()
        self.undo_stack = UndoStack()
        self.history = history or PromptHistory()
        self.history_index = -1
        """-1 when not browsing history; else the index into ``history`` being shown."""
        self.version = 0
        """Bumped on every change of text or cursor (the widget repaints on a new version)."""
        self._last_action: str | None = None
        self._preferred_x: int | None = None
        self._yank_range: tuple[int, int, int, int] | None = None

    # -- text -----------------------------------------------------------------------------------

    def get_text(self) -> str:
        return "\n".join(self.lines)

    def get_expanded_text(self) -> str:
        return self.expand_markers(self.get_text())

    def expand_markers(self, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            number = int(match.group(1))
            return self.pastes.get(number, match.group(0))

        return PASTE_MARKER.sub(replace, text)

    @property
    def is_empty(self) -> bool:
        return self.lines == [""]

    def set_text(self, text: str) -> None:
        """Replace the text (one undo unit when it changes); the cursor goes to the end."""
        text = normalize_text(text)
        self._exit_history()
        if text != self.get_text():
            self._push_undo()
        self.lines = text.split("\n")
        if text == "":
            self.pastes.clear()
            self.paste_counter = 0
        self.cursor_line = len(self.lines) - 1
        self.cursor_col = len(self.lines[-1])
        self._last_action = None
        self._preferred_x = None
        self._changed()

    def clear(self) -> None:
        self.set_text("")

    def insert_text_at_cursor(self, text: str) -> None:
        """Insert ``text`` as one undo unit (completions, extension calls, image paths)."""
        self._exit_history()
        self._push_undo()
        self._insert_raw(normalize_text(text))
        self._last_action = None
        self._changed()

    def _insert_raw(self, text: str) -> None:
        line = self.lines[self.cursor_line]
        before, after = line[: self.cursor_col], line[self.cursor_col :]
        parts = text.split("\n")
        if len(parts) == 1:
            self.lines[self.cursor_line] = before + text + after
            self.cursor_col += len(text)
            return
        new_lines = [before + parts[0], *parts[1:-1], parts[-1] + after]
        self.lines[self.cursor_line : self.cursor_line + 1] = new_lines
        self.cursor_line += len(parts) - 1
        self.cursor_col = len(parts[-1])

    def insert(self, text: str) -> None:
        """Typed text (a key or committed IME text): control characters are dropped."""
        text = keep_text(text)
        if not text:
            return
        self._exit_history()
        if len(text) > 1 or text.isspace() or self._last_action != "type":
            self._push_undo()
        self._insert_raw(text)
        self._last_action = "type"
        self._preferred_x = None
        self._changed()

    def new_line(self) -> None:
        self._exit_history()
        self._push_undo()
        self._insert_raw("\n")
        self._last_action = None
        self._preferred_x = None
        self._changed()

    def backslash_newline(self) -> bool:
        """Enter after ``\\``: replace the backslash by a newline (True), else False (R-ED-03)."""
        line = self.lines[self.cursor_line]
        if self.cursor_col == 0 or line[self.cursor_col - 1] != "\\":
            return False
        self._exit_history()
        self._push_undo()
        self.lines[self.cursor_line] = line[: self.cursor_col - 1] + line[self.cursor_col :]
        self.cursor_col -= 1
        self._insert_raw("\n")
        self._last_action = None
        self._changed()
        return True

    def submit(self) -> str:
        """The expanded, trimmed text; the buffer, registry, history index and undo stack reset."""
        result = self.get_expanded_text().strip()
        self.lines = [""]
        self.cursor_line = self.cursor_col = 0
        self.pastes.clear()
        self.paste_counter = 0
        self.history_index = -1
        self.undo_stack.clear()
        self._last_action = None
        self._preferred_x = None
        self._changed()
        return result

    # -- paste ----------------------------------------------------------------------------------

    def paste(self, text: str) -> None:
        """Bracketed paste (R-ED-12): large pastes become markers; always one undo unit."""
        text = _clean_paste(text)
        if not text:
            return
        line = self.lines[self.cursor_line]
        if text[0] in "/~." and self.cursor_col > 0 and char_class(line[self.cursor_col - 1]) == "word":
            text = " " + text
        line_count = text.count("\n") + 1
        if line_count > LARGE_PASTE_LINES or len(text) > LARGE_PASTE_CHARS:
            self.paste_counter += 1
            number = self.paste_counter
            self._exit_history()
            self._push_undo()
            self.pastes[number] = text
            marker = (
                f"[paste #{number} +{line_count} lines]"
                if line_count > LARGE_PASTE_LINES
                else f"[paste #{number} {len(text)} chars]"
            )
            self._insert_raw(marker)
        else:
            self._exit_history()
            self._push_undo()
            self._insert_raw(text)
        self._last_action = None
        self._preferred_x = None
        self._changed()

    # -- segments -------------------------------------------------------------------------------

    def _bounds(self, line_index: int) -> list[int]:
        return segment_bounds(self.lines[line_index], self.pastes)

    def _prev_bound(self, line_index: int, col: int) -> int:
        bounds = self._bounds(line_index)
        previous = 0
        for b in bounds:
            if b >= col:
                break
            previous = b
        return previous

    def _next_bound(self, line_index: int, col: int) -> int:
        for b in self._bounds(line_index):
            if b > col:
                return b
        return len(self.lines[line_index])

    def _segments(self, line_index: int) -> list[tuple[int, int, str]]:
        line = self.lines[line_index]
        bounds = self._bounds(line_index)
        return [(a, b, line[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]

    def _segment_class(self, text: str) -> str:
        match = PASTE_MARKER.fullmatch(text)
        if match and int(match.group(1)) in self.pastes:
            return "marker"
        return char_class(text)

    # -- horizontal movement --------------------------------------------------------------------

    def move_left(self) -> None:
        self._horizontal()
        if self.cursor_col > 0:
            self.cursor_col = self._prev_bound(self.cursor_line, self.cursor_col)
        elif self.cursor_line > 0:
            self.cursor_line -= 1
            self.cursor_col = len(self.lines[self.cursor_line])
        self._changed()

    def move_right(self) -> None:
        self._horizontal()
        if self.cursor_col < len(self.lines[self.cursor_line]):
            self.cursor_col = self._next_bound(self.cursor_line, self.cursor_col)
        elif self.cursor_line < len(self.lines) - 1:
            self.cursor_line += 1
            self.cursor_col = 0
        self._changed()

    def line_start(self) -> None:
        self._horizontal()
        self.cursor_col = 0
        self._changed()

    def line_end(self) -> None:
        self._horizontal()
        self.cursor_col = len(self.lines[self.cursor_line])
        self._changed()

    def _word_left_target(self) -> tuple[int, int]:
        line_index, col = self.cursor_line, self.cursor_col
        if col == 0:
            return (line_index - 1, len(self.lines[line_index - 1])) if line_index > 0 else (0, 0)
        segments = [s for s in self._segments(line_index) if s[1] <= col]
        while segments and self._segment_class(segments[-1][2]) == "space":
            segments.pop()
        if not segments:
            return line_index, 0
        kind = self._segment_class(segments[-1][2])
        if kind == "marker":
            return line_index, segments[-1][0]
        while len(segments) > 1 and self._segment_class(segments[-2][2]) == kind:
            segments.pop()
        return line_index, segments[-1][0]

    def _word_right_target(self) -> tuple[int, int]:
        line_index, col = self.cursor_line, self.cursor_col
        line = self.lines[line_index]
        if col >= len(line):
            return (line_index + 1, 0) if line_index < len(self.lines) - 1 else (line_index, len(line))
        segments = [s for s in self._segments(line_index) if s[0] >= col]
        while segments and self._segment_class(segments[0][2]) == "space":
            segments.pop(0)
        if not segments:
            return line_index, len(line)
        kind = self._segment_class(segments[0][2])
        if kind == "marker":
            return line_index, segments[0][1]
        end = segments[0][1]
        for _start, stop, text in segments[1:]:
            if self._segment_class(text) != kind:
                break
            end = stop
        return line_index, end

    def word_left(self) -> None:
        self._horizontal()
        self.cursor_line, self.cursor_col = self._word_left_target()
        self._changed()

    def word_right(self) -> None:
        self._horizontal()
        self.cursor_line, self.cursor_col = self._word_right_target()
        self._changed()

    def _horizontal(self) -> None:
        self._preferred_x = None
        self._last_action = None

    # -- vertical movement (visual lines) -------------------------------------------------------

    def layout(self, width: int) -> list[VisualLine]:
        rows: list[VisualLine] = []
        for index, line in enumerate(self.lines):
            chunks: list[TextChunk] = wrap(line, width, self.pastes)
            for n, chunk in enumerate(chunks):
                rows.append(
                    VisualLine(index, chunk.start_index, chunk.end_index, chunk.text, n == len(chunks) - 1)
                )
        return rows

    def cursor_row(self, rows: list[VisualLine]) -> int:
        """The visual row that shows the cursor."""
        for i, row in enumerate(rows):
            if row.line != self.cursor_line:
                continue
            if row.start <= self.cursor_col < row.end or (row.last and self.cursor_col == row.end):
                return i
        return max(0, len(rows) - 1)

    def cursor_visual(self, width: int) -> tuple[int, int]:
        """(row, cell column) of the cursor in ``layout(width)``."""
        rows = self.layout(width)
        row = self.cursor_row(rows)
        visual = rows[row]
        line = self.lines[visual.line]
        return row, cell_len(line[visual.start : self.cursor_col])

    def _col_at_x(self, row: VisualLine, x: int, snap_end: bool) -> tuple[int, bool]:
        """The segment boundary in ``row`` for cell ``x``, and whether the row was too short.

        Inside a multi-cell segment the cursor snaps to its start (``snap_end`` False, moving up)
        or its end (moving down).
        """
        line = self.lines[row.line]
        bounds = [b for b in self._bounds(row.line) if row.start <= b <= row.end]
        if not row.last and len(bounds) > 1:
            bounds = bounds[:-1]  # the row's end index is drawn on the next row
        widths = [cell_len(line[row.start : b]) for b in bounds]
        if widths[-1] < x:
            return bounds[-1], True
        for b, w in zip(bounds, widths, strict=True):
            if w == x:
                return b, False
            if w > x:
                if snap_end:
                    return b, False
                break
        best = bounds[0]
        for b, w in zip(bounds, widths, strict=True):
            if w <= x:
                best = b
        return best, False

    def _move_vertical(self, delta: int, width: int) -> bool:
        """Move ``delta`` visual rows keeping the sticky column; False at the first/last row."""
        rows = self.layout(width)
        current = self.cursor_row(rows)
        target = current + delta
        if target < 0 or target >= len(rows):
            return False
        visual = rows[current]
        x_now = cell_len(self.lines[visual.line][visual.start : self.cursor_col])
        want = self._preferred_x if self._preferred_x is not None else x_now
        col, clamped = self._col_at_x(rows[target], want, snap_end=delta > 0)
        self.cursor_line = rows[target].line
        self.cursor_col = col
        self._preferred_x = want if clamped else None
        return True

    def move_up(self, width: int) -> None:
        """Up (R-ED-05/10): history when empty or browsing on the first row; else one visual row."""
        self._last_action = None
        rows = self.layout(width)
        on_first = self.cursor_row(rows) == 0
        if self.is_empty or (self.history_index >= 0 and on_first):
            if self.history_up():
                return
        if not self._move_vertical(-1, width):
            self.cursor_col = 0
            self._preferred_x = None
        self._changed()

    def move_down(self, width: int) -> None:
        self._last_action = None
        rows = self.layout(width)
        on_last = self.cursor_row(rows) == len(rows) - 1
        if self.history_index >= 0 and on_last:
            self.history_down()
            return
        if not self._move_vertical(1, width):
            self.cursor_col = len(self.lines[self.cursor_line])
            self._preferred_x = None
        self._changed()

    def page(self, direction: int, width: int, rows: int) -> None:
        step = max(5, int(rows * 0.3))
        self._last_action = None
        for _ in range(step):
            if not self._move_vertical(direction, width):
                break
        self._changed()

    # -- history --------------------------------------------------------------------------------

    def add_to_history(self, text: str) -> None:
        self.history.add(text)

    def history_up(self) -> bool:
        if self.history_index + 1 >= len(self.history):
            return False
        if self.history_index == -1:
            self._push_undo()
        self.history_index += 1
        self._show_history_entry(self.history[self.history_index])
        return True

    def history_down(self) -> bool:
        if self.history_index < 0:
            return False
        self.history_index -= 1
        self._show_history_entry(self.history[self.history_index] if self.history_index >= 0 else "")
        return True

    def _show_history_entry(self, text: str) -> None:
        self.lines = normalize_text(text).split("\n")
        self.cursor_line = len(self.lines) - 1
        self.cursor_col = len(self.lines[-1])
        self._preferred_x = None
        self._changed()

    def _exit_history(self) -> None:
        self.history_index = -1

    # -- deletion and the kill ring -------------------------------------------------------------

    def backspace(self) -> None:
        self._exit_history()
        self._preferred_x = None
        if self.cursor_col == 0 and self.cursor_line == 0:
            self._last_action = None
            return
        self._push_undo()
        if self.cursor_col == 0:
            previous = self.lines[self.cursor_line - 1]
            self.lines[self.cursor_line - 1] = previous + self.lines.pop(self.cursor_line)
            self.cursor_line -= 1
            self.cursor_col = len(previous)
        else:
            start = self._prev_bound(self.cursor_line, self.cursor_col)
            line = self.lines[self.cursor_line]
            self.lines[self.cursor_line] = line[:start] + line[self.cursor_col :]
            self.cursor_col = start
        self._last_action = None
        self._after_delete()

    def delete_forward(self) -> None:
        self._exit_history()
        self._preferred_x = None
        line = self.lines[self.cursor_line]
        if self.cursor_col >= len(line) and self.cursor_line >= len(self.lines) - 1:
            self._last_action = None
            return
        self._push_undo()
        if self.cursor_col >= len(line):
            self.lines[self.cursor_line] = line + self.lines.pop(self.cursor_line + 1)
        else:
            end = self._next_bound(self.cursor_line, self.cursor_col)
            self.lines[self.cursor_line] = line[: self.cursor_col] + line[end:]
        self._last_action = None
        self._after_delete()

    def _delete_range(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        (l1, c1), (l2, c2) = start, end
        if (l1, c1) == (l2, c2):
            return ""
        text = "\n".join(self.lines[l1 : l2 + 1])
        removed = text[c1 : len(text) - (len(self.lines[l2]) - c2)]
        self.lines[l1 : l2 + 1] = [self.lines[l1][:c1] + self.lines[l2][c2:]]
        self.cursor_line, self.cursor_col = l1, c1
        return removed

    def _kill(self, start: tuple[int, int], end: tuple[int, int], backward: bool) -> None:
        self._exit_history()
        self._preferred_x = None
        if start == end:
            self._last_action = None
            return
        self._push_undo()
        removed = self._delete_range(start, end)
        self.kill_ring.push(removed, prepend=backward, accumulate=self._last_action == "kill")
        self._last_action = "kill"
        self._after_delete(keep_action=True)

    def delete_word_backward(self) -> None:
        target = self._word_left_target()
        self._kill(target, (self.cursor_line, self.cursor_col), backward=True)

    def delete_word_forward(self) -> None:
        target = self._word_right_target()
        self._kill((self.cursor_line, self.cursor_col), target, backward=False)

    def delete_to_line_start(self) -> None:
        if self.cursor_col == 0 and self.cursor_line > 0:
            start = (self.cursor_line - 1, len(self.lines[self.cursor_line - 1]))
        else:
            start = (self.cursor_line, 0)
        self._kill(start, (self.cursor_line, self.cursor_col), backward=True)

    def delete_to_line_end(self) -> None:
        line = self.lines[self.cursor_line]
        if self.cursor_col >= len(line) and self.cursor_line < len(self.lines) - 1:
            end = (self.cursor_line + 1, 0)
        else:
            end = (self.cursor_line, len(line))
        self._kill((self.cursor_line, self.cursor_col), end, backward=False)

    def yank(self) -> None:
        text = self.kill_ring.peek()
        if text is None:
            return
        self._exit_history()
        self._push_undo()
        start = (self.cursor_line, self.cursor_col)
        self._insert_raw(text)
        self._yank_range = (*start, self.cursor_line, self.cursor_col)
        self._last_action = "yank"
        self._preferred_x = None
        self._changed()

    def yank_pop(self) -> None:
        if self._last_action != "yank" or len(self.kill_ring) < 2 or self._yank_range is None:
            return
        l1, c1, l2, c2 = self._yank_range
        self._push_undo()
        self._delete_range((l1, c1), (l2, c2))
        self.kill_ring.rotate()
        self._insert_raw(self.kill_ring.peek() or "")
        self._yank_range = (l1, c1, self.cursor_line, self.cursor_col)
        self._last_action = "yank"
        self._changed()

    def _after_delete(self, keep_action: bool = False) -> None:
        """Drop registry entries whose marker is gone and renumber the rest densely (R-ED-13)."""
        if self.pastes:
            present = {int(m.group(1)) for line in self.lines for m in PASTE_MARKER.finditer(line)} & set(
                self.pastes
            )
            gone = sorted(set(self.pastes) - present, reverse=True)
            for number in gone:
                self._remove_paste(number)
        if not keep_action:
            self._last_action = None
        self._changed()

    def _remove_paste(self, number: int) -> None:
        del self.pastes[number]
        higher = sorted(n for n in self.pastes if n > number)
        if not higher:
            self.paste_counter = max(self.pastes, default=0)
            return
        renumber = {n: n - 1 for n in higher}

        def replace(match: re.Match[str]) -> str:
            old = int(match.group(1))
            if old not in renumber:
                return match.group(0)
            return f"[paste #{renumber[old]}{match.group(2) or ''}]"

        for index, line in enumerate(self.lines):
            if "[paste #" not in line:
                continue
            if index == self.cursor_line:
                head = PASTE_MARKER.sub(replace, line[: self.cursor_col])
                tail = PASTE_MARKER.sub(replace, line[self.cursor_col :])
                self.lines[index] = head + tail
                self.cursor_col = len(head)
            else:
                self.lines[index] = PASTE_MARKER.sub(replace, line)
        self.pastes = {renumber.get(n, n): text for n, text in self.pastes.items()}
        self.paste_counter = max(self.pastes, default=0)

    # -- undo -----------------------------------------------------------------------------------

    def snapshot(self) -> EditorSnapshot:
        return EditorSnapshot(
            EditorState(list(self.lines), self.cursor_line, self.cursor_col),
            copy.copy(self.pastes),
            self.paste_counter,
        )

    def _push_undo(self) -> None:
        self.undo_stack.push(self.snapshot())

    def push_undo_unit(self) -> None:
        """Start a new undo unit (callers that edit through ``replace_range``)."""
        self._push_undo()
        self._last_action = None

    def undo(self) -> None:
        snapshot = self.undo_stack.pop()
        if snapshot is None:
            return
        self.lines = list(snapshot.state.lines)
        self.cursor_line = snapshot.state.cursor_line
        self.cursor_col = snapshot.state.cursor_col
        self.pastes = dict(snapshot.pastes)
        self.paste_counter = snapshot.paste_counter
        self.history_index = -1
        self._last_action = None
        self._preferred_x = None
        self._changed()

    # -- character jump -------------------------------------------------------------------------

    def jump_to_char(self, char: str, forward: bool) -> bool:
        """Move to the next (or previous) ``char``, skipping the cursor position (R-ED-11)."""
        self._horizontal()
        if forward:
            line = self.lines[self.cursor_line]
            found = line.find(char, self.cursor_col + 1)
            if found >= 0:
                self.cursor_col = found
                self._changed()
                return True
            for index in range(self.cursor_line + 1, len(self.lines)):
                found = self.lines[index].find(char)
                if found >= 0:
                    self.cursor_line, self.cursor_col = index, found
                    self._changed()
                    return True
            return False
        line = self.lines[self.cursor_line]
        found = line.rfind(char, 0, self.cursor_col)
        if found >= 0:
            self.cursor_col = found
            self._changed()
            return True
        for index in range(self.cursor_line - 1, -1, -1):
            found = self.lines[index].rfind(char)
            if found >= 0:
                self.cursor_line, self.cursor_col = index, found
                self._changed()
                return True
        return False

    # -- replacing a range (autocomplete) -------------------------------------------------------

    def replace_lines(self, lines: list[str], cursor_line: int, cursor_col: int) -> None:
        """Set lines and cursor as one undo unit (autocomplete's ``apply_completion`` result)."""
        self._exit_history()
        self._push_undo()
        self.lines = list(lines) or [""]
        self.cursor_line = max(0, min(cursor_line, len(self.lines) - 1))
        self.cursor_col = max(0, min(cursor_col, len(self.lines[self.cursor_line])))
        self._last_action = None
        self._preferred_x = None
        self._changed()

    def text_before_cursor(self) -> str:
        return self.lines[self.cursor_line][: self.cursor_col]

    def _changed(self) -> None:
        self.version += 1
