"""What extensions put on the screen: statuses, widgets, footer, header, notifications, editor
text, title, theme and tool expansion (spec 40 §2.6, R-UI-03/04/05; spec 60 R-XUI-01..03)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_app.tui.extensions.surface import ExtensionOverlay, LinesWidget
from tests.extensions.helpers import module_for
from tests.tui.helpers import wait_for
from tests.tui_ext.fakes import extension_app, transcript_text, write_extension

DECORATOR = """
STATE = {}


def setup(pi):
    state = STATE

    @pi.on("session_start")
    def decorate(event, ctx):
        ctx.ui.set_status("b-mode", "mode: plan")
        ctx.ui.set_status("a-count", "turns:\\n0")
        ctx.ui.set_widget("todo", ["TODO list", "\\x1b[32m- done\\x1b[0m"])

        def below(app, theme):
            from textual.widgets import Static

            class Below(Static):
                def dispose(self):
                    state["disposed"] = True

            return Below("below the editor", id="below-widget")

        ctx.ui.set_widget("hint", below, placement="belowEditor")

        def footer(app, theme, data):
            from textual.widgets import Static
            return Static(f"CUSTOM FOOTER branch={data.git_branch} statuses={sorted(data.statuses)}",
                          id="custom-footer")

        ctx.ui.set_footer(footer)
        ctx.ui.set_header(lambda app, theme: "MY HEADER")
        ctx.ui.set_title("pi with extensions")
        ctx.ui.notify("hello from the extension", "info")
        ctx.ui.notify("careful", "warning")
        ctx.ui.notify("broken", "error")
        state["theme"] = ctx.ui.theme.name
        state["themes"] = ctx.ui.get_all_themes()

    async def edit(args, ctx):
        if args == "replace":
            ctx.ui.set_widget("todo", ["replaced"])
        elif args == "clear":
            ctx.ui.set_widget("todo", None)
            ctx.ui.set_widget("hint", None, placement="belowEditor")
            ctx.ui.set_status("a-count", None)
            ctx.ui.set_footer(None)
            ctx.ui.set_header(None)
        elif args == "text":
            state["editor"] = ctx.ui.get_editor_text()
            ctx.ui.set_editor_text("from the extension")
        elif args == "expand":
            ctx.ui.set_tools_expanded(True)
        elif args == "theme":
            state["set_theme"] = ctx.ui.set_theme("light")
            state["bad_theme"] = ctx.ui.set_theme("nope")
        elif args == "theme-object":
            state["object_theme"] = ctx.ui.set_theme(ctx.ui.get_theme("light"))
            state["not_a_theme"] = ctx.ui.set_theme(42)
        elif args == "overlay":
            def make(app, theme, keybindings, done):
                from textual.widgets import Button
                class Box(Button):
                    def on_button_pressed(self):
                        done("clicked")
                return Box("press me", id="overlay-box")
            state["overlay"] = await ctx.ui.custom(make, overlay=True, overlay_options={"width": 20, "anchor": "top-left"})
        elif args == "broken-handle":
            def make(app, theme, keybindings, done):
                from textual.widgets import Static
                return Static("overlay", id="broken-overlay")
            def on_handle(handle):
                raise RuntimeError("the handle callback broke")
            state["broken"] = await ctx.ui.custom(make, overlay=True, on_handle=on_handle)
        elif args == "custom":
            def make(app, theme, keybindings, done):
                from textual.widgets import Input
                class Ask(Input):
                    def on_input_submitted(self, event):
                        done(event.value.upper())
                return Ask(id="custom-input")
            state["custom"] = await ctx.ui.custom(make)
        ctx.ui.notify(f"edit {args} done", "info")

    pi.register_command("edit", description="Change the decorations", handler=edit)
