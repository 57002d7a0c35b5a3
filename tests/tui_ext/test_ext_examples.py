"""The example extensions in the full-screen app: a dialog from a ``tool_call`` handler while the
agent runs (permission gate), statuses/widgets/shortcut (plan mode), the custom footer, and a
replacement editor (spec 40 §6 scenario 4 in the TUI, R-UI-02..06; spec 60 R-XUI-02)."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import text, tool_call
from pi_app.tui.commands.actions import run_action
from pi_app.tui.extensions.dialogs import SelectDialog
from tests.tui.helpers import wait_for
from tests.tui_ext.fakes import EXAMPLES, extension_app, transcript_text, write_extension


def _tool_results(app) -> list[str]:
    return [m.content[0].text for m in app.session.messages if getattr(m, "role", "") == "toolResult"]


async def test_permission_gate_asks_while_the_agent_waits(tmp_path: Path) -> None:
    target = tmp_path / "proj" / "precious"
    target.mkdir(parents=True)
    script = [[tool_call("bash", {"command": f"rm -rf {target}"})], [text("could not delete")]]
    app, _, _ = extension_app(tmp_path, [EXAMPLES / "permission_gate.py"], script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        await pilot.press(*"delete it", "enter")
        await wait_for(pilot, lambda: app.ext.dialogs.current is not None)
        dialog = app.ext.dialogs.current.widget
        assert isinstance(dialog, SelectDialog) and "Dangerous command" in dialog.title
        painted = [strip.text.rstrip() for strip in dialog._paint(100)]
        assert f"    rm -rf {target}" in painted and "  Allow it?" in painted  # every title line
        assert "› Yes" in painted and "  No" in painted
        assert app.is_working  # the run is waiting for the answer, the UI is not
        await pilot.press(*"x")  # keys go to the dialog, not the hidden editor
        assert app.editor.text == ""
        await pilot.press("down", "enter")  # "No"
        await wait_for(pilot, lambda: "could not delete" in transcript_text(app) and not app.is_working)
        assert _tool_results(app) == ["Blocked by user"]
        assert target.exists()


async def test_plan_mode_status_widget_and_shortcut(tmp_path: Path) -> None:
    app, _, _ = extension_app(tmp_path, [EXAMPLES / "plan_mode"])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        await wait_for(pilot, lambda: "ctrl+alt+p" in app.ext.shortcuts)
        await pilot.press("ctrl+alt+p")
        await wait_for(pilot, lambda: "plan mode" in app.footer.state.statuses.values())
        assert "plan mode" in str(app.footer.render())
        assert "Plan mode on" in transcript_text(app)
        app.editor.set_text("/plan")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.footer.state.statuses)
        assert "Plan mode off" in transcript_text(app)


async def test_custom_footer_example_replaces_and_restores_the_footer(tmp_path: Path) -> None:
    app, _, _ = extension_app(tmp_path, [EXAMPLES / "custom_footer.py"])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ext.surface.footer_widget is not None)
        await pilot.pause(0.05)
        footer = app.main_screen.query_one("#example-footer")
        assert "fake-model" in str(footer.render()) and "thinking:" in str(footer.render())
        assert not app.footer.display
        app.editor.set_text("/footer")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.footer.display)
        assert not app.main_screen.query("#example-footer")
        assert "Built-in footer restored" in transcript_text(app)


SHOUTING = """
from pi_app.tui.ext import CustomEditor

class ShoutingEditor(CustomEditor):
    def handle_key(self, press):
        if press.character and press.character.isalpha():
            self.insert(press.character.upper())
            return
        super().handle_key(press)

def setup(pi):
    seen = []

    async def shout(args, ctx):
        if args == "off":
            ctx.ui.set_editor_component(None)
        else:
            ctx.ui.set_editor_component(lambda app, theme, keybindings: ShoutingEditor(app))

    pi.register_command("shout", handler=shout)

    async def listen(args, ctx):
        def listener(key):
            seen.append(key)
            if key == "q":
                return {"consume": True}
            if key == "z":
                return {"data": "Z!"}
            return None
        ctx.ui.on_terminal_input(listener)

    pi.register_command("listen", handler=listen)
"""


async def test_replacement_editor_keeps_app_keys_and_text(tmp_path: Path) -> None:
    """R-UI-06: a CustomEditor handles its keys, the app's keys still work, the text survives."""
    path = write_extension(tmp_path / "ext" / "shouting.py", SHOUTING)
    app, _, _ = extension_app(tmp_path, [path], [[text("heard you")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        app.ext.run_command("/shout")
        await wait_for(
            pilot, lambda: type(app.editor).__name__ == "ShoutingEditor" and app.focused is app.editor
        )
        await pilot.press(*"hey", "space", "1")
        assert app.editor.text == "HEY 1"
        await pilot.press("enter")  # submit is an app binding the replacement inherits
        await wait_for(pilot, lambda: "heard you" in transcript_text(app) and not app.is_working)
        app.editor.set_text("keep")
        app.ext.run_command("/shout off")
        await wait_for(
            pilot, lambda: type(app.editor).__name__ == "PromptEditor" and app.focused is app.editor
        )
        assert app.editor.text == "keep" and app.focused is app.editor

        app.ext.run_command("/listen")
        await pilot.pause(0.2)
        app.editor.set_text("")
        await pilot.press("a", "q", "z")
        assert app.editor.text == "aZ!"  # q consumed, z replaced


WATCHER = """
def setup(pi):
    @pi.on("model_select")
    def model(event, ctx):
        ctx.ui.notify(f"model_select {event.model.id} from {event.previous_model.id} ({event.source})", "warning")

    @pi.on("thinking_level_select")
    def level(event, ctx):
        ctx.ui.notify(f"thinking_level_select {event.previous_level} -> {event.level}", "warning")
"""


async def test_model_and_thinking_keys_reach_extensions(tmp_path: Path) -> None:
    """Scenario 30's extension half: Ctrl+P fires model_select{source: cycle}; the thinking key
    fires thinking_level_select (40 §2.7)."""
    from pi_app.ai.testing import fake_model

    path = write_extension(tmp_path / "ext" / "watcher.py", WATCHER)
    models = [fake_model("alpha", reasoning=True), fake_model("beta", reasoning=True)]
    app, _, _ = extension_app(tmp_path, [path], models=models)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        await pilot.pause(0.2)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: "model_select beta from alpha (cycle)" in transcript_text(app))
        before = app.session.thinking_level
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: "thinking_level_select" in transcript_text(app))
        assert f"thinking_level_select {before} -> {app.session.thinking_level}" in transcript_text(app)


async def test_custom_tool_renderer_example_draws_call_and_result(tmp_path: Path) -> None:
    import random

    script = [[tool_call("roll_dice", {"count": 2, "sides": 6})], [text("rolled")]]
    app, _, _ = extension_app(tmp_path, [EXAMPLES / "custom_tool_renderer.py"], script)
    random.seed(7)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        await pilot.press(*"roll", "enter")
        await wait_for(pilot, lambda: "rolled" in transcript_text(app).split() and not app.is_working)
        await pilot.pause(0.1)
        shown = transcript_text(app)
        assert "roll 2d6" in shown and "total" in shown
        assert "2 dice, 6 sides" not in shown
        run_action(app, "app.tools.expand")  # render_result sees options.expanded
        await pilot.pause(0.1)
        assert "2 dice, 6 sides" in transcript_text(app)
