"""The prompt editor widget: draws an ``EditorBuffer`` and maps keys to it (spec 60 §3.6, R-KEY-05).

The widget is thin: text, cursor, undo, kill ring, paste markers and history are the buffer's
(``buffer.py``); completion logic is the provider's (``autocomplete.py``). What lives here:

* drawing: a top and a bottom rule in the thinking-level colour (``thinking_border_token``;
  ``bashMode`` while the text starts with ``!``; R-ED-16), at most ``max(5, 30 % of the terminal)`` visual rows with
  ``↑ N more`` / ``↓ N more`` in the rules when the text is taller (R-ED-15), a reverse-video
  cursor, and the autocomplete list below the bottom rule (R-AC-09);
* keys, in pi's order (R-KEY-05): extension shortcuts, paste image, interrupt (Escape closes an
  open list first), exit (only on an empty editor; otherwise Ctrl+D deletes forward), the other
  app actions, then list keys while a list is open, then editor actions, then typed text. App
  actions are posted to the app as ``PromptEditor.ActionRequested``; every key goes through the
  effective ``Keybindings``, so a remapped key works everywhere;
* autocomplete requests: asynchronous, newest request wins, file searches debounced (R-AC-08);
  Enter or Tab while the list still shows an older text asks again first and acts on the answer;
* the IME anchor: ``App.cursor_position`` follows the caret while the editor has focus and no
  list is open (R-IME-02, via ``editor/cursor.publish_caret``).

Submitting posts ``PromptEditor.Submitted`` with the expanded, trimmed text (``follow_up`` for
Alt+Enter); the app decides what it means and adds it to the history.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from pi_app.tui.editor.autocomplete import AutocompleteItem, PiAutocomplete, Suggestions
from pi_app.tui.editor.buffer import EditorBuffer
from pi_app.tui.editor.cursor import publish_caret
from pi_app.tui.editor.segments import truncate_cells
from pi_app.tui.input.keybindings import TRANSCRIPT_SCROLL_ACTIONS, Keybindings
from pi_app.tui.input.keys import KeyPress, key_press
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK, BlockTheme, fg

if TYPE_CHECKING:
    from pi_app.coding.session_port import SessionSnapshot

FILE_DEBOUNCE_S = 0.05
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

THINKING_BORDER_TOKENS = {
    "off": "thinkingOff",
    "minimal": "thinkingMinimal",
    "low": "thinkingLow",
    "medium": "thinkingMedium",
    "high": "thinkingHigh",
    "xhigh": "thinkingXhigh",
    "max": "thinkingXhigh",  # 1.6.0 themes may add thinkingMax; it falls back to thinkingXhigh
}


def thinking_border_token(snapshot: SessionSnapshot) -> str:
    """The theme token of the editor's rules for the thinking level ``snapshot`` shows."""
    if not snapshot.has_model or not snapshot.reasoning:
        return "thinkingOff"
    return THINKING_BORDER_TOKENS.get(snapshot.thinking_level, "thinkingOff")


APP_ACTIONS: tuple[str, ...] = (
    "app.clear",
    "app.suspend",
    "app.thinking.cycle",
    "app.model.cycleForward",
    "app.model.cycleBackward",
    "app.model.select",
    "app.tools.expand",
    "app.thinking.toggle",
    "app.editor.external",
    "app.message.followUp",
    "app.message.dequeue",
    "app.session.new",
    "app.session.tree",
    "app.session.fork",
    "app.session.resume",
    *TRANSCRIPT_SCROLL_ACTIONS,
    "tui.altScreen.search",
    "app.debug",
)
"""App actions the editor forwards, after interrupt/exit/pasteImage (R-KEY-05)."""

_TRANSCRIPT_PAGE_ACTIONS = frozenset({"tui.altScreen.pageUp", "tui.altScreen.pageDown"})


@dataclass
class _ListState:
    """The open autocomplete list: its suggestions, how it was opened and its scroll position."""

    suggestions: Suggestions
    mode: str  # "regular" | "force"
    source: tuple[tuple[str, ...], int, int]
    """The lines and cursor the suggestions were computed for."""
    top: int = 0


