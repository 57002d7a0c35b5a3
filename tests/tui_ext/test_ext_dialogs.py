"""Extension dialogs in the app: answered from the keyboard while the agent thread awaits them
(spec 40 §2.6, R-UI-01/02, scenario 36; spec 60 R-XUI-01)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widget import Widget

from pi_app.tui.extensions.dialogs import EditorDialog, InputDialog, SelectDialog
from pi_app.tui.input.focus import contains_focus
from tests.tui.helpers import wait_for
from tests.tui_ext.fakes import extension_app, transcript_text, write_extension

ASKER = """
from pi_app.ext import AbortController

def setup(pi):
    answers = []
    pi.answers = answers

    async def ask(args, ctx):
        kind = args.split()[0] if args else "confirm"
        if kind == "confirm":
            answers.append(await ctx.ui.confirm("Deploy?", "Ship it to production?"))
        elif kind == "select":
            answers.append(await ctx.ui.select("Pick a colour", ["red", "green", "blue"]))
        elif kind == "input":
            answers.append(await ctx.ui.input("Your name", "type here"))
        elif kind == "editor":
            answers.append(await ctx.ui.editor("Notes", "line one"))
        elif kind == "timed":
            answers.append(await ctx.ui.confirm("Hurry", "Two seconds", timeout=2))
        elif kind == "aborted":
            controller = AbortController()
            import asyncio
            asyncio.get_running_loop().call_later(0.5, controller.abort)
            answers.append(await ctx.ui.confirm("Abort me", "soon", signal=controller.signal))
        ctx.ui.notify(f"answer: {answers[-1]!r}", "info")

    pi.register_command("ask", description="Ask something", handler=ask)
"""


async def _start(tmp_path: Path, code: str = ASKER):
    path = write_extension(tmp_path / "ext" / "asker.py", code)
    app, provider, _ = extension_app(tmp_path, [path])
    return app


async def _ask(pilot, app, kind: str) -> None:
    await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
    app.editor.set_text(f"/ask {kind}")
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.ext.dialogs.current is not None and app.ext.dialogs.current.widget)


async def test_confirm_select_input_editor_answers_reach_the_extension(tmp_path: Path) -> None:
    app = await _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await _ask(pilot, app, "confirm")
        await pilot.press("enter")  # "Yes" is preselected
        await wait_for(pilot, lambda: "answer: True" in transcript_text(app))
        assert app.editor.display and app.ext.dialogs.current is None

        await _ask(pilot, app, "select")
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: "answer: 'blue'" in transcript_text(app))

        await _ask(pilot, app, "input")
        await pilot.press(*"Ada", "enter")
        await wait_for(pilot, lambda: "answer: 'Ada'" in transcript_text(app))

        await _ask(pilot, app, "editor")
        await pilot.press("shift+enter", *"two", "enter")
        await wait_for(pilot, lambda: "answer: 'line one\\ntwo'" in transcript_text(app))

        await _ask(pilot, app, "select")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "answer: None" in transcript_text(app))
        assert app.is_running


def _record_mounts(monkeypatch: pytest.MonkeyPatch, seen: Callable[[SelectDialog], object]) -> None:
    """Calls ``seen(dialog)`` as each select/confirm dialog is mounted."""
    monkeypatch.setattr(SelectDialog, "on_mount", seen, raising=False)


async def test_timed_confirm_counts_down_and_resolves_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scenario 36: the title shows the seconds left; no answer after ~2 s means False."""
    app = await _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        dialogs = app.ext.dialogs
        titles: list[str] = []
        _record_mounts(monkeypatch, lambda dialog: titles.append(dialog.title))
        retitle = dialogs.retitle
        dialogs.retitle = lambda request, text: (titles.append(text), retitle(request, text))
        app.editor.set_text("/ask timed")
        started = time.monotonic()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "answer: False" in transcript_text(app), 30)
        assert time.monotonic() - started > 1.5  # not before its two seconds ran out
        assert titles[0] == "Hurry (2s)" and "Hurry (1s)" in titles
        assert dialogs.current is None and app.editor.display


