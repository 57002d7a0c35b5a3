"""After a user's quit the conversation and the resume command are left for the normal screen
(issue 17, defect 6): ``/quit``, Ctrl+C twice and Ctrl+D alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_app.tui.chrome.farewell import MAX_LINES, transcript_lines
from tests.tui_nav.app_helpers import make_app, send, wait_for

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    "quit_keys", [("/quit",), ("ctrl+c", "ctrl+c"), ("ctrl+d",)], ids=["quit", "ctrl+c", "ctrl+d"]
)
async def test_quitting_leaves_the_conversation_and_the_resume_command(
    tmp_path: Path, quit_keys: tuple[str, ...]
) -> None:
    app, _ = make_app(tmp_path / "sessions")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "FIRST-QUESTION")
        await send(app, pilot, "second question")
        session_id = app.session.session_id
        if quit_keys == ("/quit",):
            app.editor.text = "/quit"
            await pilot.press("enter")
        else:
            await pilot.press(*quit_keys)
        await wait_for(pilot, lambda: bool(app.farewell))
    lines = [ANSI.sub("", line).strip() for line in app.farewell.splitlines()]
    assert "FIRST-QUESTION" in lines and "answer: FIRST-QUESTION" in lines
    assert lines.index("answer: FIRST-QUESTION") < lines.index("answer: second question")
    # the sessions are in a folder of the test's, not the default one: the command names it (1.6.0)
    assert lines[-2:] == [
        "To resume this session:",
        f"pi --session-dir {tmp_path / 'sessions'} --session {session_id}",
    ]
    assert "\x1b[" in app.farewell  # in colour, as it was on screen


async def test_a_session_in_the_default_folder_resumes_by_its_id_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_app.coding import paths
    from tests.tui_nav.app_helpers import CWD

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    app, _ = make_app(paths.default_session_dir(CWD))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "a question")
        session_id = app.session.session_id
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: bool(app.farewell))
    lines = [ANSI.sub("", line).strip() for line in app.farewell.splitlines()]
    assert lines[-2:] == ["To resume this session:", f"pi --session {session_id}"]


def test_the_resume_command_quotes_a_folder_with_spaces() -> None:
    from pi_app.tui.chrome.farewell import resume_hint

    assert (
        resume_hint("id1", True, "/tmp/my sessions")[-1]
        == "pi --session-dir '/tmp/my sessions' --session id1"
    )


async def test_without_a_session_file_there_is_nothing_to_resume(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path / "sessions")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+d")  # nothing said yet: pi writes no file
        await wait_for(pilot, lambda: bool(app.farewell))
    assert "To resume this session:" not in app.farewell


def test_a_huge_transcript_prints_only_its_last_lines() -> None:
    from pi_app.tui.transcript.blocks.text import NoteBlock
    from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK

    blocks = [NoteBlock(f"note {i}") for i in range(20_000)]
    lines = transcript_lines(blocks, 80, FALLBACK_DARK, None)
    assert len(lines) == MAX_LINES and lines[-1].strip() == "note 19999"
    assert sum(1 for block in blocks if block.render_count) < 3 * MAX_LINES  # the rest never rendered
