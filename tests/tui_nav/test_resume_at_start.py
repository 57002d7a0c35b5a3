"""``pi -r``: the picker that runs before the app, and how its answer reaches the start-up."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.launch import LaunchOptions
from pi_app.tui.selectors.resume_start import ResumePickerApp, choose_session_to_resume, session_dir_for
from tests.session.helpers import assistant, user
from tests.tui_nav.app_helpers import CWD, wait_for
from tests.tui_nav.helpers import branched_session


def _saved(directory: Path, first: str) -> str:
    sm = branched_session(directory).sm
    sm.append_message(user(first))
    sm.append_message(assistant(f"about {first}"))
    return sm.get_session_file()


async def test_picker_app_returns_the_chosen_file_or_none(tmp_path: Path) -> None:
    older = _saved(tmp_path, "older work")
    newer = _saved(tmp_path, "newer work")
    app = ResumePickerApp(CWD, str(tmp_path))
    async with app.run_test(size=(90, 24)) as pilot:
        await wait_for(pilot, lambda: len(app.picker.model.rows) == 2)
        app.picker.model.set_query('"older work"')
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == older and newer != older

    app = ResumePickerApp(CWD, str(tmp_path))
    async with app.run_test(size=(90, 24)) as pilot:
        await wait_for(pilot, lambda: len(app.picker.model.rows) == 2)
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_value is None


def test_the_choice_becomes_the_session_to_open(tmp_path: Path) -> None:
    class Chooses:
        def __init__(self, answer: str | None) -> None:
            self.answer = answer

        def run(self) -> str | None:
            return self.answer

    options = LaunchOptions(resume=True, cwd=CWD)
    assert not choose_session_to_resume(options, Chooses(None)) and options.resume
    assert choose_session_to_resume(options, Chooses("/x/s.jsonl"))
    assert options.session == "/x/s.jsonl" and not options.resume


def test_session_dir_follows_the_flag(tmp_path: Path) -> None:
    options = LaunchOptions(resume=True, cwd=CWD, session_dir=str(tmp_path / "mine"))
    assert session_dir_for(options, CWD) == str(tmp_path / "mine")
    assert session_dir_for(LaunchOptions(cwd=CWD), CWD).endswith("--home-user-project--")
