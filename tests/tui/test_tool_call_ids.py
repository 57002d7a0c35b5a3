"""Tool-call ids that repeat (``call_0`` every turn, or twice in one message) each get their own
block with their own output (issue 17, defect 3): live, and when the session is resumed."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import text, tool_call
from pi_app.tui.app import PiApp
from pi_app.tui.transcript.blocks import ToolBlock
from tests.tui.fakes import fake_session_factory, history_session_factory
from tests.tui.helpers import wait_for


def tool_outputs(app: PiApp) -> list[tuple[str, str]]:
    return [(b.args.get("command", ""), b.output.strip()) for b in app.transcript.blocks_of(ToolBlock)]


def rows(app: PiApp) -> list[str]:
    return [line.strip() for line in app.transcript.plain_lines() if line.strip()]


async def test_two_turns_that_both_use_call_0_show_both_outputs(tmp_path: Path) -> None:
    script = [
        [tool_call("bash", {"command": "echo FIRST-OUT"}, id="call_0")],
        [text("First done ALPHA.")],
        [tool_call("bash", {"command": "echo SECOND-OUT"}, id="call_0")],
        [text("Second done BETA.")],
    ]
    factory, _ = fake_session_factory(str(tmp_path), script)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: "First done ALPHA." in rows(app) and not app.is_working)
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: "Second done BETA." in rows(app) and not app.is_working)
        assert tool_outputs(app) == [("echo FIRST-OUT", "FIRST-OUT"), ("echo SECOND-OUT", "SECOND-OUT")]
        story = rows(app)
        order = ["one", "$ echo FIRST-OUT", "FIRST-OUT", "First done ALPHA.", "two", "$ echo SECOND-OUT"]
        order += ["SECOND-OUT", "Second done BETA."]
        positions = [story.index(marker) for marker in order]
        assert positions == sorted(positions), story
        messages = list(app.session.messages)

    # the same conversation resumed: every call finds its own result
    factory, _ = history_session_factory(str(tmp_path), messages)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.transcript.blocks_of(ToolBlock)) == 2)
        assert tool_outputs(app) == [("echo FIRST-OUT", "FIRST-OUT"), ("echo SECOND-OUT", "SECOND-OUT")]


async def test_one_message_with_the_same_id_twice_shows_two_blocks(tmp_path: Path) -> None:
    script = [
        [
            tool_call("bash", {"command": "echo LEFT"}, id="call_0"),
            tool_call("bash", {"command": "sleep 0.4; echo RIGHT"}, id="call_0"),
        ],
        [text("Both ran GAMMA.")],
    ]
    factory, _ = fake_session_factory(str(tmp_path), script)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "Both ran GAMMA." in rows(app) and not app.is_working)
        assert tool_outputs(app) == [("echo LEFT", "LEFT"), ("sleep 0.4; echo RIGHT", "RIGHT")]
        assert all(block.done for block in app.transcript.blocks_of(ToolBlock))
