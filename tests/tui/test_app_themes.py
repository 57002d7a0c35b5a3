"""Custom themes in the running app: project themes from the loader, hot reload (R-THEME-01/03/04)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.tui.app import PiApp
from tests.tui.fakes import resource_session_factory
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, started

ROOT = Path(__file__).parents[2]


def _theme(name: str, accent: str, base: str = "dark") -> dict:
    theme = json.loads((ROOT / "themes" / f"{base}.json").read_text())
    theme["name"] = name
    theme["colors"]["accent"] = accent
    return theme


async def test_a_project_theme_selected_in_project_settings_is_used(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".pi" / "themes").mkdir(parents=True)
    (project / ".pi" / "themes" / "ocean.json").write_text(json.dumps(_theme("ocean", "#123456")))
    (project / ".pi" / "settings.json").write_text(json.dumps({"theme": "ocean"}))
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    factory, _ = resource_session_factory(str(project), str(agent_dir), trust_project=True)
    app = PiApp(session_factory=factory, cwd=str(project), animate=False, agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: app.themes.current.name == "ocean")
        assert "ocean" in app.themes.names()
        assert app.transcript.render_theme.name == "ocean"
        assert app.themes.current.fg["accent"].color.triplet.hex == "#123456"
        assert "not found" not in "\n".join(app.transcript.plain_lines())


async def test_an_unknown_selected_theme_falls_back_and_says_so(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text(json.dumps({"theme": "nowhere"}))
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await wait_for(
            pilot, lambda: 'Failed to load theme "nowhere"' in "\n".join(app.transcript.plain_lines())
        )
        assert app.themes.current.name in ("dark", "light")


async def test_editing_the_active_theme_file_repaints_with_the_new_colours(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    (agent_dir / "themes").mkdir(parents=True)
    path = agent_dir / "themes" / "mine.json"
    path.write_text(json.dumps(_theme("mine", "#111111")))
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        assert app.theme_controller.switch("mine") is None
        await pilot.pause(0.3)  # the watcher is running
        path.write_text(json.dumps(_theme("mine", "#abcdef")))
        await wait_for(pilot, lambda: app.themes.current.fg["accent"].color.triplet.hex == "#abcdef", 15)
        assert app.transcript.render_theme.fg["accent"].color.triplet.hex == "#abcdef"
        path.write_text("{ half written")  # an invalid intermediate state keeps the last good theme
        await pilot.pause(0.6)
        assert app.themes.current.name == "mine"
        assert app.themes.current.fg["accent"].color.triplet.hex == "#abcdef"
