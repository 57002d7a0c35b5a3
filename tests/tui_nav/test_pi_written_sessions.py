"""Acceptance 3 of issue 10: sessions written by the TypeScript pi open in ``/tree`` and
``/resume`` (the fixtures in ``tests/fixtures/pi-reference``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_app.tui.selectors.sessions import SessionPicker
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import file_entries, idle, make_app, selector, submit, wait_for
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
