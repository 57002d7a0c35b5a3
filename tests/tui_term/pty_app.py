"""The real ``PiApp`` over the scripted provider, started the way ``pi`` starts it (probe first,
then the key parser and the app), for the pseudo-terminal tests.

Usage: ``python -m tests.tui_term.pty_app CWD [IMAGE]`` — with IMAGE, the transcript shows a user
message with that image attached once the app is up; ``PTY_APP_REPLY`` is the model's one answer; ``PTY_APP_CRASH=1`` makes the app die from an
unhandled exception half a second after start-up.
"""

from __future__ import annotations

import base64
import os
import sys

from pi_app.ai.testing import text
from pi_app.ai.types import ImageContent
from pi_app.tui.app import PiApp
from pi_app.tui.input.keys import install_key_parser
from pi_app.tui.terminal.probe import TerminalSetup
from tests.tui.fakes import fake_session_factory


def main() -> None:
    cwd = sys.argv[1]
    image = sys.argv[2] if len(sys.argv) > 2 else None
    reply = os.environ.get("PTY_APP_REPLY")  # one scripted answer, streamed in 50 chunks
    factory, _ = fake_session_factory(cwd, [[text(reply, chunks=50)]] if reply else [])
    install_key_parser()
    app = PiApp(session_factory=factory, cwd=cwd, animate=False, terminal=TerminalSetup.detect())

    if image:
        with open(image, "rb") as handle:
            content = ImageContent(data=base64.b64encode(handle.read()).decode(), mime_type="image/png")

        original = app.start_session

        def start_with_image() -> None:
            original()
            app.transcript.add_user("look at this", [content])

        app.start_session = start_with_image  # type: ignore[method-assign]
    if os.environ.get("PTY_APP_CRASH"):  # a bug that kills the app a moment after start-up
        app.call_later(lambda: app.set_timer(0.5, _crash))
    try:
        app.run()
    finally:
        app.terminal.restore_after_crash()
    sys.exit(app.return_code or 0)


def _crash() -> None:
    raise RuntimeError("PTY_APP_CRASH")


if __name__ == "__main__":
    main()
