"""Snapshot of the first screen (80x24): header with key hints, empty editor between two rules,
and the footer with the working directory, the context figure and ``(fake) fake-model``."""

from __future__ import annotations

from pi_app.tui.app import PiApp
from tests.tui.fakes import fake_session_factory


def test_first_screen(snap_compare) -> None:
    factory, _ = fake_session_factory("/home/user/project")
    app = PiApp(session_factory=factory, cwd="/home/user/project", animate=False)

    async def wait_ready(pilot) -> None:
        for _ in range(200):
            if app.session is not None:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(80, 24), run_before=wait_ready)
