"""Several surfaces open at once above the editor (spec 60 R-OVL-02/03, issue 9): the newest has the
keyboard, Escape closes only it, the focus goes back to the one below and finally to the editor,
and the agent keeps answering underneath."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pi_app.ai.testing import gate, text
from pi_app.tui.commands.actions import run_action
from pi_app.tui.extensions.surface import ExtensionOverlay
from pi_app.tui.input.focus import contains_focus
from tests.extensions.helpers import module_for
from tests.tui.helpers import wait_for
from tests.tui_ext.fakes import extension_app, transcript_text, write_extension

STACKER = """
import asyncio

STATE = {"answers": [], "handles": {}}


def panel(name, ctx, loop):
    def make(app, theme, keybindings, done):
        from textual.widgets import Static

        class Panel(Static):
            can_focus = True

            def on_key(self, event):
                if event.key == "escape":
                    event.stop()
                    done(f"{name} closed")
                elif event.key == "p":  # the overlay asks something through ctx.ui
                    event.stop()
                    loop.call_soon_threadsafe(lambda: asyncio.ensure_future(ask(ctx)))

        return Panel(f"panel {name}", id=f"panel-{name}")

    return make


async def ask(ctx):
    STATE["answers"].append(await ctx.ui.select("Pick a colour", ["red", "green"]))


def setup(pi):
    async def overlay(args, ctx):
        name = args or "a"
        loop = asyncio.get_running_loop()
        options = {"width": 30, "anchor": "top-left", "offset_y": 0 if name == "a" else 3}
        result = await ctx.ui.custom(
            panel(name, ctx, loop),
            overlay=True,
            overlay_options=options,
            on_handle=lambda handle: STATE["handles"].__setitem__(name, handle),
        )
        STATE["answers"].append(result)

    async def confirm(args, ctx):
        STATE["answers"].append(await ctx.ui.confirm("Deploy?", "Ship it?"))

    async def choose(args, ctx):
        await ask(ctx)

    async def wide_only(args, ctx):
        options = {"width": 30, "visible": lambda width, height: width >= 80}
        STATE["answers"].append(await ctx.ui.custom(panel("wide", ctx, None), overlay=True, overlay_options=options))

    pi.register_command("overlay", handler=overlay)
    pi.register_command("wide", handler=wide_only)
    pi.register_command("confirm", handler=confirm)
    pi.register_command("choose", handler=choose)
