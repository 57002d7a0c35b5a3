"""Provider faults as the full-screen app shows them (issue 12 item 2; 60 §2.9 event table, R-RETRY,
R-CMP-33).

The app runs the real ``AgentSession`` over the scripted provider. A failing request leaves a
readable one-line reason in the transcript; auto-retry shows its progress as one status line in the
warning colour (``Retrying (a/m) in Ns... (escape to cancel)``) and, when it gives up or is cancelled,
one ``Retry failed after N attempts: <reason>`` line; an overflow shows ``Context overflow detected,
Auto-compacting...`` while it compacts and then the answer. The app keeps running, the editor stays
usable, and no traceback is shown.
"""

from __future__ import annotations

import threading
from typing import Any

from pi_app.ai.testing import gate, http_error, stall, text
from pi_app.tui.app import PiApp
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for

OVERFLOW = {
    "error": {"type": "invalid_request_error", "message": "prompt is too long: 300000 tokens > 200000"}
}
OVERLOADED = {"error": {"type": "overloaded_error", "message": "Overloaded"}}
OVERLOADED_LINE = "529 overloaded_error: Overloaded"


def _screen(app: PiApp) -> list[str]:
    return [line.strip() for line in app.transcript.plain_lines() if line.strip()]


def _status(app: PiApp) -> str:
    return app.status_line.message or ""


async def _settle(pilot: Any, app: PiApp) -> None:
    await wait_for(pilot, lambda: app.session.messages and not app.session.is_busy, timeout=20)
    await pilot.pause(0.2)


async def _still_usable(pilot: Any, app: PiApp) -> None:
    assert app.is_running
    assert _status(app) == ""
    await pilot.press(*"again")
    assert app.editor.text == "again"
    assert not any("Traceback" in line for line in _screen(app))


async def _run(tmp_path, script, prompt: str = "hello") -> tuple[PiApp, str]:
    factory, _provider = fake_session_factory(str(tmp_path), script)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*prompt, "enter")
        await _settle(pilot, app)
        screen = "\n".join(app.transcript.plain_lines())
        await _still_usable(pilot, app)
    return app, screen


async def test_a_provider_error_is_shown_in_the_transcript(tmp_path) -> None:
    script = [
        [http_error(400, {"error": {"type": "invalid_request_error", "message": "temperature too high"}})]
    ]
    _app, screen = await _run(tmp_path, script)
    assert "400 invalid_request_error: temperature too high" in screen
    assert "Traceback" not in screen


async def test_a_failed_overflow_recovery_is_explained(tmp_path) -> None:
    _app, screen = await _run(tmp_path, [[http_error(400, OVERFLOW)], [text("unused")]])
    assert "Context overflow recovery failed" in screen, screen
    assert "Traceback" not in screen


async def test_auto_retry_progress_is_one_warning_status_line_then_the_answer(tmp_path) -> None:
    script = [[http_error(529, OVERLOADED)], [text("recovered answer")]]
    factory, provider = fake_session_factory(str(tmp_path), script, settings={"retry": {"baseDelayMs": 800}})
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: _status(app).startswith("Retrying"))
        assert _status(app) == "Retrying (1/3) in 1s... (escape to cancel)"
        assert app.status_line.has_class("-warning")
        await _settle(pilot, app)
        await wait_for(pilot, lambda: "recovered answer" in _screen(app))
        assert len(provider.calls) == 2
        assert not any(line.startswith("Error: Retry failed") for line in _screen(app))
        await _still_usable(pilot, app)


