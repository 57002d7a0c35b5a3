"""Extension commands, shortcuts, message renderers, the header's extension list, /reload and
failing extensions in the full-screen app (spec 40 scenarios 2, 19, 21, 22; R-EXT-48; spec 60
R-KEY-05, R-CMD-17, R-TUI-14)."""

from __future__ import annotations

import threading
from pathlib import Path

from pi_app.ai.testing import gate, text, tool_call
from pi_app.tui.commands.actions import run_action
from pi_app.tui.transcript.blocks.custom import CustomMessageBlock
from tests.tui.helpers import wait_for
from tests.tui_ext.fakes import extension_app, transcript_text, write_extension

COMMANDS = """
from pi_app.ext import AutocompleteItem

def setup(pi):
    def complete(prefix):
        return [AutocompleteItem("staging", "staging", "the test stage"),
                {"value": "production", "description": "careful"}]

    async def deploy(args, ctx):
        ctx.ui.notify(f"deploying to {args or 'nowhere'} idle={ctx.is_idle()}", "info")

    pi.register_command("deploy", description="Deploy the app", handler=deploy,
                        get_argument_completions=complete)
    pi.register_command("model", description="Shadowed by the built-in", handler=deploy)

    def shout(ctx):
        ctx.ui.notify("shortcut pressed", "info")

    pi.register_shortcut("ctrl+shift+y", handler=shout, description="Shout")
    pi.register_shortcut("escape", handler=shout, description="Steal escape")

    def render(message, options, theme):
        from rich.text import Text
        return Text(f"NOTE>> {message.content} (expanded={options.expanded})")

    pi.register_message_renderer("note", render)

    async def note(args, ctx):
        pi.send_message({"custom_type": "note", "content": args, "display": True})

    pi.register_command("note", description="Add a note", handler=note)
"""


async def _ready(pilot, app) -> None:
    await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
    await pilot.pause(0.05)


async def test_commands_autocomplete_and_run_even_while_streaming(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "commands.py", COMMANDS)
    command_ran = threading.Event()  # the agent stays busy until the command has run
    app, _, _ = extension_app(tmp_path, [path], [[gate(command_ran), text("slow answer")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot, app)
        infos = {info.name: info for info in app.router.command_infos()}
        assert infos["deploy"].description == "Deploy the app"
        assert infos["model"].description != "Shadowed by the built-in"  # built-ins win (R-CMD-19)
        await pilot.press(*"/dep")
        await wait_for(pilot, lambda: app.editor._list is not None)
        assert "deploy" in [item.value.strip("/") for item in app.editor._list.suggestions.items]
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.editor.text.startswith("/deploy "))
        await wait_for(pilot, lambda: app.editor._list is not None)
        assert [item.value for item in app.editor._list.suggestions.items] == ["staging", "production"]
        app.editor.set_text("")

        await pilot.press(*"hello", "enter")  # the agent is now busy
        await wait_for(pilot, lambda: app.is_working)
        app.editor.set_text("/deploy staging")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "deploying to staging idle=False" in transcript_text(app))
        assert app.is_working  # it ran at once instead of being queued as steering
        command_ran.set()
        assert app.pending.steering == []
        await wait_for(pilot, lambda: not app.is_working)


async def test_shortcuts_and_message_renderers(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "commands.py", COMMANDS)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot, app)
        await pilot.press("ctrl+shift+y")
        await wait_for(pilot, lambda: "shortcut pressed" in transcript_text(app))
        assert "Shout" in [d for d, _ in app.ext.shortcuts_table()]
        # escape is the interrupt key: the extension may not take it (R-EXT-21)
        assert "escape" not in app.ext.shortcuts
        assert "Shortcut 'escape'" in transcript_text(app) and "cannot be taken over" in transcript_text(app)

        app.editor.set_text("/note remember the milk")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.transcript.blocks_of(CustomMessageBlock))
        await pilot.pause(0.05)
        assert "NOTE>> remember the milk (expanded=False)" in transcript_text(app)


