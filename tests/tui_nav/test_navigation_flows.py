"""Acceptance 1 of issue 10, in the real app: branch, return via ``/tree`` with a summary, label
and filter, fork, clone and resume; after each step the session files on disk hold the expected
entries and parent links."""

from __future__ import annotations

from pathlib import Path

from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.fork import ForkSelector
from pi_app.tui.selectors.sessions import SessionPicker
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import (
    file_entries,
    idle,
    make_app,
    selector,
    send,
    submit,
    user_texts,
    wait_for,
)


def by_text(entries: list[dict], text: str, role: str = "user") -> dict:
    for e in entries:
        m = e.get("message") or {}
        content = m.get("content")
        body = content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])
        if e.get("type") == "message" and m.get("role") == role and body == text:
            return e
    raise AssertionError(f"no {role} entry {text!r}")


async def open_tree(app, pilot) -> TreeNavigator:
    await submit(app, pilot, "/tree")
    await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
    await pilot.pause(0.05)
    return selector(app, TreeNavigator)


async def choose(app, pilot, option: str) -> None:
    await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
    choice = selector(app, ChoiceSelector)
    assert choice.title == "Summarize branch?"
    for _ in range(choice.options.index(option)):
        await pilot.press("down")
    await pilot.press("enter")


async def test_branch_return_label_fork_clone_resume(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    app, provider = make_app(sessions)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "one")
        await send(app, pilot, "two")
        first_file = app.session.session_file
        entries = file_entries(first_file)
        two = by_text(entries, "two")

        # 1. branch from the earlier user message "two": the leaf moves to its parent and the
        #    message text lands in the editor
        nav = await open_tree(app, pilot)
        nav.model.select(two["id"])
        await pilot.press("enter")
        await choose(app, pilot, "No summary")
        await wait_for(pilot, lambda: app.editor.text == "two")
        assert selector(app, TreeNavigator) is None and app.editor.display
        assert "answer: two" not in " ".join(app.transcript.plain_lines())
        assert file_entries(first_file) == entries  # moving the leaf alone writes nothing
        assert app.session.session_manager.get_leaf_id() == two["parentId"]
        app.editor.text = ""
        await send(app, pilot, "two again")
        entries = file_entries(first_file)
        again = by_text(entries, "two again")
        assert again["parentId"] == two["parentId"]  # a sibling of "two": a new branch

        # 2. back to the first branch's last answer, with a branch summary of the one we leave
        calls_before = len(provider.calls)
        nav = await open_tree(app, pilot)
        old_answer = by_text(entries, "answer: two", role="assistant")
        nav.model.select(old_answer["id"])
        await pilot.press("enter")
        await choose(app, pilot, "Summarize")
        await wait_for(pilot, lambda: any(e["type"] == "branch_summary" for e in file_entries(first_file)))
        await idle(app, pilot)
        summary = next(e for e in file_entries(first_file) if e["type"] == "branch_summary")
        left = by_text(file_entries(first_file), "answer: two again", role="assistant")
        assert summary["parentId"] == old_answer["id"] and summary["fromId"] == left["id"]  # the leaf left
        assert len(provider.calls) == calls_before + 1  # the summariser asked the model once
        assert app.session.session_manager.get_leaf_id() == summary["id"]
        shown = " ".join(app.transcript.plain_lines())
        assert "answer: two" in shown and "two again" not in shown
        assert "[branch] Branch summary" in " ".join(shown.split())  # part of the new context
        assert file_entries(first_file)[: len(entries)] == entries  # leaving a branch loses nothing

        # 3. label an entry, then filter to labelled entries only
        nav = await open_tree(app, pilot)
        one = by_text(entries, "one")
        nav.model.select(one["id"])
        await pilot.press("shift+l", *"start", "enter")
        await wait_for(pilot, lambda: any(e["type"] == "label" for e in file_entries(first_file)))
        label = next(e for e in file_entries(first_file) if e["type"] == "label")
        assert label["targetId"] == one["id"] and label["label"] == "start"
        assert label["parentId"] == summary["id"]  # appended after the leaf of the moment
        await pilot.press("ctrl+l")
        assert nav.model.filter_mode == "labeled-only" and nav.model.visible_ids() == [one["id"]]
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is None)

        # 4. fork at "two again": a new file with the history before it; its text in the editor
        await submit(app, pilot, "/fork")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is not None)
        fork = selector(app, ForkSelector)
        assert [c.text for c in fork.candidates] == ["one", "two", "two again"]
        await pilot.press("enter")  # the newest is selected first
        await wait_for(pilot, lambda: app.session.session_file != first_file)
        await wait_for(pilot, lambda: app.editor.text == "two again")
        fork_file = app.session.session_file
        shown = " ".join(app.transcript.plain_lines())
        assert "answer: one" in shown and "answer: two" not in shown  # rebuilt from the new file
        forked = file_entries(fork_file)  # written at once: the copied path has an assistant reply
        assert forked[0]["parentSession"] == first_file
        assert user_texts(forked) == ["one"] and forked[-1]["type"] == "label"
        ids = [e["id"] for e in forked[1:]]
        assert all(e["parentId"] == prev for e, prev in zip(forked[2:], ids, strict=False))
        app.editor.text = ""
        await send(app, pilot, "forked question")
        assert user_texts(file_entries(fork_file)) == ["one", "forked question"]

        # 5. clone: the active path into yet another file, and we continue there
        await submit(app, pilot, "/clone")
        await wait_for(pilot, lambda: app.session.session_file not in (first_file, fork_file))
        clone_file = app.session.session_file
        assert "answer: forked question" in " ".join(app.transcript.plain_lines())
        cloned = file_entries(clone_file)
        assert cloned[0]["parentSession"] == fork_file and cloned[0]["id"] != forked[0]["id"]
        assert user_texts(cloned) == ["one", "forked question"]
        assert [e["id"] for e in cloned[1:] if e["type"] != "label"] == [
            e["id"] for e in file_entries(fork_file)[1:] if e["type"] != "label"
        ]
        assert all(e["parentId"] == prev["id"] for prev, e in zip(cloned[1:], cloned[2:], strict=False))
        await send(app, pilot, "cloned question")  # continuing writes to the clone only
        assert user_texts(file_entries(clone_file))[-1] == "cloned question"
        assert "cloned question" not in user_texts(file_entries(fork_file))

        # 6. resume the first session from the picker
        await submit(app, pilot, "/resume")
        await wait_for(pilot, lambda: selector(app, SessionPicker) is not None)
        picker = selector(app, SessionPicker)
        await wait_for(pilot, lambda: len(picker.model.rows) == 3)
        before_resume = file_entries(first_file)
        picker.model.set_query('"two again"')
        assert [r.info.path for r in picker.model.rows] == [first_file]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.session_file == first_file)
        await idle(app, pilot)
        # on load the leaf is the file's last entry: the label, appended after the summary
        shown = " ".join(app.transcript.plain_lines())
        assert "answer: two" in shown and "two again" not in shown and "forked question" not in shown
        leaf = app.session.session_manager.get_leaf_entry()
        assert leaf.type == "label" and leaf.id == before_resume[-1]["id"]
        await send(app, pilot, "resumed question")
        resumed = file_entries(first_file)
        assert resumed[: len(before_resume)] == before_resume  # resuming rewrote nothing
        added = resumed[len(before_resume) :]
        assert added[0]["parentId"] == leaf.id  # the new turn continues from the resumed leaf
        assert all(e["parentId"] == prev["id"] for prev, e in zip(added, added[1:], strict=False))
        assert user_texts(added) == ["resumed question"]
