"""``/import <file.jsonl>`` as in pi 1.6.0: asks first, copies the file byte for byte into the
project's session folder (its id and recorded cwd kept), resumes it; bad input is one error line."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import text
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started, users

SESSION_ID = "0196aaaa-bbbb-7ccc-8ddd-eeeeffff0001"


def write_session(path: Path, cwd: str) -> bytes:
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": SESSION_ID,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": cwd,
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "导入的问题，好吗？😀"}],
                "timestamp": 1,
            },
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Imported answer."}],
                "api": "openai-completions",
                "provider": "fake",
                "model": "fake-model",
                "usage": {
                    "input": 1,
                    "output": 1,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": 2,
            },
        },
    ]
    data = ("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n").encode()
    path.write_bytes(data)
    return data


async def test_import_asks_copies_and_resumes(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    source = tmp_path / "elsewhere" / "other.jsonl"
    source.parent.mkdir()
    data = write_session(source, "/somewhere/else")
    app, _ = make_app(tmp_path, [[text("after import")]], session_dir=str(sessions))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/import elsewhere/other.jsonl")
        await wait_for(pilot, lambda: app.editor._list is not None)  # the path completion list
        await pilot.press("enter")  # the path is complete: Enter sends the command
        await wait_for(pilot, lambda: "Replace current session" in _slot_text(app))
        assert f"Replace current session with {source}?" in _slot_text(app)
        await pilot.press("enter")  # Yes
        await wait_for(pilot, lambda: "Session imported from:" in notes(app))
        copied = sessions / "other.jsonl"
        assert copied.read_bytes().startswith(data)  # id and cwd preserved, byte for byte
        assert app.session.session_id == SESSION_ID
        assert users(app) == ["导入的问题，好吗？😀"]
        assert "recorded in /somewhere/else" in notes(app)
        # the conversation continues in the imported file
        await pilot.press(*"next", "enter")
        await wait_for(pilot, lambda: "after import" in notes(app) and not app.is_working)
        assert b"after import" in copied.read_bytes()
        assert source.read_bytes() == data  # the source is left alone


async def test_import_no_keeps_the_session_and_errors_are_one_line(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    source = tmp_path / "other.jsonl"
    write_session(source, str(tmp_path))
    (tmp_path / "notes.jsonl").write_text("not a session\n")
    app, _ = make_app(tmp_path, session_dir=str(sessions))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        before = app.session.session_id
        await pilot.press(*"/import other.jsonl", "enter")
        await wait_for(pilot, lambda: "Replace current session" in _slot_text(app))
        await pilot.press("down", "enter")  # No
        await pilot.pause(0.1)
        assert app.session.session_id == before and not (sessions / "other.jsonl").exists()
        await pilot.press(*"/import", "enter")
        await wait_for(pilot, lambda: "Usage: /import <path.jsonl>" in notes(app))
        for name, expected in (("missing.jsonl", "File not found"), ("notes.jsonl", "Not a session file")):
            await pilot.press(*f"/import {name}", "enter")
            await wait_for(pilot, lambda: "Replace current session" in _slot_text(app))
            await pilot.press("enter")
            await wait_for(pilot, lambda e=expected: f"Error: Failed to import session: {e}" in notes(app))
        assert app.session.session_id == before


def _slot_text(app) -> str:  # type: ignore[no-untyped-def]
    from pi_app.tui.selectors.choice import ChoiceSelector

    found = app.screen.query(ChoiceSelector)
    if not found:
        return ""
    selector = found.first()
    return "\n".join(strip.text for strip in selector._paint(400))