async def test_header_lists_loaded_extensions(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "commands.py", COMMANDS)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot, app)
        sections = dict(app.header.content().resources)
        assert any(item.endswith("commands.py") for item in sections["Extensions"])
        run_action(app, "app.tools.expand")  # the expanded header lists the resources
        await pilot.pause(0.1)
        assert "commands.py" in transcript_text(app)


VERSIONED = """
from pi_app.ext import ToolDefinition, text_result

def setup(pi):
    async def which(tool_call_id, params, signal, on_update, ctx):
        return text_result("VERSION")

    pi.register_tool(ToolDefinition(name="which", label="Which", description="Which version",
        parameters={"type": "object", "properties": {}}, execute=which))

    async def version(args, ctx):
        ctx.ui.notify("running VERSION", "info")

    pi.register_command("version", description="Show the version", handler=version)

    @pi.on("session_start")
    def show(event, ctx):
        ctx.ui.set_widget("version", ["widget VERSION"])
        ctx.ui.set_status("version", "status VERSION")
"""


async def test_reload_reimports_edited_extension_code(tmp_path: Path) -> None:
    """Scenario 19 in the app: edit the file, /reload, the new code runs; old widgets are gone."""
    path = write_extension(tmp_path / "ext" / "versioned.py", VERSIONED.replace("VERSION", "v1"))
    script = [[tool_call("which", {})], [text("first")], [tool_call("which", {})], [text("second")]]
    app, provider, _ = extension_app(tmp_path, [path], script)
    async with app.run_test(size=(230, 30)) as pilot:
        await _ready(pilot, app)
        await wait_for(pilot, lambda: "version" in app.ext.surface.widgets)
        assert app.footer.state.statuses == {"version": "status v1"}
        app.editor.set_text("/version")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "running v1" in transcript_text(app))
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "first" in transcript_text(app) and not app.is_working)

        path.write_text(path.read_text().replace("v1", "v2").replace('"version", ["widget', '"v2", ["widget'))
        app.editor.set_text("/reload")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Reloaded" in transcript_text(app))
        await wait_for(pilot, lambda: "v2" in app.ext.surface.widgets)
        assert "version" not in app.ext.surface.widgets  # the old generation's widget was removed
        assert app.footer.state.statuses == {"version": "status v2"}
        app.editor.set_text("/version")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "running v2" in transcript_text(app))
        await pilot.press(*"again", "enter")
        await wait_for(pilot, lambda: "second" in transcript_text(app) and not app.is_working)
        results = [m for m in app.session.messages if getattr(m, "role", "") == "toolResult"]
        assert [r.content[0].text for r in results] == ["v1", "v2"]

        path.write_text(path.read_text() + "\ndef broken(:\n")  # a syntax error, then /reload
        app.editor.set_text("/reload")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Reloaded" in transcript_text(app))
        assert f"Extension error ({path}): Failed to load extension: SyntaxError" in transcript_text(app)
        assert "v2" not in app.ext.surface.widgets and app.is_running


def _failing(tmp_path: Path) -> list[Path]:
    ext = tmp_path / "ext"
    return [
        write_extension(ext / "raises.py", "def setup(pi):\n    raise RuntimeError('setup exploded')\n"),
        write_extension(ext / "syntax.py", "def setup(pi):\n    return (\n"),
        write_extension(
            ext / "handler.py",
            """
            def setup(pi):
                @pi.on("agent_start")
                def boom(event, ctx):
                    raise ValueError("handler exploded")

                async def bad(args, ctx):
                    raise KeyError("command exploded")

                pi.register_command("bad", handler=bad)

                def widget(app, theme):
                    raise RuntimeError("widget exploded")

                def render(message, options, theme):
                    raise RuntimeError("renderer exploded")

                pi.register_message_renderer("boom", render)

                async def note(args, ctx):
                    pi.send_message({"custom_type": "boom", "content": "still shown", "display": True})

                pi.register_command("note", handler=note)

                @pi.on("session_start")
                def start(event, ctx):
                    ctx.ui.set_widget("w", widget)
            """,
        ),
        write_extension(
            ext / "good.py",
            "def setup(pi):\n    pi.register_command('good', handler=lambda a, c: c.ui.notify('good ran'))\n",
        ),
    ]


