"""The first screen (80x24), as a new user sees it.

What the SVG should show: ``pi v0.1.0`` (``pi`` bold in the accent colour), one line of key hints
(``escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more``), how to
see the full help and, after a blank line, the tip that pi knows its own docs; an empty editor
between two grey rules with the cursor in the first cell; the footer with the working directory
and ``0.0%/128k (auto)`` on the left and ``fake-model`` on the right. Everything on the dark
theme's page background.
"""

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