class PromptEditor(Widget, can_focus=True):
    DEFAULT_CSS = """
    PromptEditor { height: auto; background: $background; }
    """

    MAX_VISIBLE_ITEMS_RANGE: ClassVar[tuple[int, int]] = (3, 20)

    @dataclass
    class Submitted(Message):
        """Enter (or the follow-up key) with the editor's text."""

        editor: PromptEditor
        text: str
        follow_up: bool = False

    @dataclass
    class ActionRequested(Message):
        """An app action bound to the key just pressed (``app.clear``, ``app.model.select``, …)."""

        editor: PromptEditor
        action: str

    @dataclass
    class Changed(Message):
        """The editor's text changed."""

        editor: PromptEditor

    def __init__(
        self,
        *,
        keybindings: Keybindings | None = None,
        autocomplete: PiAutocomplete | None = None,
        theme: BlockTheme | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.buffer = EditorBuffer()
        self.keybindings = keybindings or Keybindings()
        self.autocomplete = autocomplete
        self.pi_theme: BlockTheme = theme or FALLBACK_DARK
        self.border_token = "thinkingOff"
        self.padding_x = 0
        self.max_visible_items = 5
        self.disable_submit = False
        self.shortcut_handler: Callable[[KeyPress], bool] | None = None
        """Extension shortcuts: called first with every key; True means it was consumed."""
        self._list: _ListState | None = None
        self._request_id = 0
        self._cancel: asyncio.Event | None = None
        self._jump: str | None = None
        self._scroll = 0
        self._strips: list[Strip] = []
        self._built_for: tuple[Any, ...] | None = None

    # -- public API -----------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return self.buffer.get_text()

    @text.setter
    def text(self, value: str) -> None:
        self.set_text(value)

    def expanded_text(self) -> str:
        return self.buffer.get_expanded_text()

    def set_text(self, text: str) -> None:
        self.buffer.set_text(text)
        self._edited(typed=None)

    def insert(self, text: str) -> None:
        """Insert ``text`` at the cursor as one undo unit (completions, image paths, extensions)."""
        self.buffer.insert_text_at_cursor(text)
        self._edited(typed=None)

    def paste(self, text: str) -> None:
        self.buffer.paste(text)
        self._edited(typed=None, pasted=True)

    def clear(self) -> None:
        self.buffer.clear()
        self.close_autocomplete()
        self._edited(typed=None)

    def add_to_history(self, text: str) -> None:
        self.buffer.add_to_history(text)

    @property
    def autocomplete_open(self) -> bool:
        return self._list is not None

    @property
    def suggestions(self) -> Suggestions | None:
        return self._list.suggestions if self._list else None

    def set_theme(self, theme: BlockTheme) -> None:
        self.pi_theme = theme
        self._invalidate()

    def set_border_token(self, token: str) -> None:
        if token != self.border_token:
            self.border_token = token
            self._invalidate()

    def effective_border_token(self) -> str:
        return "bashMode" if self.text.lstrip().startswith("!") else self.border_token

    # -- layout ---------------------------------------------------------------------------------

    def _pad(self, width: int) -> int:
        return max(0, min(self.padding_x, (width - 1) // 2))

    def _content_width(self, width: int) -> int:
        pad = self._pad(width)
        return max(1, width - 2 * pad - (1 if pad == 0 else 0))

    def _max_rows(self) -> int:
        rows = self.app.size.height if self.is_attached else 24
        return max(5, int(rows * 0.3))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._build(width))

    def _invalidate(self) -> None:
        self._built_for = None
        self.refresh(layout=True)

    def _build(self, width: int) -> list[Strip]:
        key = (
            width,
            self.buffer.version,
            self.pi_theme.version,
            self.pi_theme.name,
            self.border_token,
            self.has_focus,
            id(self._list),
            self._list.suggestions.selected if self._list else -1,
            self._list.top if self._list else -1,
            self._max_rows(),
            self.padding_x,
        )
        if key == self._built_for:
            return self._strips
        self._built_for = key
        base = self.rich_style
        self._strips = [strip.apply_style(base) for strip in self._render_strips(width)]
        return self._strips

    def _render_strips(self, width: int) -> list[Strip]:
        theme = self.pi_theme
        border = fg(theme, self.effective_border_token())
        text_style = fg(theme, "text")
        pad = self._pad(width)
        content_width = self._content_width(width)
        rows = self.buffer.layout(content_width)
        cursor_row = self.buffer.cursor_row(rows)
        visible = self._max_rows()
        if cursor_row < self._scroll:
            self._scroll = cursor_row
        elif cursor_row >= self._scroll + visible:
            self._scroll = cursor_row - visible + 1
        self._scroll = max(0, min(self._scroll, max(0, len(rows) - visible)))
        shown = rows[self._scroll : self._scroll + visible]
        above, below = self._scroll, max(0, len(rows) - self._scroll - len(shown))
        strips = [_rule(width, border, above, "↑")]
        cursor_style = Style(reverse=True)
        for index, row in enumerate(shown, start=self._scroll):
            segments = [Segment(" " * pad)]
            line = self.buffer.lines[row.line]
            if index == cursor_row and self.has_focus:
                col = self.buffer.cursor_col
                before = line[row.start : col]
                rest = line[col : row.end]
                under = rest[:1] if rest else " "
                if rest:  # the whole grapheme under the cursor
                    from pi_app.tui.editor.segments import segment_bounds

                    bounds = [b for b in segment_bounds(line, self.buffer.pastes) if b > col]
                    under = line[col : bounds[0]] if bounds else rest
                    if under.startswith("[paste #"):
                        under = under[:1]
                after = line[col + len(under) : row.end] if rest else ""
                segments += [
                    Segment(before, text_style),
                    Segment(under, cursor_style + text_style),
                    Segment(after, text_style),
                ]
            else:
                segments.append(Segment(row.text, text_style))
            strip = Strip(segments).crop_extend(0, width, None)
            strips.append(strip)
        strips.append(_rule(width, border, below, "↓"))
        strips.extend(self._list_strips(width))
        return strips

    def _list_strips(self, width: int) -> list[Strip]:
        state = self._list
        if state is None:
            return []
        theme = self.pi_theme
        items = state.suggestions.items
        if not items:
            return [
                Strip([Segment("  No matching commands", fg(theme, "muted"))]).crop_extend(0, width, None)
            ]
        limit = max(
            self.MAX_VISIBLE_ITEMS_RANGE[0], min(self.max_visible_items, self.MAX_VISIBLE_ITEMS_RANGE[1])
        )
        selected = state.suggestions.selected
        if selected < state.top:
            state.top = selected
        elif selected >= state.top + limit:
            state.top = selected - limit + 1
        shown = items[state.top : state.top + limit]
        is_command = state.suggestions.kind == "command"
        label_width = 0
        if width > 40:
            longest = max(cell_len(item.label) for item in shown)
            label_width = max(12, min(32, longest + 2)) if is_command else min(longest + 2, width // 2)
        strips = []
        for offset, item in enumerate(shown):
            index = state.top + offset
            prefix = "→ " if index == selected else "  "
            style = fg(theme, "accent") if index == selected else fg(theme, "text")
            label = truncate_cells(item.label, max(1, (label_width or width) - 2))
            segments = [Segment(prefix + label, style)]
            if label_width and item.description:
                gap = " " * max(1, label_width - cell_len(label))
                room = max(0, width - 2 - cell_len(label) - len(gap))
                segments.append(Segment(gap + truncate_cells(item.description, room), fg(theme, "muted")))
            strips.append(Strip(segments).crop_extend(0, width, None))
        if len(items) > limit:
            strips.append(Strip([Segment(f"  ({selected + 1}/{len(items)})", fg(theme, "muted"))]))
        return strips

    def render_line(self, y: int) -> Strip:
        strips = self._build(self.size.width)
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(self.size.width)

    def render_lines(self, crop: Region) -> list[Strip]:
        strips = self._build(self.size.width)
        if self.has_focus:
            width = self.size.width
            pad = self._pad(width)
            row, col = self.buffer.cursor_visual(self._content_width(width))
            region = self.content_region
            offset = Offset(region.x + pad + col, region.y + 1 + row - self._scroll)
            publish_caret(self, offset, suppressed=self._list is not None)
        del strips
        return super().render_lines(crop)

    def on_resize(self) -> None:
        self._invalidate()

    def on_focus(self) -> None:
        self._invalidate()
        self._set_hardware_cursor(True)

    def on_blur(self) -> None:
        self._invalidate()
        self._set_hardware_cursor(False)

    def _set_hardware_cursor(self, visible: bool) -> None:
        terminal = getattr(self.app, "terminal", None)
        if terminal is not None:
            terminal.show_hardware_cursor(visible)

    # -- input ----------------------------------------------------------------------------------

    async def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        press = key_press(event)
        self.handle_key(press)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        self.paste(event.text)

    def _request(self, action: str) -> None:
        self.post_message(self.ActionRequested(self, action))

    # pi's editor API (custom editors of extensions override it), not Textual's async
    # Widget.handle_key, which never runs here: on_key stops every key event first
    def handle_key(self, press: KeyPress) -> None:  # type: ignore[override]
        """Dispatch one normalised key in pi's order (R-KEY-05)."""
        kb = self.keybindings
        if self._jump is not None:
            direction, self._jump = self._jump, None
            if kb.matches(press, "tui.editor.jumpForward") or kb.matches(press, "tui.editor.jumpBackward"):
                return
            if press.character:
                self.buffer.jump_to_char(press.character, forward=direction == "forward")
                self._edited(typed=None, text_changed=False)
                return
        if self.shortcut_handler is not None and self.shortcut_handler(press):
            return
        if kb.matches(press, "app.clipboard.pasteImage"):
            self._request("app.clipboard.pasteImage")
            return
        if kb.matches(press, "app.interrupt"):
            if self._list is not None:
                self.close_autocomplete()
            else:
                self._request("app.interrupt")
            return
        if kb.matches(press, "app.exit") and self.buffer.is_empty:
            self._request("app.exit")
            return
        # pi 1.6.0: the dedicated history keys browse wherever the cursor is, before app actions
        history = kb.first_match(press, ("tui.editor.historyPrevious", "tui.editor.historyNext"))
        if history is not None:
            if history == "tui.editor.historyPrevious":
                self.buffer.history_up()
            else:
                self.buffer.history_down()
            self._edited(typed=None)
            return
        action = kb.first_match(press, APP_ACTIONS)
        if action in _TRANSCRIPT_PAGE_ACTIONS and self._keeps_page_key(press):
            action = None
        if action == "app.message.followUp":
            self.submit(follow_up=True)
            return
        if action is not None:
            self._request(action)
            return
        if self._list is not None and self._handle_list_key(press):
            return
        if self._handle_editor_key(press):
            return
        if kb.matches(press, "app.message.copy"):
            # after the editing keys, so a user's own binding of the same key keeps working
            self._request("app.message.copy")
            return
        if press.character:
            self.buffer.insert(press.character)
            self._edited(typed=press.character)
        elif press.key_id == "shift+space":
            self.buffer.insert(" ")
            self._edited(typed=" ")

    def overflows(self) -> bool:
        """True when the text has more rows than the editor shows (so it scrolls itself)."""
        width = self._content_width(self.size.width or 80)
        return len(self.buffer.layout(width)) > self._max_rows()

    def _keeps_page_key(self, press: KeyPress) -> bool:
        """PageUp/PageDown scroll the transcript (as in pi 1.6.0) unless the open completion list
        or an editor taller than its box needs them (issue 17, defect 4)."""
        kb = self.keybindings
        if self._list is not None and (
            kb.matches(press, "tui.select.pageUp") or kb.matches(press, "tui.select.pageDown")
        ):
            return True
        editor_page = kb.matches(press, "tui.editor.pageUp") or kb.matches(press, "tui.editor.pageDown")
        return editor_page and self.overflows()

    def _handle_list_key(self, press: KeyPress) -> bool:
        kb = self.keybindings
        state = self._list
        assert state is not None
        count = len(state.suggestions.items)
        limit = max(3, min(self.max_visible_items, 20))
        if kb.matches(press, "tui.select.up"):
            state.suggestions.selected = (state.suggestions.selected - 1) % max(1, count)
        elif kb.matches(press, "tui.select.down"):
            state.suggestions.selected = (state.suggestions.selected + 1) % max(1, count)
        elif kb.matches(press, "tui.select.pageUp"):
            state.suggestions.selected = max(0, state.suggestions.selected - limit)
        elif kb.matches(press, "tui.select.pageDown"):
            state.suggestions.selected = min(max(0, count - 1), state.suggestions.selected + limit)
        elif kb.matches(press, "tui.input.tab"):
            if not self._list_is_current():
                self._accept_when_current(confirm=False)
                return True
            self._accept(submit=False, via_tab=True)
            return True
        elif kb.matches(press, "tui.select.confirm"):
            if not self._list_is_current():  # keys outran the list: Enter acts on what was typed
                self._accept_when_current(confirm=True)
                return True
            self._accept(submit=state.suggestions.kind == "command", submit_if_empty=True)
            return True
        else:
            return False
        self._invalidate()
        return True

    def _handle_editor_key(self, press: KeyPress) -> bool:
        kb = self.keybindings
        buffer = self.buffer
        width = self._content_width(self.size.width or 80)
        action = kb.first_match(
            press,
            (
                "tui.input.submit",
                "tui.input.newLine",
                "tui.input.tab",
                "tui.editor.cursorUp",
                "tui.editor.cursorDown",
                "tui.editor.cursorLeft",
                "tui.editor.cursorRight",
                "tui.editor.cursorWordLeft",
                "tui.editor.cursorWordRight",
                "tui.editor.cursorLineStart",
                "tui.editor.cursorLineEnd",
                "tui.editor.jumpForward",
                "tui.editor.jumpBackward",
                "tui.editor.pageUp",
                "tui.editor.pageDown",
                "tui.editor.deleteCharBackward",
                "tui.editor.deleteCharForward",
                "tui.editor.deleteWordBackward",
                "tui.editor.deleteWordForward",
                "tui.editor.deleteToLineStart",
                "tui.editor.deleteToLineEnd",
                "tui.editor.yank",
                "tui.editor.yankPop",
                "tui.editor.undo",
            ),
        )
        if action is None:
            return False
        moves: dict[str, Callable[[], None]] = {
            "tui.editor.cursorUp": lambda: buffer.move_up(width),
            "tui.editor.cursorDown": lambda: buffer.move_down(width),
            "tui.editor.cursorLeft": buffer.move_left,
            "tui.editor.cursorRight": buffer.move_right,
            "tui.editor.cursorWordLeft": buffer.word_left,
            "tui.editor.cursorWordRight": buffer.word_right,
            "tui.editor.cursorLineStart": buffer.line_start,
            "tui.editor.cursorLineEnd": buffer.line_end,
            "tui.editor.pageUp": lambda: buffer.page(-1, width, self.app.size.height),
            "tui.editor.pageDown": lambda: buffer.page(1, width, self.app.size.height),
        }
        edits: dict[str, Callable[[], None]] = {
            "tui.input.newLine": buffer.new_line,
            "tui.editor.deleteCharForward": buffer.delete_forward,
            "tui.editor.deleteWordBackward": buffer.delete_word_backward,
            "tui.editor.deleteWordForward": buffer.delete_word_forward,
            "tui.editor.deleteToLineStart": buffer.delete_to_line_start,
            "tui.editor.deleteToLineEnd": buffer.delete_to_line_end,
            "tui.editor.yank": buffer.yank,
            "tui.editor.yankPop": buffer.yank_pop,
            "tui.editor.undo": buffer.undo,
        }
        if action in moves:
            moves[action]()
            self._edited(typed=None, text_changed=False)
        elif action in edits:
            edits[action]()
            self._edited(typed=None)
        elif action == "tui.editor.deleteCharBackward":
            buffer.backspace()
            self._edited(typed=None, backspace=True)
        elif action == "tui.editor.jumpForward":
            self._jump = "forward"
        elif action == "tui.editor.jumpBackward":
            self._jump = "backward"
        elif action == "tui.input.submit":
            self.submit()
        elif action == "tui.input.tab":
            self._tab()
        return True

    # -- submit ---------------------------------------------------------------------------------

    def submit(self, follow_up: bool = False) -> None:
        if self.disable_submit and not follow_up:
            return
        if not follow_up and self.buffer.backslash_newline():
            self._edited(typed=None)
            return
        if follow_up and not self.buffer.get_expanded_text().strip():
            return
        self.close_autocomplete()
        text = self.buffer.submit()
        self._scroll = 0
        self._edited(typed=None)
        self.post_message(self.Submitted(self, text, follow_up))

    # -- autocomplete ---------------------------------------------------------------------------

    def close_autocomplete(self) -> None:
        self._request_id += 1
        if self._cancel is not None:
            self._cancel.set()
        if self._list is not None:
            self._list = None
            self._invalidate()

    def _edited(
        self, typed: str | None, *, backspace: bool = False, pasted: bool = False, text_changed: bool = True
    ) -> None:
        self._invalidate()
        if text_changed:
            self.post_message(self.Changed(self))
        if self.autocomplete is None:
            return
        if not text_changed:
            if self._list is not None:
                self.close_autocomplete()
            return
        if pasted:
            if self._list is not None:
                self._refresh_suggestions(self._list.mode)
            return
        if typed is not None and self._triggers(typed):
            self._refresh_suggestions("regular")
        elif backspace and self._in_completion_context():
            self._refresh_suggestions("regular")
        elif self._list is not None:
            self._refresh_suggestions(self._list.mode)

    def _in_completion_context(self) -> bool:
        buffer = self.buffer
        provider = self.autocomplete
        if provider is None:
            return False
        before = buffer.text_before_cursor()
        if provider.in_slash_context(buffer.lines, buffer.cursor_line):
            return True
        return provider.at_token(before) is not None

    def _triggers(self, typed: str) -> bool:
        buffer = self.buffer
        before = buffer.text_before_cursor()
        if typed == "/":
            return buffer.cursor_line == 0 and before.strip() == "/"
        if typed == "@":
            return len(before) == 1 or before[-2].isspace()
        if typed in _WORD_CHARS:
            return self._in_completion_context()
        return False

    def _tab(self) -> None:
        provider = self.autocomplete
        if provider is None:
            return
        buffer = self.buffer
        if (
            provider.in_slash_context(buffer.lines, buffer.cursor_line)
            and " " not in buffer.text_before_cursor()
        ):
            self._refresh_suggestions("force")
            return
        if provider.should_trigger_file_completion(buffer.lines, buffer.cursor_line, buffer.cursor_col):
            self._refresh_suggestions("force")

    def _refresh_suggestions(self, mode: str) -> None:
        provider = self.autocomplete
        if provider is None:
            return
        self._request_id += 1
        request_id = self._request_id
        if self._cancel is not None:
            self._cancel.set()
        cancel = self._cancel = asyncio.Event()
        buffer = self.buffer
        lines = list(buffer.lines)
        line, col = buffer.cursor_line, buffer.cursor_col
        slash = provider.in_slash_context(lines, line)
        self.run_worker(
            self._fetch(request_id, cancel, lines, line, col, mode, debounce=not slash),
            group="autocomplete",
            exit_on_error=False,
        )

    async def _fetch(
        self,
        request_id: int,
        cancel: asyncio.Event,
        lines: list[str],
        line: int,
        col: int,
        mode: str,
        debounce: bool,
    ) -> None:
        provider = self.autocomplete
        assert provider is not None
        if debounce and mode == "regular":
            await asyncio.sleep(FILE_DEBOUNCE_S)
            if cancel.is_set():
                return
        result = await provider.get_suggestions(lines, line, col, force=mode == "force", cancel=cancel)
        if request_id != self._request_id or cancel.is_set():
            return
        buffer = self.buffer
        if buffer.lines != lines or (buffer.cursor_line, buffer.cursor_col) != (line, col):
            return
        if result is None or (not result.items and result.kind != "command"):
            if self._list is not None:
                self._list = None
                self._invalidate()
            return
        source = (tuple(lines), line, col)
        if mode == "force" and result.kind in ("path", "file") and len(result.items) == 1:
            self._list = _ListState(result, mode, source=source)
            self._accept(submit=False, via_tab=True)
            return
        self._list = _ListState(result, mode, source=source)
        self._invalidate()

    def _source(self) -> tuple[tuple[str, ...], int, int]:
        buffer = self.buffer
        return tuple(buffer.lines), buffer.cursor_line, buffer.cursor_col

    def _list_is_current(self) -> bool:
        state = self._list
        return state is None or state.source == self._source()

    def _accept_when_current(self, *, confirm: bool) -> None:
        """Enter or Tab while the list still shows an older text: ask again, then accept."""
        state = self._list
        mode = state.mode if state is not None else "regular"
        self._request_id += 1  # fetches already on their way would show the old list again
        if self._cancel is not None:
            self._cancel.set()
        self.run_worker(self._fetch_then_accept(mode, confirm), group="autocomplete", exit_on_error=False)

    async def _fetch_then_accept(self, mode: str, confirm: bool) -> None:
        provider = self.autocomplete
        assert provider is not None
        source = self._source()
        cancel = self._cancel = asyncio.Event()
        result = await provider.get_suggestions(
            list(source[0]), source[1], source[2], force=mode == "force", cancel=cancel
        )
        if self._source() != source:
            return
        usable = result is not None and (result.items or result.kind == "command")
        self._list = _ListState(result, mode, source=source) if usable and result is not None else None
        kind = result.kind if result is not None else None
        if confirm:
            self._accept(submit=kind == "command", submit_if_empty=True)
        else:
            self._accept(submit=False, via_tab=True)

    def _accept(self, *, submit: bool, via_tab: bool = False, submit_if_empty: bool = False) -> None:
        state = self._list
        provider = self.autocomplete
        if state is None or provider is None or not state.suggestions.items:
            self.close_autocomplete()
            if submit_if_empty:  # Enter on "No matching commands" sends the text as typed
                self.submit()
            return
        item: AutocompleteItem = state.suggestions.items[state.suggestions.selected]
        buffer = self.buffer
        lines, line, col = provider.apply_completion(
            buffer.lines,
            buffer.cursor_line,
            buffer.cursor_col,
            item,
            state.suggestions.prefix,
            state.suggestions.kind,
        )
        kind = state.suggestions.kind
        if kind == "path" and not via_tab and lines == list(buffer.lines):
            # Enter on a path that is already complete (``/import ~/s.jsonl``) sends the text
            self.close_autocomplete()
            self.submit()
            return
        self.close_autocomplete()
        buffer.replace_lines(lines, line, col)
        self._invalidate()
        self.post_message(self.Changed(self))
        if submit:
            self.submit()
            return
        if kind == "command" and via_tab:
            self._refresh_suggestions("regular")  # argument completions, when the command has them
        elif kind in ("file", "path") and item.value.endswith("/"):
            self._refresh_suggestions(state.mode)


def _rule(width: int, style: Style, hidden: int, arrow: str) -> Strip:
    if hidden <= 0:
        return Strip([Segment("─" * width, style)], width)
    label = f"─── {arrow} {hidden} more "
    if cell_len(label) > width:
        label = truncate_cells(label, width)
    return Strip([Segment(label + "─" * max(0, width - cell_len(label)), style)]).crop_extend(0, width, None)
