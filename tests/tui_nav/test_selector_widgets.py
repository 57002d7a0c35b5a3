"""The selector widgets on their own, driven by keys in a tiny host app."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pi_app.coding.session import SessionManager
from pi_app.tui.selectors.fork import ForkSelector, fork_candidates
from pi_app.tui.selectors.sessions import DeleteResult, SessionPicker
from pi_app.tui.selectors.tree import TreeNavigator
from tests.session.helpers import assistant, user
from tests.tui_nav.app_helpers import wait_for
from tests.tui_nav.helpers import branched_session


class Host(App[None]):
    """A transcript stand-in above the selector; records every message the selector posts."""

    CSS = "#above { height: 1fr; }"

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.posted: list[Message] = []

    def compose(self) -> ComposeResult:
        yield Static("transcript", id="above")
        yield self.widget

    def on_mount(self) -> None:
        self.widget.focus()

    def on_tree_navigator_selected(self, m: Message) -> None:
        self.posted.append(m)

    on_tree_navigator_cancelled = on_tree_navigator_label_changed = on_tree_navigator_selected
    on_fork_selector_selected = on_fork_selector_cancelled = on_tree_navigator_selected
    on_session_picker_selected = on_session_picker_cancelled = on_tree_navigator_selected


def kinds(host: Host) -> list[str]:
    return [type(m).__name__ for m in host.posted]


async def test_tree_keys_search_label_and_select() -> None:
    b = branched_session()
    nav = TreeNavigator(b.sm.get_tree(), b.sm.get_leaf_id(), page_size=10)
    host = Host(nav)
    async with host.run_test(size=(90, 30)) as pilot:
        await pilot.press("l", "s")  # a plain l types into the search (decision D-42)
        assert nav.model.search == "ls"
        assert [r.entry_id for r in nav.model.rows()] == [b["ls"]]
        await pilot.press("escape")  # first escape clears the search
        assert nav.model.search == "" and not host.posted
        await pilot.press("up", "up", "up", "shift+l")  # from "[bash: ls -la]" up to "write the tests"
        assert nav.labeling
        await pilot.press(*"keep", "enter")
        await pilot.pause()
        label = host.posted[-1]
        assert isinstance(label, TreeNavigator.LabelChanged) and label.label == "keep"
        assert label.entry_id == b["tests"] and not nav.labeling
        assert "[keep] user: write the tests" in " ".join(nav.row_texts())
        await pilot.press("ctrl+l")  # labeled-only
        assert nav.model.filter_mode == "labeled-only" and nav.model.visible_count == 1
        await pilot.press("ctrl+o")  # cycles on to "all"
        assert nav.model.filter_mode == "all"
        await pilot.press("ctrl+d")
        assert nav.model.filter_mode == "default"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(host.posted[-1], TreeNavigator.Selected)
        assert host.posted[-1].entry_id == b["tests"]
        await pilot.press("escape")
        await pilot.pause()
        assert kinds(host)[-1] == "Cancelled"


async def test_tree_keys_page_fold_and_jump() -> None:
    b = branched_session()
    nav = TreeNavigator(b.sm.get_tree(), b.sm.get_leaf_id(), page_size=3, selected_id=b["hello"])
    host = Host(nav)
    async with host.run_test(size=(90, 30)) as pilot:
        await pilot.press("right")  # a page down
        assert nav.model.selected == 3
        await pilot.press("left")
        assert nav.model.selected == 0
        await pilot.press("ctrl+right")  # from "hello" to the first branch start
        assert nav.model.selected_id == b["tests"]
        await pilot.press("alt+left")  # a branch start folds
        assert (
            b["tests"] in nav.model.folded
            and "⊞" in nav.row_texts()[nav.model.selected - nav.model.window()[0]]
        )
        await pilot.press("alt+right")
        assert not nav.model.folded
        assert "(3/7)" in nav.rows.lines()[-1]


async def test_tree_label_editor_escape_cancels_and_empty_clears() -> None:
    b = branched_session()
    b.sm.append_label_change(b["written"], "old")
    nav = TreeNavigator(b.sm.get_tree(), b.sm.get_leaf_id(), selected_id=b["written"])
    host = Host(nav)
    async with host.run_test(size=(90, 30)) as pilot:
        await pilot.press("shift+l", "x", "escape")
        assert not nav.labeling and not host.posted and nav.model.selected_node.label == "old"
        await pilot.press("shift+l", *["backspace"] * 3, "enter")
        await pilot.pause()
        assert host.posted[-1].label is None and nav.model.selected_node.label is None


async def test_tree_paints_header_rows_and_position() -> None:
    b = branched_session()
    nav = TreeNavigator(b.sm.get_tree(), b.sm.get_leaf_id(), page_size=4)
    host = Host(nav)
    async with host.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        rows = nav.rows.lines()
        assert rows[-1].strip() == "(4/7)" and len(rows) == 5
        assert "← active" in rows[2]
        header = " ".join(nav.header.lines())
        assert "Session Tree" in header and "shift+l: label" in header and "Type to search:" in header


async def test_fork_selector_starts_at_the_newest_message() -> None:
    b = branched_session()
    candidates = fork_candidates(b.sm.get_entries())
    assert [c.text for c in candidates] == ["hello", "plan the refactor", "write the tests"]
    selector = ForkSelector(candidates)
    host = Host(selector)
    async with host.run_test(size=(90, 30)) as pilot:
        assert selector.selected.text == "write the tests"
        await pilot.press("down")  # wraps
        assert selector.selected.text == "hello"
        await pilot.press("enter")
        await pilot.pause()
        chosen = host.posted[-1]
        assert isinstance(chosen, ForkSelector.Selected) and chosen.entry_id == b["hello"]
        await pilot.press("escape")
        await pilot.pause()
        assert kinds(host)[-1] == "Cancelled"


def _write_session(
    directory: Path, text: str, *, name: str | None = None, cwd: str = "/home/user/project"
) -> str:
    b = branched_session(directory, cwd=cwd)
    sm = b.sm
    sm.append_message(user(text))
    if name:
        sm.append_session_info(name)
    return sm.get_session_file()


async def test_session_picker_scope_search_delete_and_rename(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    first = _write_session(here, "alpha question")
    second = _write_session(here, "beta question", name="Beta work")
    _write_session(there, "gamma question", cwd="/elsewhere")
    deleted: list[str] = []
    renamed: list[tuple[str, str]] = []

    def delete(path: str) -> DeleteResult:
        deleted.append(path)
        Path(path).unlink()
        return DeleteResult(True, "remove")

    def load_all(progress: Any) -> list[Any]:
        return SessionManager.list("/home/user/project", here, progress) + SessionManager.list(
            "/elsewhere", there, progress
        )

    picker = SessionPicker(
        lambda progress: SessionManager.list("/home/user/project", here, progress),
        load_all,
        current_path=first,
        rename=lambda path, name: renamed.append((path, name)),
        delete=delete,
        clock=lambda: datetime(2026, 12, 1, tzinfo=UTC),
    )
    host = Host(picker)
    async with host.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: len(picker.model.rows) == 2)
        await pilot.press("tab")
        await wait_for(pilot, lambda: len(picker.model.rows) == 3)
        assert picker.scope == "all"
        await pilot.press("tab", *'"beta q"')
        assert [r.info.path for r in picker.model.rows] == [second]
        await pilot.press("ctrl+r")
        await pilot.press(*" now", "enter")
        await pilot.pause(0.2)
        assert renamed == [(second, "Beta work now")]
        await pilot.press("escape", "escape")  # the first clears the search, the second closes
        await pilot.pause()
        assert kinds(host)[-1] == "Cancelled"


async def test_session_picker_refuses_to_delete_the_open_session_and_confirms_others(tmp_path: Path) -> None:
    first = _write_session(tmp_path, "alpha question")
    second = _write_session(tmp_path, "beta question")
    picker = SessionPicker(
        lambda progress: SessionManager.list("/home/user/project", tmp_path, progress),
        lambda progress: [],
        current_path=first,
        delete=lambda path: (Path(path).unlink(), DeleteResult(True, "remove"))[1],
    )
    host = Host(picker)
    async with host.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: picker.model.rows)
        picker.model.cursor.select([r.info.path for r in picker.model.rows].index(first))
        await pilot.press("ctrl+d")
        assert picker.status == ("error", "Cannot delete the currently active session")
        assert picker.confirming_delete is None
        picker.model.cursor.select([r.info.path for r in picker.model.rows].index(second))
        await pilot.press("ctrl+d")
        assert picker.confirming_delete == second
        assert "Delete session?" in " ".join(picker.view.lines())
        await pilot.press("escape")
        assert Path(second).exists() and picker.confirming_delete is None
        await pilot.press("ctrl+d", "enter")
        assert not Path(second).exists() and [r.info.path for r in picker.model.rows] == [first]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(host.posted[-1], SessionPicker.Selected) and host.posted[-1].path == first


def _plain_session(directory: Path, text: str) -> str:
    sm = SessionManager("/home/user/project", directory, persist=True)
    sm.append_message(user(text))
    sm.append_message(assistant("ok"))
    return sm.get_session_file()


async def test_session_picker_shows_the_newest_sessions_while_the_rest_are_still_loading(
    tmp_path: Path,
) -> None:
    """Issue 20 item 5: rows appear as the listing reads them (newest files first), not after
    every file of the folder is read."""
    import os
    import threading

    paths = [_plain_session(tmp_path, f"question {i}") for i in range(5)]
    for i, path in enumerate(paths):  # question 4 is the newest file
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    release = threading.Event()

    def load(progress: Any) -> list[Any]:
        def on_info(info: Any) -> None:
            progress.row(info)
            if info.first_message == "question 3":  # the second file read: hold the rest
                release.wait(10)

        return SessionManager.list("/home/user/project", tmp_path, progress, on_info=on_info)

    picker = SessionPicker(load, lambda progress: [])
    host = Host(picker)
    async with host.run_test(size=(100, 30)) as pilot:
        try:
            await wait_for(pilot, lambda: picker.row_texts())
            assert picker.row_texts()[0] == "question 4"
            assert len(picker.row_texts()) < 5 and picker.progress["current"] is not None
        finally:
            release.set()
        await wait_for(pilot, lambda: len(picker.row_texts()) == 5 and picker.progress["current"] is None)


def test_listing_reads_newest_files_first_and_caches_unchanged_summaries(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import os

    from pi_app.coding.session import listing

    paths = [_plain_session(tmp_path, f"question {i}") for i in range(4)]
    for i, path in enumerate(paths):
        os.utime(path, (1_700_000_000 + 10 * i, 1_700_000_000 + 10 * i))
    reads: list[str] = []
    build = listing.build_session_info
    monkeypatch.setattr(
        listing, "build_session_info", lambda path, storage=None: reads.append(path) or build(path, storage)
    )
    seen: list[str] = []
    SessionManager.list("/home/user/project", tmp_path, on_info=lambda info: seen.append(info.first_message))
    assert seen == ["question 3", "question 2", "question 1", "question 0"]
    assert sorted(reads) == sorted(paths)
    reads.clear()
    before = {i.path: i.message_count for i in SessionManager.list("/home/user/project", tmp_path)}
    assert reads == []  # nothing changed: every summary came from the cache
    SessionManager.open(paths[1]).append_message(user("a follow-up"))
    infos = SessionManager.list("/home/user/project", tmp_path)
    assert reads == [paths[1]]  # only the file that changed is read again
    assert {i.path: i.message_count for i in infos}[paths[1]] == before[paths[1]] + 1


async def test_a_picker_built_in_a_running_app_reads_before_it_is_mounted(tmp_path: Path) -> None:
    """Issue 20 item 5: ``/resume`` builds its picker inside the app, and reading starts then, so
    the rows read while it is being mounted are in its first frame (not a frame and a layout later)."""
    import threading

    newest = _plain_session(tmp_path, "the newest question")
    reading = threading.Event()

    def load(progress: Any) -> list[Any]:
        reading.set()
        return SessionManager.list("/home/user/project", tmp_path, progress, on_info=progress.row)

    built: list[SessionPicker] = []
    host = Host(Static("no picker yet"))
    async with host.run_test(size=(100, 30)) as pilot:
        host.call_later(lambda: built.append(SessionPicker(load, lambda progress: [])))  # in the app
        await wait_for(pilot, lambda: built)
        picker = built[0]
        assert reading.wait(5) and not picker.is_mounted  # reading although nobody mounted it
        await wait_for_thread(lambda: picker._reading["current"].rows)
        await host.mount(picker)
        assert picker.row_texts() == ["the newest question"]  # shown at mount, no message round
        assert [r.info.path for r in picker.model.rows] == [newest]


async def wait_for_thread(condition: Any, timeout: float = 5) -> None:
    import asyncio

    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met in time")


async def test_session_rows_with_wide_characters_keep_their_right_column(tmp_path: Path) -> None:
    """A CJK or emoji first message takes two cells a character: the count and age at the right
    stay whole and the row is exactly as wide as the picker (they were cut by one cell per wide
    character, as seen in tmux beside pi 1.6.0)."""
    import re

    from rich.cells import cell_len

    for text in ("第一个问题，你好", "second question 😀", "third: “引号”", "长" * 200):
        _plain_session(tmp_path, text)
    picker = SessionPicker(
        lambda progress: SessionManager.list("/home/user/project", tmp_path, progress), lambda p: []
    )
    host = Host(picker)
    async with host.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: len(picker.model.rows) == 4)
        rows = [line for line in picker.view.lines() if re.search(r" 2 \w+$", line)]  # count, age
        assert len(rows) == 4, picker.view.lines()
        assert all(cell_len(line) == picker.view.size.width for line in rows)
        assert any("…" in line and "长长" in line for line in rows)  # cut to fit, marked


def test_fit_counts_cells() -> None:
    from rich.cells import cell_len

    from pi_app.tui.selectors.lines import fit

    runs = fit([("目录 ", None), ("你好世界你好世界", "accent")], 12)
    assert cell_len("".join(text for text, _ in runs)) <= 12 and runs[-1][0] == "..."
    assert fit([("ok", None)], 12) == [("ok", None)]


async def test_fork_rows_with_wide_characters_keep_their_number() -> None:
    from rich.cells import cell_len

    sm = SessionManager("/home/user/project", None, persist=False)
    for text in ("你好，世界。", "emoji 😀 question", "长" * 80):
        sm.append_message(user(text))
        sm.append_message(assistant("ok"))
    selector = ForkSelector(fork_candidates(sm.get_entries()))
    host = Host(selector)
    async with host.run_test(size=(90, 30)):
        rows = [line for line in selector.view.lines() if line.rstrip().endswith(("#1", "#2", "#3"))]
        assert len(rows) == 3 and all(cell_len(line) == selector.view.size.width for line in rows)