"""


def _start(tmp_path: Path, script: list[Any] | None = None):  # type: ignore[no-untyped-def]
    path = write_extension(tmp_path / "ext" / "stacker.py", STACKER)
    app, _, _ = extension_app(tmp_path, [path], script or [])
    return app, path


async def _ready(pilot, app, path: Path) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
    return module_for(path).STATE


def _panel(app, name: str):  # type: ignore[no-untyped-def]
    found = app.main_screen.query(f"#panel-{name}")
    return found.first() if found else None


async def _open_overlay(pilot, app, name: str):  # type: ignore[no-untyped-def]
    app.ext.run_command("/wide" if name == "wide" else f"/overlay {name}")
    await wait_for(pilot, lambda: _panel(app, name) is not None and app.focused is _panel(app, name))
    return _panel(app, name)


def _dialog(app):  # type: ignore[no-untyped-def]
    current = app.ext.dialogs.current
    return current.widget if current is not None else None


async def _dialog_focused(pilot, app):  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: _dialog(app) is not None and contains_focus(app, _dialog(app)))
    return _dialog(app)


async def test_an_overlay_asks_a_question_and_escape_unwinds_one_level_at_a_time(tmp_path: Path) -> None:
    dialog_open = threading.Event()  # the answer finishes only once the dialog is up
    app, path = _start(tmp_path, [[text("Working through it."), gate(dialog_open), text(" STREAMED-END.")]])
    async with app.run_test(size=(90, 30)) as pilot:
        state = await _ready(pilot, app, path)
        app.editor.set_text("hello")
        await pilot.press("enter")  # the agent starts answering ...
        app.editor.set_text("draft kept")
        panel = await _open_overlay(pilot, app, "a")  # ... while an overlay opens over it
        await pilot.press("p")  # the overlay asks a question: the dialog takes the keyboard
        dialog = await _dialog_focused(pilot, app)
        assert _panel(app, "a") is panel and panel.display  # the overlay stays on screen
        assert "STREAMED-END" not in transcript_text(app)
        dialog_open.set()
        await wait_for(pilot, lambda: "STREAMED-END" in transcript_text(app))  # the agent keeps going
        assert contains_focus(app, dialog) and app.focused is not app.editor

        await pilot.press("escape")  # closes the dialog only
        await wait_for(pilot, lambda: app.focused is panel and not dialog.is_attached)
        assert state["answers"] == [None]

        await pilot.press("escape")  # closes the overlay, the editor gets the keyboard back
        await wait_for(pilot, lambda: app.focused is app.editor and _panel(app, "a") is None)
        assert state["answers"] == [None, "a closed"]
        assert app.editor.display and app.editor.text == "draft kept"


async def test_a_question_over_an_overlay_over_a_question(tmp_path: Path) -> None:
    app, path = _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        state = await _ready(pilot, app, path)
        app.ext.run_command("/confirm")
        first = await _dialog_focused(pilot, app)
        panel = await _open_overlay(pilot, app, "a")  # an overlay over the confirm takes the keyboard
        assert first.is_mounted and first.display
        await pilot.press("p")  # its question waits behind the confirm (one extension dialog at a time)
        await pilot.pause(0.1)
        assert app.focused is panel

        await pilot.press("escape")  # the overlay goes: back to the confirm
        await wait_for(pilot, lambda: contains_focus(app, first))
        await pilot.press("enter")  # "Yes"; the queued question shows next and has the keyboard
        await wait_for(pilot, lambda: _dialog(app) is not None and _dialog(app) is not first)
        second = await _dialog_focused(pilot, app)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.focused is app.editor and not second.is_attached)
        assert state["answers"] == ["a closed", True, "green"]


async def test_model_selector_opened_over_an_extension_question(tmp_path: Path) -> None:
    app, path = _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        state = await _ready(pilot, app, path)
        app.editor.set_text("my draft")
        app.ext.run_command("/choose")
        question = await _dialog_focused(pilot, app)
        run_action(app, "app.model.select")  # e.g. a key the dialog passes on, or an extension call
        await wait_for(pilot, lambda: bool(app.main_screen.query("#model-selector")))
        selector = app.main_screen.query_one("#model-selector")
        await wait_for(pilot, lambda: contains_focus(app, selector))
        host = question.parent  # the dialog waits for its answer in the slot through its host
        assert question.is_mounted and not host.display  # kept, only hidden under the selector
        assert app.editor_slot.stacked[-2:] == [host, selector]

        await pilot.press("escape")  # the selector closes; the question comes back with the keyboard
        await wait_for(pilot, lambda: contains_focus(app, question) and host.display)
        await wait_for(pilot, lambda: not selector.is_attached)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: state["answers"] == ["green"])
        await wait_for(pilot, lambda: app.focused is app.editor)
        assert app.editor.display and app.editor.text == "my draft" and not app.editor_slot.is_replaced


async def test_an_extension_question_over_the_model_selector(tmp_path: Path) -> None:
    app, path = _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        state = await _ready(pilot, app, path)
        run_action(app, "app.model.select")
        await wait_for(pilot, lambda: bool(app.main_screen.query("#model-selector")))
        selector = app.main_screen.query_one("#model-selector")
        await wait_for(pilot, lambda: contains_focus(app, selector))
        app.ext.run_command("/confirm")  # arrives from the agent thread while the user browses models
        question = await _dialog_focused(pilot, app)
        assert selector.is_mounted and not selector.display
        run_action(app, "app.model.select")  # the app's own next step goes under the question
        old = selector
        await wait_for(pilot, lambda: app.editor_slot.stacked[0] is not old and not old.is_attached)
        selector = app.editor_slot.stacked[0]
        await pilot.pause(0.1)
        assert selector.id == "model-selector" and not selector.is_attached  # shown when uncovered
        assert contains_focus(app, question) and app.editor_slot.stacked == [selector, question.parent]
        await pilot.press("enter")
        await wait_for(pilot, lambda: state["answers"] == [True])
        await wait_for(pilot, lambda: contains_focus(app, selector) and selector.display)
        await wait_for(pilot, lambda: not question.is_attached)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is app.editor and not app.editor_slot.is_replaced)


async def test_two_overlays_focus_order_draw_order_and_handles(tmp_path: Path) -> None:
    app, path = _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        state = await _ready(pilot, app, path)
        a = await _open_overlay(pilot, app, "a")
        b = await _open_overlay(pilot, app, "b")
        overlays = list(app.main_screen.query(ExtensionOverlay))
        assert [o.content for o in overlays] == [a, b]  # the newer one draws on top

        state["handles"]["a"].focus()  # focus() raises and focuses (R-OVL-03)
        await wait_for(pilot, lambda: app.focused is a)
        assert [o.content for o in app.main_screen.query(ExtensionOverlay)] == [b, a]
        assert state["handles"]["a"].is_focused() and not state["handles"]["b"].is_focused()

        state["handles"]["a"].set_hidden(True)  # hiding the focused overlay: the focus goes to b
        await wait_for(pilot, lambda: app.focused is b)
        assert state["handles"]["a"].is_hidden() and not a.parent.display
        state["handles"]["a"].set_hidden(False)  # shown again: on top with the keyboard
        await wait_for(pilot, lambda: app.focused is a and a.parent.display)

        state["handles"]["a"].unfocus()  # gives the keyboard back to the layer below
        await wait_for(pilot, lambda: app.focused is b)

        await pilot.press("escape")  # b closes; a is the only one left
        await wait_for(pilot, lambda: app.focused is a and _panel(app, "b") is None)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: app.focused is app.editor and not app.main_screen.query(ExtensionOverlay)
        )
        assert sorted(state["answers"]) == ["a closed", "b closed"]


async def test_an_overlay_that_cannot_show_after_a_resize_gives_the_focus_back(tmp_path: Path) -> None:
    app, path = _start(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        state = await _ready(pilot, app, path)
        panel = await _open_overlay(pilot, app, "wide")
        await pilot.resize_terminal(50, 30)  # visible(w, h) is asked again: w < 80 hides it
        await wait_for(pilot, lambda: not panel.parent.display and app.focused is app.editor)
        await pilot.resize_terminal(120, 30)
        await wait_for(pilot, lambda: panel.parent.display)
        assert app.focused is app.editor and state["answers"] == []  # shown again, still open
