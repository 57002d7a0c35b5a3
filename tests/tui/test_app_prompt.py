"""The Textual app end to end with the scripted provider: type, submit, watch the reply stream in."""

from __future__ import annotations

import asyncio

from pi_app.ai.testing import delay, text
from pi_app.tui.app import PiApp
from pi_app.tui.transcript.blocks import AssistantBlock, UserBlock
from tests.tui.fakes import fake_session_factory


async def _wait_for(pilot, condition, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


async def test_typed_prompt_streams_answer_into_transcript(tmp_path) -> None:
    factory, provider = fake_session_factory(
        str(tmp_path), [[text("Hello from the fake model.", chunks=6), delay(0.05)]]
    )
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await _wait_for(
            pilot,
            lambda: any(
                b.plain_text() == "Hello from the fake model."
                for b in app.transcript.blocks_of(AssistantBlock)
            ),
        )
        await _wait_for(pilot, lambda: not app.session.is_streaming)
        users = [b.text for b in app.transcript.blocks_of(UserBlock)]
        assert users == ["hello"]
        assert app.editor.text == ""
        # The model saw the prompt; the footer shows the model and the token usage.
        assert provider.calls[0].context.messages[-1].content[0].text == "hello"
        footer = str(app.footer.render())
        assert "fake-model" in footer and "↑" in footer


async def test_without_a_model_the_app_explains_how_to_configure_one(tmp_path) -> None:
    factory, _ = fake_session_factory(str(tmp_path), with_model=False)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hi", "enter")
        await pilot.pause(0.1)
        notes = " ".join(app.transcript.plain_lines())
        assert "models.json" in notes and "/login" in notes
        assert app.is_running
