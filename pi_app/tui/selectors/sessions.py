"""``SessionPicker``: choose a session to resume (``/resume``, ``pi -r``; spec 60 R-SEL-03).

It loads the current folder's sessions in a thread with a ``Loading n/total`` indicator; Tab
switches to every project's sessions (loaded once, on first use) and back. Typing searches,
``ctrl+s`` cycles the sort (threaded → recent → fuzzy), ``ctrl+n`` shows named sessions only,
``ctrl+p`` shows file paths, ``ctrl+r`` renames the selected session (a ``session_info`` entry
written into that file), ``ctrl+d`` (or ``ctrl+backspace`` with an empty search) deletes it after
a confirmation — never the session that is open right now (R-LIST-10). Enter posts
``Selected(path)``; Escape clears the search, then posts ``Cancelled``.

Deleting prefers a ``trash`` command when one is installed (the file can be restored), else
removes the file.
"""

from __future__ import annotations

import contextvars
import inspect
import os
import shutil
import subprocess
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.types import NoActiveAppError

from pi_app.tui.editor.segments import truncate_cells
from pi_app.tui.input.keys import key_press
from pi_app.tui.selectors.bindings import DEFAULT_SELECTOR_KEYS, KeyMap
from pi_app.tui.selectors.inline_input import InlineInput
from pi_app.tui.selectors.lines import LineView, Run, rule, styled, theme_of
from pi_app.tui.selectors.session_model import (
    SORT_LABELS,
    ContentSearch,
    SessionPickerModel,
    SessionRow,
    format_age,
)
from pi_app.tui.selectors.slot import Answer

ProgressCallback = Callable[[int, int], None]
SessionLoader = Callable[[ProgressCallback], Sequence[Any]]
Renamer = Callable[[str, str], "Awaitable[None] | None"]

PICKER_ACTIONS = (
    "tui.input.tab",
    "app.session.toggleSort",
    "app.session.toggleNamedFilter",
    "app.session.togglePath",
    "app.session.delete",
    "app.session.rename",
    "app.session.deleteNoninvasive",
    "tui.select.up",
    "tui.select.down",
    "tui.select.pageUp",
    "tui.select.pageDown",
    "tui.select.confirm",
    "tui.select.cancel",
    "tui.editor.deleteCharBackward",
)
CURSOR = Style(reverse=True)


@dataclass
class DeleteResult:
    ok: bool
    method: str  # "trash" or "remove"
    error: str | None = None


def delete_session_file(path: str) -> DeleteResult:
    """Move ``path`` to the trash with a ``trash`` command if there is one, else delete it (a session
    in the SQLite store is deleted from it)."""
    from pi_app.coding.session.storage import RemovableSessionStorage, default_session_storage

    storage = default_session_storage()
    if isinstance(storage, RemovableSessionStorage):
        try:
            storage.delete(path)
        except OSError as exc:
            return DeleteResult(False, "remove", str(exc))
        return DeleteResult(True, "remove")
    trash = shutil.which("trash")
    if trash:
        try:
            done = subprocess.run([trash, "--", path], capture_output=True, timeout=10, check=False)
            if done.returncode == 0 or not os.path.exists(path):
                return DeleteResult(True, "trash")
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        os.remove(path)
    except OSError as exc:
        return DeleteResult(False, "remove", exc.strerror or str(exc))
    return DeleteResult(True, "remove")