async def test_the_retry_countdown_ticks_every_second(tmp_path) -> None:
    """Issue 17, defect 7: "in 3s", "in 2s", "in 1s", about a second apart, then the retry."""
    import time

    script = [[http_error(529, OVERLOADED)], [text("recovered answer")]]
    factory, provider = fake_session_factory(str(tmp_path), script, settings={"retry": {"baseDelayMs": 3000}})
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: _status(app).startswith("Retrying"))
        seen = {_status(app): time.monotonic()}
        assert _status(app) == "Retrying (1/3) in 3s... (escape to cancel)"
        for seconds in (2, 1):
            line = f"Retrying (1/3) in {seconds}s... (escape to cancel)"
            await wait_for(pilot, lambda line=line: _status(app) == line, timeout=3)
            seen[line] = time.monotonic()
        times = list(seen.values())
        assert all(0.6 < later - earlier < 1.6 for earlier, later in zip(times, times[1:], strict=False)), (
            seen
        )
        await wait_for(pilot, lambda: "recovered answer" in _screen(app), timeout=10)
        assert len(provider.calls) == 2


async def test_retries_running_out_end_with_one_clear_error_line(tmp_path) -> None:
    script = [[http_error(529, OVERLOADED)]] * 3
    settings = {"retry": {"baseDelayMs": 10, "maxRetries": 2}}
    factory, provider = fake_session_factory(str(tmp_path), script, settings=settings)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: any(line.startswith("Error: Retry failed") for line in _screen(app)))
        await _settle(pilot, app)
        screen = _screen(app)
        assert [line for line in screen if "Retry failed" in line] == [
            f"Error: Retry failed after 2 attempts: {OVERLOADED_LINE}"
        ]
        assert screen[-1] == f"Error: Retry failed after 2 attempts: {OVERLOADED_LINE}"
        assert len(provider.calls) == 3
        await _still_usable(pilot, app)


async def test_escape_during_the_retry_wait_cancels_it_at_once(tmp_path) -> None:
    script = [[http_error(529, OVERLOADED)], [text("never sent")]]
    factory, provider = fake_session_factory(
        str(tmp_path), script, settings={"retry": {"baseDelayMs": 30000}}
    )
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: _status(app).startswith("Retrying (1/3) in 30s"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.session.is_busy, timeout=5)  # not after the 30 s wait
        await pilot.pause(0.2)
        screen = _screen(app)
        assert screen[-1] == "Error: Retry failed after 1 attempts: Retry cancelled"
        assert len(provider.calls) == 1
        await _still_usable(pilot, app)


async def test_overflow_shows_auto_compaction_then_the_answer(tmp_path) -> None:
    status_seen = threading.Event()
    script = [
        [text("first answer " + "words " * 300)],
        [http_error(400, OVERFLOW)],
        [gate(status_seen), text("SUMMARY of the talk")],  # lasts until the status line is seen
        [text("answer after compaction")],
    ]
    settings = {"compaction": {"keepRecentTokens": 1}}
    factory, provider = fake_session_factory(str(tmp_path), script, settings=settings)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"q1", "enter")
        await _settle(pilot, app)
        await pilot.press(*"q2", "enter")
        await wait_for(pilot, lambda: "compacting" in _status(app).lower())
        assert _status(app) == "Context overflow detected, Auto-compacting... (escape to cancel)"
        status_seen.set()
        await wait_for(pilot, lambda: "answer after compaction" in _screen(app), timeout=20)
        await _settle(pilot, app)
        screen = _screen(app)
        assert screen.index("[compaction]") < screen.index("q2") < screen.index("answer after compaction")
        assert sum("prompt is too long" in line for line in screen) == 1
        assert len(provider.calls) == 4
        await _still_usable(pilot, app)


async def test_escape_during_a_stalled_stream_aborts_with_one_line(tmp_path) -> None:
    script = [[text("partial words"), stall()], [text("next answer")]]
    factory, provider = fake_session_factory(str(tmp_path), script)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "partial words" in _screen(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.session.is_busy, timeout=5)
        await pilot.pause(0.2)
        screen = _screen(app)
        assert screen[-2:] == ["partial words", "Operation aborted"], screen
        assert len(provider.calls) == 1  # an abort is not retried
        await _still_usable(pilot, app)
