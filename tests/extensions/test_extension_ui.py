"""The UI context in print mode and the dialog settling rules (spec 40 §2.6, R-UI-01, scenarios 35, 36)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pi_app.ai.event_stream import AbortController
from pi_app.coding.extensions.types import SessionStartEvent
from pi_app.coding.extensions.ui import ExtensionUIContext, NoOpUIContext, countdown_title, settle_dialog

from .helpers import FakeHost, load


async def test_print_mode_dialogs_return_cancel_values_at_once(tmp_path: Path) -> None:
    """Scenario 35 at the runner level."""
    seen: dict[str, object] = {}

    def ext(pi):
        @pi.on("session_start")
        async def started(event, ctx):
            seen["confirm"] = await ctx.ui.confirm("Sure?", "Really?")
            seen["select"] = await ctx.ui.select("Pick", ["a", "b"])
            seen["input"] = await ctx.ui.input("Name")
            seen["editor"] = await ctx.ui.editor("Text", "prefill")
            seen["custom"] = await ctx.ui.custom(lambda *a: None)
            seen["has_ui"] = ctx.has_ui
            seen["mode"] = ctx.mode
            seen["editor_text"] = ctx.ui.get_editor_text()
            seen["set_theme"] = ctx.ui.set_theme("dark")
            ctx.ui.notify("hello")
            ctx.ui.set_status("k", "v")

    runner, errors = await load([], tmp_path, factories=[ext])
    runner.bind_core(FakeHost())
    runner.set_ui_context(None, "print")
    started = time.monotonic()
    await runner.emit(SessionStartEvent("startup"))
    assert time.monotonic() - started < 2
    assert errors == []
    assert seen == {
        "confirm": False,
        "select": None,
        "input": None,
        "editor": None,
        "custom": None,
        "has_ui": False,
        "mode": "print",
        "editor_text": "",
        "set_theme": {"success": False, "error": "UI not available"},
    }
    assert isinstance(NoOpUIContext(), ExtensionUIContext)


async def test_dialog_timeout_counts_down_and_cancels() -> None:
    """Scenario 36 (the coding half; the TUI shows ``countdown_title`` and removes the dialog)."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bool] = loop.create_future()
    titles: list[str] = []
    started = time.monotonic()
    result = await settle_dialog(
        answer,
        cancel_value=False,
        timeout=1.2,
        on_tick=lambda left: titles.append(countdown_title("Sure?", left)),
    )
    elapsed = time.monotonic() - started
    assert result is False and answer.cancelled()
    assert 1.0 < elapsed < 5
    assert titles[0] == "Sure? (2s)" and titles[-1] == "Sure? (1s)"


async def test_dialog_abort_and_answer() -> None:
    loop = asyncio.get_running_loop()
    controller = AbortController()
    answer: asyncio.Future[str | None] = loop.create_future()
    loop.call_later(0.1, controller.abort)
    started = time.monotonic()
    assert await settle_dialog(answer, cancel_value=None, timeout=10, signal=controller.signal) is None
    assert time.monotonic() - started < 5 and answer.cancelled()

    answered: asyncio.Future[str] = loop.create_future()
    loop.call_later(0.05, answered.set_result, "b")
    assert await settle_dialog(answered, cancel_value=None, timeout=10) == "b"

    done = AbortController()
    done.abort()
    pending: asyncio.Future[bool] = loop.create_future()
    assert await settle_dialog(pending, cancel_value=False, signal=done.signal) is False


def test_countdown_title_rounds_up() -> None:
    assert countdown_title("T", 4.2) == "T (5s)"
    assert countdown_title("T", 0) == "T (0s)"
