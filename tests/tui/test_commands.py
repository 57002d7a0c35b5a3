"""The slash-command registry and the editor slot that selectors take over (R-SEL-00, §3.9)."""

from __future__ import annotations

from textual.widgets import Static

from pi_app.tui.app import PiApp
from pi_app.tui.commands.registry import CommandRegistry, SlashCommand, builtin_registry, parse
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for


def test_parse_splits_name_and_arguments() -> None:
    assert parse("/compact  keep the API notes ") == ("compact", "keep the API notes")
    assert parse("/quit") == ("quit", "")
    assert parse("hello /quit") is None
    assert parse("/ spaced") is None
    assert parse("/") is None


def test_registry_finds_commands_and_aliases_and_hides_hidden_ones() -> None:
    registry = CommandRegistry()
    registry.add(SlashCommand("quit", "Quit pi", aliases=("exit",)))
    registry.add(SlashCommand("debug", "Dump", hidden=True))
    assert registry.find("exit") is registry.find("quit")
    assert "debug" in registry
    assert [c.name for c in registry.visible()] == ["quit"]
    registry.remove("quit")
    assert registry.find("exit") is None


def test_builtin_registry_has_quit() -> None:
    assert builtin_registry().find("quit") is not None


async def test_a_command_swaps_a_widget_into_the_editor_slot_and_back(tmp_path) -> None:
    factory, provider = fake_session_factory(str(tmp_path))
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    seen: list[str] = []

    def open_panel(app: PiApp, args: str) -> None:
        seen.append(args)
        app.show_in_editor_slot(Static("a selector", id="panel"))

    app.router.commands.add(SlashCommand("panel", "Open a panel", open_panel))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"/panel  two words", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#panel")))
        assert seen == ["two words"]
        assert not app.editor.display
        # the text typed before the swap is kept while the selector is open
        app.editor.insert("draft")
        app.restore_editor()
        await pilot.pause()
        assert not app.screen.query("#panel")
        assert app.editor.display and app.editor.has_focus
        assert app.editor.text == "draft"
        assert provider.calls == []  # the command never reached the model


async def test_quit_command_exits_cleanly(tmp_path) -> None:
    factory, _ = fake_session_factory(str(tmp_path))
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"/quit", "enter")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0
