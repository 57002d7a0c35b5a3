"""Issue 17, defect 10: the footer names the provider from the start, a theme file added to the
themes folder is offered by /settings without /reload, and picking a theme returns to its row."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import fake_model
from pi_app.tui.selectors.select_list import SelectList
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, started

ROOT = Path(__file__).parents[2]


def selector(app, selector_id: str) -> SelectList:  # type: ignore[no-untyped-def]
    return app.screen.query_one(f"#{selector_id}", SelectList)


async def test_the_footer_names_the_provider_before_the_first_reply(tmp_path: Path) -> None:
    models = [fake_model("alpha", provider="fake"), fake_model("beta", provider="other")]
    app, _ = make_app(tmp_path, models=models)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: len({m.provider for m in app.known_models}) > 1)
        await wait_for(pilot, lambda: "(fake) alpha" in str(app.footer.render()))
        assert not app.session.messages  # nothing was asked yet


async def test_a_new_theme_file_is_offered_and_picking_it_returns_to_the_theme_row(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        theme = json.loads((ROOT / "themes" / "dark.json").read_text())
        theme["name"] = "latecomer"
        (agent_dir / "themes").mkdir(parents=True, exist_ok=True)
        (agent_dir / "themes" / "latecomer.json").write_text(json.dumps(theme))  # after start-up

        await pilot.press(*"/settings", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        settings = selector(app, "settings-selector")
        for _ in range(len(settings.model.filtered)):  # walk down to the theme row, as a user would
            current = settings.model.current()
            if current is not None and current.value == "theme":
                break
            await pilot.press("down")
        assert settings.model.current().value == "theme"
        row = settings.model.selected
        assert row > 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#theme-selector")))
        themes = selector(app, "theme-selector")
        assert "latecomer" in [item.value for item in themes.model.filtered]
        themes.model.select_value("latecomer")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        assert app.themes.current.name == "latecomer"
        back = selector(app, "settings-selector")
        assert back.model.current().value == "theme" and back.model.selected == row


async def test_after_picking_a_theme_the_settings_list_stays_on_the_theme_row(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/settings", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        settings = selector(app, "settings-selector")
        while settings.model.current().value != "theme":
            await pilot.press("down")
        row = settings.model.selected
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#theme-selector")))
        await pilot.press("down", "enter")  # light
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        assert app.themes.current.name == "light"
        back = selector(app, "settings-selector")
        assert back.model.selected == row > 0 and back.model.current().value == "theme"


async def test_the_theme_list_offers_system_which_follows_the_background_and_is_saved(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, settings={"theme": "light"})
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/settings", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        settings = selector(app, "settings-selector")
        while settings.model.current().value != "theme":
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#theme-selector")))
        themes = selector(app, "theme-selector")
        themes.model.select_value("system")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        assert app.themes.current.name == "dark"  # the test terminal reports no light background
        assert app.settings.get_theme() == "system"
