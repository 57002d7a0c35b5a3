"""Acceptance 3 of issue 10: sessions written by the TypeScript pi open in ``/tree`` and
``/resume`` (the fixtures in ``tests/fixtures/pi-reference``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.fork import ForkSelector
from pi_app.tui.selectors.sessions import SessionPicker
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import file_entries, idle, make_app, selector, send, submit, wait_for
from tests.tui_nav.helpers import PI_REFERENCE


async def test_pi_sessions_in_tree_and_resume(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    tui = str(shutil.copy(PI_REFERENCE / "session-tui-0.58.3.jsonl", sessions / "a.jsonl"))
    original = PI_REFERENCE / "session-bash_ls-print-0.73.1.jsonl"
    printed = str(shutil.copy(original, sessions / "b.jsonl"))
    before = Path(tui).read_text()
    app, _ = make_app(sessions, open_path=Path(tui))
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        nav = selector(app, TreeNavigator)
        assert nav.row_texts()[0] == "  • user: hello"
        assert nav.row_texts()[-2:] == [
            "  • [bash: ls]",
            "› • assistant: The directory contains a.txt and b.txt. ← active",
        ]
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is None)
        assert Path(tui).read_text() == before  # looking never writes

        await submit(app, pilot, "/resume")
        await wait_for(pilot, lambda: selector(app, SessionPicker) is not None)
        picker = selector(app, SessionPicker)
        await wait_for(pilot, lambda: len(picker.model.rows) == 2)
        by_path = {row.info.path: row.info for row in picker.model.rows}
        assert by_path[tui].first_message == "hello" and by_path[tui].message_count == 6
        assert by_path[printed].first_message == "list the files"
        picker.model.cursor.select([row.info.path for row in picker.model.rows].index(printed))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.session_file == printed)
        await idle(app, pilot)
        shown = " ".join(app.transcript.plain_lines())
        assert "list the files" in shown and "hello" not in shown
        # resuming kept every pi-written line; anything we add comes after them
        kept = file_entries(printed)[: len(file_entries(original))]
        assert kept == file_entries(original)


# What pi 0.73.1's own /tree shows for this file at 120 columns (tmux capture), apart from the
# "← active" marker spec 60 R-SEL-01 asks for and our longer rows (pi cuts at the terminal width).
PI_TREE_ROWS = [
    "  • [start] user: hello",
    "  • assistant: Hi! How can I help?",
    "  ├⊟ • user: plan the refactor",
    "  │     • assistant: Let me look first.",
    "  │     • [bash: ls]",
    "  │     • assistant: Here is the plan: split the parser.",
    "  │     • user: continue the plan",
    "› │     • assistant: Step one of the plan is done.",
    "  └⊟ [explored] [branch summary]: The user explored a different conversation branch before",
    "        user: write the tests instead",
    "        assistant: The tests are written.",
]


def key_of(entry: dict) -> str:
    """A message's first text block, else the entry type."""
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, list) and content and content[0].get("type") == "text":
        return content[0]["text"]
    return entry["type"]


async def test_a_branched_pi_session_in_tree_and_fork(tmp_path: Path) -> None:
    """Written by pi 0.73.1 (scripts/make_pi_branched_session.py): two branches off the first
    answer, a branch summary labelled by ``navigateTree``, a label from ``pi.setLabel``."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    original = PI_REFERENCE / "session-branched-0.73.1.jsonl"
    path = str(shutil.copy(original, sessions / "branched.jsonl"))
    pi_lines = file_entries(original)
    ids = {key_of(e): e["id"] for e in pi_lines[1:]}
    app, _ = make_app(sessions, open_path=Path(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        nav = selector(app, TreeNavigator)
        rows = [row.replace(" ← active", "") for row in nav.row_texts()]
        assert [row[: len(want)] for row, want in zip(rows, PI_TREE_ROWS, strict=True)] == PI_TREE_ROWS
        assert nav.row_texts()[7].endswith("← active") and nav.model.status_text() == "(8/11)"
        # a row longer than the terminal ends in "..." exactly where pi cuts it
        assert nav.rows.lines()[8] == (
            "  └⊟ [explored] [branch summary]: The user explored a different conversation branch"
            " before returning here. Summary of..."
        )
        await pilot.press("ctrl+l")
        assert [r[:30] for r in nav.row_texts()] == [
            "› • [start] user: hello",
            "  [explored] [branch summary]:",
        ]
        await pilot.press("ctrl+d")  # back to the default filter, selection kept on "hello"
        nav.model.select(ids["The tests are written."])
        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("enter")  # no summary
        await wait_for(pilot, lambda: "Navigated to selected point" in " ".join(app.transcript.plain_lines()))
        shown = " ".join(" ".join(app.transcript.plain_lines()).split())
        assert "[branch] Branch summary" in shown and "The tests are written." in shown
        assert "Step one of the plan" not in shown

        await send(app, pilot, "and the docs")
        entries = file_entries(path)
        assert entries[: len(pi_lines)] == pi_lines  # pi's lines stay as pi wrote them
        assert entries[len(pi_lines)]["parentId"] == ids["The tests are written."]

        await submit(app, pilot, "/fork")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is not None)
        fork = selector(app, ForkSelector)
        assert [c.text for c in fork.candidates] == [
            "hello",
            "plan the refactor",
            "write the tests instead",
            "continue the plan",
            "and the docs",
        ]
        await pilot.press("up", "up", "enter")  # "write the tests instead"
        await wait_for(pilot, lambda: app.session.session_file != path)
        forked = file_entries(app.session.session_file)
        assert forked[0]["parentSession"] == path
        # the copied path keeps pi's ids and its branch summary; labels on it come along
        assert [e["id"] for e in forked[1:] if e["type"] != "label"] == [
            ids["model_change"],
            ids["thinking_level_change"],
            ids["hello"],
            ids["Hi! How can I help?"],
            ids["branch_summary"],
        ]
        assert {e["label"] for e in forked if e["type"] == "label"} == {"start", "explored"}
