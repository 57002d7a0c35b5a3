"""Provider faults as the full-screen app shows them (issue 12 item 2; 60 R-TUI error display).

The app runs the real ``AgentSession`` over the scripted provider; a failing request must leave a
readable one-line reason in the transcript, keep the app running and the editor usable, and show
no traceback.
"""

from __future__ import annotations

from pi_app.ai.testing import http_error, text
from pi_app.tui.app import PiApp
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for

OVERFLOW = {
    "error": {"type": "invalid_request_error", "message": "prompt is too long: 300000 tokens > 200000"}
}


async def _run(tmp_path, script, prompt: str = "hello") -> tuple[PiApp, str]:
    factory, _provider = fake_session_factory(str(tmp_path), script)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*prompt, "enter")
        await wait_for(pilot, lambda: app.session.messages and not app.session.is_busy, timeout=20)
        await pilot.pause(0.2)
        screen = "\n".join(app.transcript.plain_lines())
        assert app.is_running
        await pilot.press(*"again")
        assert app.editor.text == "again"  # still usable after the failure
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
