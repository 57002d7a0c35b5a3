"""The app asks whether to trust a project (issue 19 item 11e; D-22, R-TRUST-03/06).

A project with gated resources (here a ``.pi/prompts`` template), no saved decision and
``defaultProjectTrust: ask`` used to load untrusted without a word in the app. Now the question
takes the editor's place while the session starts; the answer decides whether the project's
template exists and is saved to ``trust.json`` where it says; Escape means not trusted for this run
only. ``/trust`` asks again and reloads.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pi_app.coding.launch import LaunchOptions
from pi_app.coding.trust import NOT_TRUSTED_THIS_RUN
from pi_app.tui.app import PiApp
from pi_app.tui.selectors.choice import ChoiceSelector
from tests.tui.helpers import wait_for, write_local_model
from tests.tui.test_app_flows import notes


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    write_local_model(agent_dir)
    cwd = tmp_path / "work" / "proj"
    (cwd / ".pi" / "prompts").mkdir(parents=True)
    (cwd / ".pi" / "prompts" / "projtpl.md").write_text("Project template body\n")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    return cwd, agent_dir


def _app(cwd: Path, agent_dir: Path) -> PiApp:
    options = LaunchOptions(no_session=True, cwd=str(cwd))
    return PiApp(options, cwd=str(cwd), animate=False, agent_dir=agent_dir)


def _question(app: PiApp) -> ChoiceSelector | None:
    found = [w for w in app.query(ChoiceSelector) if w.title == "Trust this project folder?"]
    return found[0] if found else None


def _asking(app: PiApp) -> bool:
    """The question is on screen and has the keys (a key pressed before that goes to the editor)."""
    question = _question(app)
    return question is not None and question.has_focus


def _saved(agent_dir: Path) -> dict[str, bool]:
    path = agent_dir / "trust.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _has_template(app: PiApp) -> bool:
    loader = app.session.resource_loader
    return any(p.name == "projtpl" for p in loader.get_prompts().items)


async def _choose(pilot, app: PiApp, label_start: str) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: _asking(app), 20)
    question = _question(app)
    assert question is not None
    index = next(i for i, option in enumerate(question.options) if option.startswith(label_start))
    for _ in range(index):
        await pilot.press("down")
    await pilot.press("enter")


async def test_trusting_the_folder_loads_its_resources_and_saves_the_answer(project) -> None:  # type: ignore[no-untyped-def]
    cwd, agent_dir = project
    app = _app(cwd, agent_dir)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: _question(app) is not None, 20)
        question = _question(app)
        assert question is not None and question.message is not None
        assert str(cwd.resolve()) in question.message
        assert question.options[1] == f"Trust its parent folder ({cwd.resolve().parent})"
        await _choose(pilot, app, "Trust this folder")
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert _has_template(app)
        assert _question(app) is None and app.editor.has_focus
    assert _saved(agent_dir) == {str(cwd.resolve()): True}


async def test_escape_leaves_the_project_untrusted_for_this_run_only(project) -> None:  # type: ignore[no-untyped-def]
    cwd, agent_dir = project
    app = _app(cwd, agent_dir)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: _asking(app), 20)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert not _has_template(app)
        await wait_for(pilot, lambda: "not trusted (/trust decides again)" in notes(app))
    assert _saved(agent_dir) == {}


async def test_closing_the_app_during_the_question_answers_not_trusted_and_does_not_hang(project) -> None:  # type: ignore[no-untyped-def]
    """The agent thread waits for the answer while the session is built; the app closes instead:
    the question gets its default answer (not trusted, this run only) and nothing waits forever."""
    cwd, agent_dir = project
    app = _app(cwd, agent_dir)
    answers: list[object] = []
    ask_user = app.bridge.ask_user

    async def recording(flow, default):  # type: ignore[no-untyped-def]
        answer = await ask_user(flow, default)
        answers.append(answer)
        return answer

    app.bridge.ask_user = recording  # type: ignore[method-assign]
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: _asking(app), 20)
        app.exit()
    deadline = time.monotonic() + 10
    while not answers and time.monotonic() < deadline:
        time.sleep(0.02)
    assert answers == [NOT_TRUSTED_THIS_RUN]
    assert app.bridge.wait_ready(10)  # the agent thread got past the session's start
    assert _saved(agent_dir) == {}


async def test_trusting_the_parent_is_saved_for_the_parent(project) -> None:  # type: ignore[no-untyped-def]
    cwd, agent_dir = project
    app = _app(cwd, agent_dir)
    async with app.run_test(size=(110, 32)) as pilot:
        await _choose(pilot, app, "Trust its parent folder")
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert _has_template(app)
    assert _saved(agent_dir) == {str(cwd.resolve().parent): True}
    second = _app(cwd, agent_dir)  # the saved decision answers from now on: no question
    async with second.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: second.session is not None, 20)
        assert _question(second) is None and _has_template(second)


async def test_slash_trust_decides_again_and_reloads(project) -> None:  # type: ignore[no-untyped-def]
    cwd, agent_dir = project
    app = _app(cwd, agent_dir)
    async with app.run_test(size=(110, 32)) as pilot:
        await _choose(pilot, app, "Don't trust, this session only")
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert not _has_template(app) and _saved(agent_dir) == {}
        app.editor.text = "/trust"
        await pilot.press("enter")
        await _choose(pilot, app, "Trust for this session only")
        await wait_for(pilot, lambda: _has_template(app), 20)
        assert "Project trusted; resources reloaded" in notes(app)
    assert _saved(agent_dir) == {}


async def test_a_project_without_gated_resources_is_not_asked_about(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (tmp_path / "plain" / ".pi").mkdir(parents=True)  # a bare .pi folder needs no decision
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    app = _app(tmp_path / "plain", agent_dir)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert _question(app) is None