async def test_aborted_confirm_resolves_false_at_abort_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await _start(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        dialogs = app.ext.dialogs
        shown: list[str] = []
        _record_mounts(monkeypatch, lambda dialog: shown.append(dialog.request.kind))
        app.editor.set_text("/ask aborted")
        started = time.monotonic()
        await pilot.press("enter")
        # the confirm has no timeout: only the abort (after 0.5 s) can answer it
        await wait_for(pilot, lambda: "answer: False" in transcript_text(app), 30)
        assert time.monotonic() - started > 0.4
        assert shown == ["confirm"] and dialogs.current is None and app.editor.display


GIVE_UP = """
import asyncio
from pi_app.ext import AbortController

def setup(pi):
    async def give_up(args, ctx):
        if args == "timeout":
            answer = await ctx.ui.input("Slow", "type here", timeout=0.5)
        else:
            controller = AbortController()
            asyncio.get_running_loop().call_later(0.5, controller.abort)
            answer = await ctx.ui.editor("Abort me", "draft", signal=controller.signal)
        ctx.ui.notify(f"gave up: {answer!r}", "info")

    pi.register_command("giveup", handler=give_up)

    async def queued(args, ctx):
        first, second = await asyncio.gather(
            ctx.ui.input("Slow", "type here", timeout=0.5), ctx.ui.confirm("Next?", "after it"))
        ctx.ui.notify(f"queued: {first!r} {second!r}", "info")

    pi.register_command("queued", handler=queued)
"""


@pytest.mark.parametrize(("how", "kind"), [("timeout", InputDialog), ("abort", EditorDialog)])
async def test_a_dialog_the_extension_stops_waiting_for_leaves_the_slot(
    tmp_path: Path, how: str, kind: type[Widget]
) -> None:
    """A timeout or an abort on the extension's side cancels the dialog's flow on the UI thread:
    the dialog leaves the editor slot, the editor comes back with its draft and the keyboard, the
    flow ends, and the extension gets the cancel value."""
    app = await _start(tmp_path, GIVE_UP)
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        app.editor.set_text("my draft")
        app.ext.run_command(f"/giveup {how}")
        await wait_for(pilot, lambda: bool(app.main_screen.query(kind)))
        dialog = app.main_screen.query_one(kind)
        assert app.editor_slot.is_replaced and not app.editor.display
        await wait_for(pilot, lambda: "gave up: None" in transcript_text(app))
        await wait_for(pilot, lambda: not dialog.is_attached)
        assert not app.editor_slot.is_replaced and app.ext.dialogs.current is None
        await wait_for(pilot, lambda: app.focused is app.editor)
        assert app.editor.display and app.editor.text == "my draft"
        await wait_for(pilot, lambda: not [w for w in app.workers if w.group == "ask-user"])


async def test_the_question_queued_behind_a_timed_out_dialog_shows_next(tmp_path: Path) -> None:
    app = await _start(tmp_path, GIVE_UP)
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        app.ext.run_command("/queued")
        await wait_for(pilot, lambda: bool(app.main_screen.query(InputDialog)))
        assert len(app.ext.dialogs.waiting) == 1  # the confirm waits its turn
        await wait_for(pilot, lambda: bool(app.main_screen.query(SelectDialog)))
        assert not app.ext.dialogs.waiting
        await wait_for(pilot, lambda: not app.main_screen.query(InputDialog))
        await wait_for(pilot, lambda: contains_focus(app, app.main_screen.query_one(SelectDialog)))
        await pilot.press("enter")  # "Yes"
        await wait_for(pilot, lambda: "queued: None True" in transcript_text(app))


TWO_AT_ONCE = """
import asyncio

def setup(pi):
    async def both(args, ctx):
        first, second = await asyncio.gather(
            ctx.ui.confirm("First?", "one"), ctx.ui.input("Second", "two"))
        ctx.ui.notify(f"answers: {first!r} {second!r}", "info")

    pi.register_command("both", handler=both)

    async def working(args, ctx):
        ctx.ui.set_working_message(args or None)

    pi.register_command("working", handler=working)
"""


async def test_concurrent_dialogs_are_shown_one_after_the_other(tmp_path: Path) -> None:
    path = write_extension(tmp_path / "ext" / "two.py", TWO_AT_ONCE)
    app, _, _ = extension_app(tmp_path, [path])
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        app.editor.set_text("/both")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.ext.dialogs.current is not None and app.ext.dialogs.current.widget)
        assert app.ext.dialogs.current.kind == "confirm" and len(app.ext.dialogs.waiting) == 1
        await pilot.press("down", "enter")  # No
        await wait_for(
            pilot, lambda: app.ext.dialogs.current is not None and app.ext.dialogs.current.kind == "input"
        )
        await pilot.pause(0.1)
        await pilot.press(*"ok", "enter")
        await wait_for(pilot, lambda: "answers: False 'ok'" in transcript_text(app))


async def test_working_message_replaces_the_spinner_text(tmp_path: Path) -> None:
    from pi_app.ai.testing import gate, text

    spinner_seen = threading.Event()
    path = write_extension(tmp_path / "ext" / "two.py", TWO_AT_ONCE)
    app, _, _ = extension_app(tmp_path, [path], [[gate(spinner_seen), text("done")]])
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and app.ext.binding is not None)
        app.ext.run_command("/working Thinking hard")
        await wait_for(pilot, lambda: app.run_status.working_message == "Thinking hard")
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: app.is_working)
        assert "Thinking hard" in str(app.status_line.render())
        spinner_seen.set()
        await wait_for(pilot, lambda: not app.is_working)
        app.ext.run_command("/working")
        await wait_for(pilot, lambda: app.run_status.working_message is None)