def _short_path(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home and home != "~" and path.startswith(home) else path


class _LoadProgress:
    """The progress callback a loader gets (``progress(loaded, total)``); a loader that can also
    hand over sessions as it reads them calls ``progress.row(info)``. Rows go to the picker in
    batches: the first at once, later ones at most every ``BATCH_SECONDS``."""

    BATCH_SECONDS = 0.05
    FIRST_PAINT_WAIT = 0.1  # at most this long: the picker may be gone before it paints

    def __init__(self, picker: SessionPicker, scope: str, seq: int) -> None:
        self.picker = picker
        self.scope = scope
        self.seq = seq
        self.rows: list[Any] = []
        self._sent_at: float | None = None
        self._progress_at: float | None = None
        self.first_painted = threading.Event()

    def __call__(self, loaded: int, total: int) -> None:
        import time

        # one message a batch, not one a file: each repaints the picker on the UI thread
        now = time.monotonic()
        if loaded < total and self._progress_at is not None and now - self._progress_at < self.BATCH_SECONDS:
            return
        self._progress_at = now
        self.picker.post_message(SessionPicker._Progress(self.scope, loaded, total))

    def row(self, info: Any) -> None:
        import time

        self.rows.append(info)
        now = time.monotonic()
        if self._sent_at is None or now - self._sent_at >= self.BATCH_SECONDS:
            first = self._sent_at is None
            self._sent_at = now
            painted = self.first_painted if first else None
            self.picker.post_message(SessionPicker._Partial(self.scope, list(self.rows), self.seq, painted))
            if painted is not None:
                # reading on is Python work under the one interpreter lock: it halved the UI's
                # share while it painted the first rows (issue 20)
                painted.wait(self.FIRST_PAINT_WAIT)


class SessionPicker(Vertical, can_focus=True):
    DEFAULT_CSS = """
    SessionPicker { height: auto; }
    SessionPicker.-renaming #session-list { display: none; }
    """

    @dataclass
    class Selected(Answer):
        picker: SessionPicker
        path: str

    @dataclass
    class Cancelled(Answer):
        picker: SessionPicker

    @dataclass
    class _Loaded(Message):
        scope: str
        sessions: list[Any]
        seq: int
        error: str | None = None

    @dataclass
    class _Progress(Message):
        scope: str
        loaded: int
        total: int

    @dataclass
    class _Partial(Message):
        scope: str
        sessions: list[Any]
        seq: int
        painted: threading.Event | None = None  # set once these rows are on the screen

    def __init__(
        self,
        load_current: SessionLoader,
        load_all: SessionLoader,
        *,
        current_path: str | None = None,
        rename: Renamer | None = None,
        delete: Callable[[str], DeleteResult] = delete_session_file,
        page_size: int = 10,
        keys: KeyMap | None = None,
        clock: Callable[[], datetime] | None = None,
        content_search: ContentSearch | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.loaders = {"current": load_current, "all": load_all}
        self.model = SessionPickerModel(
            current_path=current_path, page_size=page_size, content_search=content_search
        )
        self.rename_session = rename
        self.delete_file = delete
        self.keys = keys or DEFAULT_SELECTOR_KEYS
        self.clock = clock or (lambda: datetime.now(UTC))
        self.scope = "current"
        self.cache: dict[str, list[Any] | None] = {"current": None, "all": None}
        self.progress: dict[str, tuple[int, int] | None] = {"current": None, "all": None}
        self._seq = 0
        self._latest: dict[str, int] = {}
        self.show_path = False
        self.confirming_delete: str | None = None
        self.status: tuple[str, str] | None = None  # (kind, text)
        self.renaming: str | None = None
        self.view = LineView(self._paint, id="session-list")
        self.rename_field = InlineInput("Rename Session", self.keys)
        self._reading: dict[str, _LoadProgress] = {}
        try:
            self.app  # noqa: B018 - built inside a running app (``/resume``), not before it (``pi -r``)
        except NoActiveAppError:
            pass
        else:  # read while the picker is being mounted: the first rows are then in its first frame
            self._load("current")

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.rename_field

    def on_mount(self) -> None:
        reading = self._reading.get(self.scope)
        if reading is None:
            self._load(self.scope)
        elif reading.rows:  # read before the picker was on the screen
            self.model.set_sessions(list(reading.rows))

    # -- loading --------------------------------------------------------------------------------

    def _load(self, scope: str) -> None:
        """Read ``scope``'s sessions on a thread of their own; rows arrive as they are read.

        A plain thread rather than a Textual worker: the current folder's load starts as the
        picker is built, before it is mounted (``/resume``'s first row came one frame and a
        layout pass later when reading waited for the mount; issue 20). A picker closed meanwhile
        just drops the messages that still arrive."""
        self._seq += 1
        self._latest[scope] = self._seq
        self.progress[scope] = (0, 0)
        reading = self._reading[scope] = _LoadProgress(self, scope, self._seq)
        context = contextvars.copy_context()  # the app's: post_message from the thread finds it
        threading.Thread(
            target=context.run, args=(self._read_sessions, reading), name="session-picker", daemon=True
        ).start()
        if self.is_mounted:
            self.view.repaint()

    def _read_sessions(self, reading: _LoadProgress) -> None:
        scope, seq = reading.scope, reading.seq
        try:
            sessions = list(self.loaders[scope](reading))
        except Exception as exc:
            self.post_message(self._Loaded(scope, [], seq, str(exc) or type(exc).__name__))
            return
        self.post_message(self._Loaded(scope, sessions, seq))

    @on(_Progress)
    def _progress(self, message: _Progress) -> None:
        if self.progress.get(message.scope) is not None:
            self.progress[message.scope] = (message.loaded, message.total)
            if message.scope == self.scope:
                self.view.repaint()

    @on(_Partial)
    def _partial(self, message: _Partial) -> None:
        """Sessions read so far (newest files first): shown before the whole list is loaded."""
        painted = message.painted
        if self._latest.get(message.scope) != message.seq or self.progress.get(message.scope) is None:
            if painted is not None:
                painted.set()
            return
        # rows only grow while one load runs: a shorter list is older than what mount showed
        shown = message.scope == self.scope
        if shown and len(message.sessions) >= len(self.model.sessions):
            self.model.set_sessions(message.sessions)
            self.view.repaint()
        if painted is not None and shown:
            # set as the frame that draws these rows is composed; after the next message was
            # too early (before the frame), and reading on then slowed the frame down
            self.view.when_rendered(painted.set)
        elif painted is not None:
            painted.set()

    @on(_Loaded)
    def _loaded(self, message: _Loaded) -> None:
        if self._latest.get(message.scope) != message.seq:
            return  # a newer load of this scope is on its way
        self.progress[message.scope] = None
        self.cache[message.scope] = message.sessions
        if message.error:
            self.status = ("error", f"Failed to load sessions: {message.error}")
        if message.scope == self.scope:
            self.model.set_sessions(message.sessions)
        self.view.repaint()

    def toggle_scope(self) -> None:
        self.scope = "all" if self.scope == "current" else "current"
        cached = self.cache[self.scope]
        if cached is None:
            self.model.set_sessions([])
            if self.progress[self.scope] is None:
                self._load(self.scope)
        else:
            self.model.set_sessions(cached)
        self.view.repaint()

    # -- painting -------------------------------------------------------------------------------

    def _header(self, theme: Any, width: int) -> Strip:
        title = "Resume Session (Current Folder)" if self.scope == "current" else "Resume Session (All)"
        progress = self.progress[self.scope]
        scope: list[Run]
        if progress is not None:
            figure = f"{progress[0]}/{progress[1]}" if progress[1] else "..."
            scope = [("○ Current Folder | ", "muted"), (f"Loading {figure}", "accent")]
        elif self.scope == "current":
            scope = [("◉ Current Folder", "accent"), (" | ○ All", "muted")]
        else:
            scope = [("○ Current Folder | ", "muted"), ("◉ All", "accent")]
        name = "Named" if self.model.named_only else "All"
        right: list[Run] = [
            *scope,
            ("  Name: ", "muted"),
            (name, "accent"),
            ("  Sort: ", "muted"),
            (SORT_LABELS[self.model.sort_mode], "accent"),
        ]
        right_width = sum(cell_len(text) for text, _ in right)
        gap = max(1, width - cell_len(title) - right_width - 2)
        return styled([("  ", None), (title, Style(bold=True)), (" " * gap, None), *right], theme, width)

    def _hints(self, theme: Any, width: int) -> list[Strip]:
        k = self.keys
        if self.confirming_delete is not None:
            text = (
                f"  Delete session? [{k.hint('tui.select.confirm')}] confirm · "
                f"[{k.hint('tui.select.cancel')}] cancel"
            )
            return [styled([(text, "error")], theme, width), styled([], theme, width)]
        if self.status is not None:
            kind, text = self.status
            return [styled([(f"  {text}", "error" if kind == "error" else "accent")], theme, width)] + [
                styled([], theme, width)
            ]
        first = f'  {k.hint("tui.input.tab")} scope · re:<pattern> regex · "phrase" exact'
        second = " · ".join(
            [
                f"{k.hint('app.session.toggleSort')} sort",
                f"{k.hint('app.session.toggleNamedFilter')} named",
                f"{k.hint('app.session.delete')} delete",
                f"{k.hint('app.session.togglePath')} path ({'on' if self.show_path else 'off'})",
                *([f"{k.hint('app.session.rename')} rename"] if self.rename_session else []),
            ]
        )
        return [styled([(first, "muted")], theme, width), styled([(f"  {second}", "muted")], theme, width)]

    def _empty_text(self) -> str:
        if self.model.error:
            return self.model.error
        if self.progress[self.scope] is not None:
            return "Loading sessions..."
        named = self.keys.hint("app.session.toggleNamedFilter")
        if self.model.named_only:
            if self.scope == "all":
                return f"No named sessions found. Press {named} to show all."
            return f"No named sessions in current folder. Press {named} to show all, or Tab to view all."
        if self.model.query.strip():
            return "No sessions match the search"
        if self.scope == "all":
            return "No sessions found"
        return "No sessions in current folder. Press Tab to view all."

    def _paint(self, width: int) -> list[Strip]:
        theme = theme_of(self)
        lines = [rule(theme, width, "accent"), self._header(theme, width), *self._hints(theme, width)]
        lines.append(styled([("  > ", "accent"), (self.model.query, None), (" ", CURSOR)], theme, width))
        rows = self.model.rows
        if not rows:
            lines.append(styled([(f"  {self._empty_text()}", "muted")], theme, width))
        start, end = self.model.cursor.window()
        now = self.clock()
        for i in range(start, end):
            lines.append(self._row(rows[i], i == self.model.cursor.selected, theme, width, now))
        if self.model.cursor.scrolls:
            lines.append(
                styled([(f"  ({self.model.cursor.selected + 1}/{len(rows)})", "muted")], theme, width)
            )
        lines.append(rule(theme, width, "accent"))
        return lines

    def _row(self, row: SessionRow, selected: bool, theme: Any, width: int, now: datetime) -> Strip:
        info = row.info
        right = f"{info.message_count} {format_age(info.modified, now)}"
        if self.scope == "all" and info.cwd:
            right = f"{_short_path(info.cwd)} {right}"
        if self.show_path:
            right = f"{_short_path(info.path)} {right}"
        prefix = row.tree_prefix()
        text = " ".join((info.name or info.first_message).split())
        # cells, not characters: a CJK or emoji first message takes two cells a character
        fixed = 2 + cell_len(prefix) + cell_len(right)
        text = truncate_cells(text, max(10, width - fixed - 2), "…")
        deleting = info.path == self.confirming_delete
        colour = (
            "error"
            if deleting
            else "accent"
            if self.model.is_current(info)
            else "warning"
            if info.name
            else None
        )
        gap = max(1, width - fixed - cell_len(text))
        runs: list[Run] = [
            ("› " if selected else "  ", "accent"),
            (prefix, "dim"),
            (text, colour),
            (" " * gap, None),
            (right, "error" if deleting else "dim"),
        ]
        return styled(runs, theme, width, bold=selected, background="selectedBg" if selected else None)

    def row_texts(self) -> list[str]:
        """The listed sessions (name or first message) in display order (tests)."""
        return [row.info.name or row.info.first_message for row in self.model.rows]

    # -- keys -----------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if self.renaming is not None:
            return  # the rename field's keys
        event.stop()
        event.prevent_default()
        press = key_press(event)
        self.status = None
        if self.confirming_delete is not None:
            action = self.keys.first_match(press, ("tui.select.confirm", "tui.select.cancel"))
            if action == "tui.select.confirm":
                self._delete(self.confirming_delete)
            if action is not None:
                self.confirming_delete = None
                self.view.repaint()
            return
        action = self.keys.first_match(press, PICKER_ACTIONS)
        if action == "app.session.deleteNoninvasive" and self.model.query:
            action = "tui.editor.deleteCharBackward"
        if action is None:
            if press.character:
                self.model.type_text(press.character)
        elif action == "tui.select.confirm":
            if self.model.selected is not None:
                self.post_message(self.Selected(self, self.model.selected.path))
            return
        elif action == "tui.select.cancel":
            if self.model.query:
                self.model.set_query("")
            else:
                self.post_message(self.Cancelled(self))
                return
        else:
            self._act(action)
        self.view.repaint()

    def _act(self, action: str) -> None:
        model = self.model
        if action == "tui.input.tab":
            self.toggle_scope()
        elif action == "app.session.toggleSort":
            model.cycle_sort()
        elif action == "app.session.toggleNamedFilter":
            model.toggle_named()
        elif action == "app.session.togglePath":
            self.show_path = not self.show_path
        elif action in ("app.session.delete", "app.session.deleteNoninvasive"):
            self.start_delete()
        elif action == "app.session.rename":
            self.open_rename()
        elif action == "tui.editor.deleteCharBackward":
            model.backspace()
        else:
            model.cursor.apply(action)

    # -- delete and rename ------------------------------------------------------------------------

    def start_delete(self) -> None:
        info = self.model.selected
        if info is None:
            return
        if self.model.is_current(info):
            self.status = ("error", "Cannot delete the currently active session")
            return
        self.confirming_delete = info.path

    def _delete(self, path: str) -> None:
        result = self.delete_file(path)
        if not result.ok:
            self.status = ("error", f"Failed to delete: {result.error or 'unknown error'}")
            return
        for scope, sessions in self.cache.items():
            if sessions is not None:
                self.cache[scope] = [s for s in sessions if s.path != path]
        self.model.remove(path)
        self.status = ("info", "Session moved to trash" if result.method == "trash" else "Session deleted")

    def open_rename(self) -> None:
        info = self.model.selected
        if info is None or self.rename_session is None or self.progress[self.scope] is not None:
            return
        self.renaming = info.path
        self.add_class("-renaming")
        self.rename_field.open(info.name or "")

    def close_rename(self) -> None:
        self.renaming = None
        self.rename_field.close()
        self.remove_class("-renaming")
        self.focus()
        self.view.repaint()

    @on(InlineInput.Closed)
    def _rename_closed(self, event: InlineInput.Closed) -> None:
        event.stop()
        self.close_rename()

    @on(InlineInput.Saved)
    async def _rename_saved(self, event: InlineInput.Saved) -> None:
        event.stop()
        path, name = self.renaming, event.value
        if path is None or not name or self.rename_session is None:
            return
        try:
            result = self.rename_session(path, name)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.status = ("error", f"Rename failed: {exc}")
        self.close_rename()
        self.cache = {scope: None for scope in self.cache}
        self._load(self.scope)