async def test_failing_extensions_leave_the_app_running_with_one_line_each(tmp_path: Path) -> None:
    """Scenario 2 / issue acceptance: each failure is one line naming the file; the rest works."""
    paths = _failing(tmp_path)
    raises, syntax, handler, _good = paths
    app, _, _ = extension_app(tmp_path, paths, [[text("still fine")]])
    async with app.run_test(size=(230, 40)) as pilot:
        await _ready(pilot, app)
        await wait_for(pilot, lambda: "widget exploded" in transcript_text(app))
        lines = app.transcript.plain_lines()
        joined = "\n".join(lines)
        assert f"Extension error ({raises}): Failed to load extension: RuntimeError: setup exploded" in joined
        assert f"Extension error ({syntax}): Failed to load extension: SyntaxError" in joined
        assert f"Extension error ({handler}): widget exploded" in joined
        assert "Traceback" not in joined
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: "still fine" in transcript_text(app) and not app.is_working)
        assert f"Extension error ({handler}): handler exploded" in transcript_text(app)
        app.editor.set_text("/bad")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "command exploded" in transcript_text(app))
        assert f"Extension error ({handler}): 'command exploded'" in transcript_text(app)
        app.editor.set_text("/note")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "renderer exploded" in transcript_text(app))
        assert f"Extension error ({handler}): renderer exploded" in transcript_text(app)
        assert "[boom]" in transcript_text(app) and "still shown" in transcript_text(app)
        app.editor.set_text("/good")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "good ran" in transcript_text(app))
        assert app.is_running


OVERRIDE = """
from pi_app.ext import ToolDefinition, text_result

def setup(pi):
    async def read(tool_call_id, params, signal, on_update, ctx):
        return text_result("read by the extension")

    pi.register_tool(ToolDefinition(name="read", label="Read", description="Read a file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}}, execute=read))
"""


async def test_builtin_tool_override_warns_once_and_runs_the_extension(tmp_path: Path) -> None:
    """Scenario 22 in the app: one override warning; the model gets the extension's result; the
    transcript draws the call with the built-in read renderers (the override brings none)."""
    path = write_extension(tmp_path / "ext" / "override.py", OVERRIDE)
    script = [[tool_call("read", {"path": "notes.txt"})], [text("ok")]]
    app, _, _ = extension_app(tmp_path, [path], script)
    async with app.run_test(size=(160, 30)) as pilot:
        await _ready(pilot, app)
        await pilot.press(*"read it", "enter")
        await wait_for(pilot, lambda: "ok" in transcript_text(app).split() and not app.is_working)
        text_now = transcript_text(app)
        assert text_now.count('Extension tool "read" from') == 1 and "replaces the built-in tool" in text_now
        results = [m for m in app.session.messages if getattr(m, "role", "") == "toolResult"]
        assert results[0].content[0].text == "read by the extension"
        tool = next(iter(app.transcript.tools.values()))
        assert tool.definition is app.session.extension_runner.tools.builtins["read"]  # its renderers
        assert "read notes.txt" in text_now and "read by the extension" in text_now


async def test_builtin_model_command_wins_over_an_extension_model_command(tmp_path: Path) -> None:
    """Scenario 21 in the app: ``/model`` opens the built-in selector; the extension's handler
    (which would notify) never runs, and the conflict is reported once."""
    path = write_extension(tmp_path / "ext" / "commands.py", COMMANDS)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(160, 30)) as pilot:
        await _ready(pilot, app)
        assert "conflicts with built-in commands" in transcript_text(app)
        app.editor.set_text("/model")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.editor_slot.is_replaced)
        await pilot.pause(0.2)
        assert type(app.editor_slot.replacement).__module__.startswith("pi_app.tui.selectors")
        assert "deploying to" not in transcript_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.editor_slot.is_replaced)
