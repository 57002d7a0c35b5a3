"""``/thinking`` as a pi 1.6.0 user meets it: the picker of the model's levels and ``/thinking <level>``.

The real app over the real ``AgentSession``; the models are scripted fakes.
"""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import fake_model
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started


async def submit(pilot, text_: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*text_, "enter")


def picker_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    selector = app.screen.query_one("#thinking-selector")
    return [strip.text for strip in selector._strips]


async def test_thinking_picker_lists_the_models_levels_and_enter_sets_one_for_the_session(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("thinker", reasoning=True)], thinking_level="low")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        default_before = app.settings.get_default_thinking_level()
        await submit(pilot, "/thinking")
        await wait_for(pilot, lambda: bool(app.screen.query("#thinking-selector")))
        await pilot.pause()
        shown = "\n".join(picker_lines(app))
        assert "Thinking level" in shown
        for level in ("off", "minimal", "low", "medium", "high"):
            assert level in shown
        assert "xhigh" not in shown  # the fake model does not map xhigh
        assert any("✓ low" in line and "→" in line for line in picker_lines(app))  # current, preselected
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: "Thinking level: high" in notes(app))
        assert app.session.thinking_level == "high"
        assert not app.screen.query("#thinking-selector")
        assert app.settings.get_default_thinking_level() == default_before  # Enter does not save
        assert "high" in str(app.footer.render())


async def test_ctrl_s_in_the_thinking_picker_saves_the_default(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("thinker", reasoning=True)], thinking_level="low")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/thinking")
        await wait_for(pilot, lambda: bool(app.screen.query("#thinking-selector")))
        await pilot.press("up", "ctrl+s")
        await wait_for(pilot, lambda: "Default thinking level: minimal" in notes(app))
        assert app.session.thinking_level == "minimal"
        assert app.settings.get_default_thinking_level() == "minimal"


async def test_thinking_with_a_level_sets_it_and_an_unknown_level_is_an_error(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("thinker", reasoning=True)], thinking_level="low")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/thinking hi")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)  # the model's levels are offered
        await pilot.press("enter")  # takes the completion
        await wait_for(pilot, lambda: app.editor.text == "/thinking high")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Thinking level: high" in notes(app))
        assert app.session.thinking_level == "high"
        await app.router.commands.run(app, "/thinking MEDIUM")  # the level's case does not matter
        await wait_for(pilot, lambda: "Thinking level: medium" in notes(app))
        assert app.session.thinking_level == "medium"
        await submit(pilot, "/thinking loud")
        await wait_for(pilot, lambda: 'Unknown thinking level "loud"' in notes(app))
        assert "Available levels: off, minimal, low, medium, high." in notes(app)
        assert app.session.thinking_level == "medium"
        assert not app.screen.query("#thinking-selector")


async def test_thinking_offers_only_off_for_a_model_without_reasoning(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("plain")])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/thinking high")
        await wait_for(pilot, lambda: 'Unknown thinking level "high". Available levels: off.' in notes(app))
