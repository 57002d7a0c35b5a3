"""Images reach the transcript from the two places a user sees them: ``@image.png`` arguments on
the first message and tool results with image content (``read`` of a picture)."""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path

from PIL import Image

from pi_app.ai.testing import text
from pi_app.ai.types import ImageContent, TextContent, ToolResultMessage
from pi_app.coding.launch import LaunchOptions
from pi_app.tui.app import PiApp
from pi_app.tui.terminal.images import UPPER_HALF, ImageRenderer
from pi_app.tui.terminal.probe import ProbeResult, TerminalCapabilities, TerminalSetup
from pi_app.tui.transcript.blocks import UserBlock
from tests.tui.fakes import fake_session_factory
from tests.tui_term.helpers import TranscriptApp


def _png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (36, 36), (10, 200, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


async def _wait_for(pilot, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await pilot.pause(0.05)


async def test_at_image_argument_is_shown_in_the_user_message(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(_png_bytes())
    factory, provider = fake_session_factory(str(tmp_path), [[text("A green square.")]])
    options = LaunchOptions(cwd=str(tmp_path), messages=["what is this?"], file_args=["shot.png"])
    colour_terminal = TerminalSetup(TerminalCapabilities(None, True, True, False), ProbeResult())
    app = PiApp(options, session_factory=factory, cwd=str(tmp_path), animate=False, terminal=colour_terminal)
    async with app.run_test(size=(80, 30)) as pilot:
        await _wait_for(pilot, lambda: bool(app.transcript.blocks_of(UserBlock)) and bool(provider.calls))
        (user,) = app.transcript.blocks_of(UserBlock)
        assert user.text == "what is this?" and len(user.images) == 1
        lines = user.plain_lines(78, app.transcript.render_theme)
        assert any(UPPER_HALF in line for line in lines)
        assert provider.calls[0].context.messages[-1].content[-1].type == "image"
        await _wait_for(pilot, lambda: not app.session.is_streaming)


async def test_tool_result_images_render_below_the_output() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.transcript
        transcript.images = ImageRenderer("cells")
        picture = ImageContent(data=base64.b64encode(_png_bytes()).decode(), mime_type="image/png")
        result = ToolResultMessage(content=[TextContent(text="Read image file [image/png]"), picture])
        transcript.tool_updated("call-9", "read", {"path": "shot.png"}, result, final=True, is_error=False)
        await pilot.pause()
        lines = transcript.tools["call-9"].plain_lines(transcript._width, transcript.render_theme)
        assert any("read shot.png" in line for line in lines)
        cells = [line for line in lines if UPPER_HALF in line]
        assert len(cells) == 2 and cells[0].strip() == UPPER_HALF * 4