"""


async def _ready(pilot, app) -> None:
    await wait_for(pilot, lambda: app.session is not None)
    await wait_for(pilot, lambda: "todo" in app.ext.surface.widgets and app.ext.surface.footer_widget)


async def _run(pilot, app, line: str) -> None:
    app.editor.set_text(line)
    await pilot.press("enter")
    await wait_for(pilot, lambda: f"{line.removeprefix('/edit ')} done" in transcript_text(app))


async def test_statuses_widgets_footer_header_and_notifications(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "decorator.py", DECORATOR)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await _ready(pilot, app)
        await pilot.pause(0.1)
        screen = app.main_screen
        above = screen.query_one("#widgets-above")
        lines = list(above.query(LinesWidget))
        assert [w.lines for w in lines] == [["TODO list", "\x1b[32m- done\x1b[0m"]]
        rendered = lines[0].render()
        assert rendered.plain == "TODO list\n- done"  # ANSI colours become styles, not text
        assert screen.query_one("#widgets-below").query_one("#below-widget", Static)
        # statuses: kept sorted by key and flattened in the footer's data
        assert app.footer.state.statuses == {"a-count": "turns:\n0", "b-mode": "mode: plan"}
        custom = screen.query_one("#custom-footer", Static)
        assert "CUSTOM FOOTER" in str(custom.render()) and "a-count" in str(custom.render())
        assert not app.footer.display
        text = transcript_text(app)
        assert "MY HEADER" in text and "pi v" not in text
        assert "hello from the extension" in text
        assert "Warning: careful" in text and "Error: broken" in text
        assert app.title == "pi with extensions"
        state = module_for(path).STATE
        assert state["theme"] == app.themes.current.name
        assert {"name": "light", "path": None} in state["themes"]

        await _run(pilot, app, "/edit replace")
        await pilot.pause(0.05)
        assert [w.lines for w in above.query(LinesWidget)] == [["replaced"]]

        await _run(pilot, app, "/edit clear")
        await pilot.pause(0.05)
        assert list(above.query(LinesWidget)) == []
        assert app.footer.state.statuses == {"b-mode": "mode: plan"}
        assert app.footer.display and not screen.query("#custom-footer")
        assert "pi v" in transcript_text(app) and "MY HEADER" not in transcript_text(app)
        assert "mode: plan" in str(app.footer.render())
        assert not screen.query("#below-widget") and module_for(path).STATE["disposed"]  # R-UI-04


async def test_editor_text_tools_expansion_and_theme(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "decorator.py", DECORATOR)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await _ready(pilot, app)
        app.editor.set_text("draft")
        app.ext.run_command("/edit text")
        await wait_for(pilot, lambda: app.editor.text == "from the extension")
        await _run(pilot, app, "/edit expand")
        assert app.tools_expanded and app.transcript.expand_all
        await _run(pilot, app, "/edit theme")
        await wait_for(pilot, lambda: app.themes.current.name == "light")
        state = module_for(path).STATE
        assert state["editor"] == "draft"
        assert state["set_theme"] == {"success": True}
        assert state["bad_theme"]["success"] is False


async def test_a_theme_object_is_drawn_for_this_run_and_not_saved(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "decorator.py", DECORATOR)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await _ready(pilot, app)
        assert app.themes.current.name == "dark"
        await _run(pilot, app, "/edit theme-object")
        await wait_for(pilot, lambda: app.themes.current.name == "light")
        assert app.transcript.render_theme.name == "light"
        state = module_for(path).STATE
        assert state["object_theme"] == {"success": True}
        assert state["not_a_theme"]["success"] is False
        assert app.settings is not None and app.settings.get_theme() is None  # this run only


async def test_custom_component_in_the_editor_slot_and_as_overlay(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "decorator.py", DECORATOR)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await _ready(pilot, app)
        app.editor.set_text("keep me")
        app.ext.run_command("/edit custom")
        await wait_for(pilot, lambda: bool(app.main_screen.query("#custom-input")))
        assert not app.editor.display
        # typed once it has the keys (a key pressed before its focus landed went elsewhere under load)
        await wait_for(pilot, lambda: app.focused is app.main_screen.query_one("#custom-input"))
        await pilot.press(*"yes", "enter")
        await wait_for(pilot, lambda: "edit custom done" in transcript_text(app))
        assert app.editor.display and app.editor.text == "keep me"
        assert module_for(path).STATE["custom"] == "YES"

        app.ext.run_command("/edit overlay")
        await wait_for(pilot, lambda: bool(app.main_screen.query(ExtensionOverlay)))
        overlay = app.main_screen.query_one(ExtensionOverlay)
        await pilot.pause(0.05)
        assert overlay.region.x == 0 and overlay.region.y == 0 and overlay.region.width == 20
        assert app.editor.display  # an overlay floats; the editor stays
        await pilot.click("#overlay-box")
        await wait_for(pilot, lambda: "edit overlay done" in transcript_text(app))
        await pilot.pause(0.05)
        assert not app.main_screen.query(ExtensionOverlay)
        assert module_for(path).STATE["overlay"] == "clicked"


GENERATIONS = """
def setup(pi):
    @pi.on("session_start")
    def show(event, ctx):
        if event.reason == "startup":
            ctx.ui.set_widget("startup-only", ["from the first runtime"])
            ctx.ui.set_status("old", "old status")
        ctx.ui.set_widget("reason", [f"started: {event.reason}"])

    async def bye(args, ctx):
        ctx.shutdown()

    pi.register_command("bye", handler=bye)
"""


async def test_new_session_clears_the_old_runtime_elements(tmp_path: Path) -> None:
    """R-XUI-02: after /new only what the new runtime's session_start sets is on screen."""
    path = write_extension(tmp_path / "ext" / "generations.py", GENERATIONS)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: "reason" in app.ext.surface.widgets)
        assert app.ext.surface.widgets["reason"].lines == ["started: startup"]
        assert "startup-only" in app.ext.surface.widgets and app.footer.state.statuses
        app.editor.set_text("/new")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "New session started" in transcript_text(app))
        await wait_for(pilot, lambda: app.ext.surface.widgets["reason"].lines == ["started: new"])
        assert "startup-only" not in app.ext.surface.widgets
        assert app.footer.state.statuses == {}
        above = app.main_screen.query_one("#widgets-above")
        assert [w.lines for w in above.query(LinesWidget)] == [["started: new"]]


async def test_shutdown_request_quits_the_app(tmp_path: Path) -> None:
    """R-EXT-46 / R-TUI-11: ctx.shutdown() from a command ends the app when idle."""
    path = write_extension(tmp_path / "ext" / "generations.py", GENERATIONS)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: "reason" in app.ext.surface.widgets)
        app.editor.set_text("/bye")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0


async def test_a_failing_overlay_handle_callback_is_one_error_line_and_the_extension_goes_on(
    tmp_path: Path,
) -> None:
    path = write_extension(tmp_path / "ext" / "decorator.py", DECORATOR)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await _ready(pilot, app)
        await _run(pilot, app, "/edit broken-handle")
        text = " ".join(transcript_text(app).split())  # the line wraps at the transcript's width
        assert "Extension error (" in text and "decorator.py): the handle callback broke" in text
        await wait_for(pilot, lambda: not app.screen.query("#broken-overlay"))
