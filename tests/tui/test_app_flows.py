"""What a pi user does interactively, driven through the real app with Pilot (issue 9, acceptance 1).

Every test runs the real ``PiApp`` over the real ``AgentSession``; only the model is scripted
(``pi_app.ai.testing.fake_provider``). Tools run for real in a temporary directory.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pi_app.ai.testing import delay, fake_model, gate, hang, text, tool_call
from pi_app.tui.app import PiApp
from pi_app.tui.selectors.select_list import SelectList
from pi_app.tui.transcript.blocks import AssistantBlock, ToolBlock, UserBlock
from pi_app.tui.transcript.blocks.summary import SummaryBlock
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for


def make_app(tmp_path: Path, script=(), **kwargs) -> tuple[PiApp, object]:  # type: ignore[no-untyped-def]
    factory_kwargs = {
        k: kwargs.pop(k) for k in ("models", "settings", "thinking_level", "session_dir") if k in kwargs
    }
    factory, provider = fake_session_factory(str(tmp_path), script, **factory_kwargs)
    agent_dir = kwargs.pop("agent_dir", tmp_path / "agent")
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=agent_dir, **kwargs)
    return app, provider


async def started(pilot, app: PiApp) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.session is not None)
    await pilot.pause()


def notes(app: PiApp) -> str:
    return "\n".join(app.transcript.plain_lines())


def users(app: PiApp) -> list[str]:
    return [block.text for block in app.transcript.blocks_of(UserBlock)]


async def test_tool_output_is_collapsed_and_ctrl_o_expands_it(tmp_path: Path) -> None:
    script = [
        [text("Counting.", chunks=2), tool_call("bash", {"command": "seq 1 12"}, id="call-seq")],
        [text("Counted to twelve.")],
    ]
    app, _ = make_app(tmp_path, script)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"count", "enter")
        await wait_for(pilot, lambda: "Counted to twelve." in notes(app) and not app.is_working)
        tool = app.transcript.tools["call-seq"]
        assert isinstance(tool, ToolBlock) and tool.done and not tool.is_error
        collapsed = [line.strip() for line in notes(app).split("\n")]
        assert "$ seq 1 12" in collapsed
        assert "12" in collapsed and "3" not in collapsed
        assert "... (7 earlier lines, ctrl+o to expand)" in collapsed
        assert any(line.startswith("Took ") for line in collapsed)
        # the text the model wrote before the tool call stays above the tool block
        texts = [b.plain_text() for b in app.transcript.blocks_of(AssistantBlock)]
        assert texts == ["Counting.", "Counted to twelve."]
        await pilot.press("ctrl+o")
        await pilot.pause()
        expanded = [line.strip() for line in notes(app).split("\n")]
        assert "3" in expanded and not any("earlier lines" in line for line in expanded)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "3" not in [line.strip() for line in notes(app).split("\n")]


async def test_enter_steers_and_alt_enter_queues_a_follow_up_while_streaming(tmp_path: Path) -> None:
    both_queued = threading.Event()  # the first answer goes on streaming until both are queued
    script = [
        [text("Thinking about it", chunks=4), gate(both_queued), text(" at length.")],
        [text("Steered answer.", chunks=2), delay(0.3)],
        [text("Follow-up answer.")],
    ]
    app, provider = make_app(tmp_path, script)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"start", "enter")
        await wait_for(pilot, lambda: "Thinking about it" in notes(app))
        await pilot.press(*"steer me", "enter")
        await wait_for(pilot, lambda: "Steering: steer me" in str(app.pending.render()))
        await pilot.press(*"and later this", "alt+enter")
        await wait_for(pilot, lambda: "Follow-up: and later this" in str(app.pending.render()))
        pending = str(app.pending.render())
        assert "Steering: steer me" in pending and "alt+up to edit all queued messages" in pending
        assert app.editor.text == ""  # typing stayed responsive and both texts left the editor
        assert app.is_working  # all of this happened while the first answer was still streaming
        both_queued.set()
        await wait_for(pilot, lambda: "Follow-up answer." in notes(app) and not app.is_working)
        assert users(app) == ["start", "steer me", "and later this"]
        answers = [b.plain_text() for b in app.transcript.blocks_of(AssistantBlock)]
        assert answers == ["Thinking about it\n at length.", "Steered answer.", "Follow-up answer."]
        assert str(app.pending.render()) == ""
        assert len(provider.calls) == 3


async def test_escape_aborts_and_returns_queued_text_to_the_editor(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Starting", chunks=2), hang()]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: app.is_working and "Starting" in notes(app))
        await pilot.press(*"keep this", "enter")
        await wait_for(pilot, lambda: "Steering: keep this" in str(app.pending.render()))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_working)
        assert app.editor.text == "keep this"
        assert str(app.pending.render()) == ""
        assert "Operation aborted" in notes(app)
        assert users(app) == ["go"]  # the steering message never reached the model


async def test_model_selector_searches_and_switches_the_model(tmp_path: Path) -> None:
    models = [fake_model("alpha-1"), fake_model("beta-2")]
    app, _ = make_app(tmp_path, models=models)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        assert app.session.model.id == "alpha-1"
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: bool(app.screen.query("#model-selector")))
        selector = app.screen.query_one("#model-selector", SelectList)
        assert [item.label for item in selector.model.filtered] == ["alpha-1", "beta-2"]
        await pilot.press(*"beta")
        assert [item.label for item in selector.model.filtered] == ["beta-2"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.model.id == "beta-2")
        await pilot.pause()
        assert not app.screen.query("#model-selector") and app.editor.has_focus
        assert "beta-2" in str(app.footer.render())
        assert "Model: beta-2" in notes(app)


async def test_model_command_with_an_exact_reference_switches_directly(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("alpha-1"), fake_model("beta-2")])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/model fake/beta-2", "enter")
        await wait_for(pilot, lambda: app.session.model.id == "beta-2")


async def test_shift_tab_cycles_the_thinking_level_and_the_border_colour(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("thinker", reasoning=True)], thinking_level="low")
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        assert app.editor.border_token == "thinkingLow"
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: app.session.thinking_level == "medium")
        await pilot.pause()
        assert "Thinking level: medium" in notes(app)
        assert app.editor.border_token == "thinkingMedium"
        assert "thinker • medium" in str(app.footer.render())


async def test_shift_tab_on_a_model_without_reasoning_says_so(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: "Current model does not support thinking" in notes(app))


async def test_compact_replaces_the_history_with_a_summary(tmp_path: Path) -> None:
    summary = "## Goal\nSay hello twice.\n\n## Progress\nDone."
    # one summary of the history before the kept turn and one of the kept turn's prefix
    script = [[text("First answer.")], [text("Second answer.")], [text(summary)], [text("Asked twice.")]]
    settings = {"compaction": {"keepRecentTokens": 1}}
    app, provider = make_app(tmp_path, script, settings=settings)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: "First answer." in notes(app) and not app.is_working)
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: "Second answer." in notes(app) and not app.is_working)
        await pilot.press(*"/compact keep it short", "enter")
        await wait_for(pilot, lambda: bool(app.transcript.blocks_of(SummaryBlock)), timeout=20)
        await pilot.pause()
        block = app.transcript.blocks_of(SummaryBlock)[0]
        assert block is app.transcript.blocks[-1]
        assert "[compaction]" in notes(app) and "Compacted from" in notes(app)
        summary_requests = [str(call.context.messages) for call in provider.calls[2:]]
        assert any("keep it short" in request for request in summary_requests)
        roles = [getattr(m, "role", None) for m in app.session.messages]
        assert roles[0] == "compactionSummary"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "Say hello twice." in notes(app)


async def test_theme_switch_from_settings_applies_and_saves_light(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        assert app.themes.current.name == "dark"
        await pilot.press(*"/settings", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        await pilot.press(*"theme", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#theme-selector")))
        await pilot.press("down")  # previewing light already switches the colours
        await pilot.pause()
        assert app.themes.current.name == "light" and app.theme == "pi-light"
        await pilot.press("enter")
        await pilot.pause()
        assert app.settings.get_theme() == "light"
        assert app.transcript.render_theme.name == "light"
        assert app.editor.pi_theme.is_light


async def test_a_broken_custom_theme_keeps_the_current_one_and_says_why(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    (agent_dir / "themes").mkdir(parents=True)
    dark = json.loads((Path(__file__).parents[2] / "themes" / "dark.json").read_text())
    del dark["colors"]["bashMode"]
    dark["name"] = "broken"
    (agent_dir / "themes" / "broken.json").write_text(json.dumps(dark))
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        # a broken file is reported at start-up and is not offered
        assert "broken" not in app.themes.names()
        assert "bashMode" in notes(app)


async def test_a_theme_file_that_breaks_later_keeps_the_current_theme(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    (agent_dir / "themes").mkdir(parents=True)
    theme = json.loads((Path(__file__).parents[2] / "themes" / "light.json").read_text())
    theme["name"] = "mine"
    path = agent_dir / "themes" / "mine.json"
    path.write_text(json.dumps(theme))
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        assert app.theme_controller.switch("mine") is None
        del theme["colors"]["bashMode"]
        path.write_text(json.dumps(theme))
        error = app.theme_controller.switch("mine")
        assert error is not None and "bashMode" in error and error.startswith('Failed to load theme "mine"')
        assert app.themes.current.name == "mine"  # still the last good version (decision D-40)


async def test_user_keybindings_file_remaps_submit(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "keybindings.json").write_text(
        json.dumps({"tui.input.submit": "ctrl+x", "newLine": "enter"})
    )
    app, provider = make_app(tmp_path, [[text("Got it.")]], agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"one", "enter", *"two")
        assert app.editor.text == "one\ntwo"  # Enter is a newline now
        assert provider.calls == []
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "Got it." in notes(app))
        assert users(app) == ["one\ntwo"]
        await pilot.press(*"/hotkeys", "ctrl+x")
        await wait_for(pilot, lambda: "Ctrl+X" in notes(app))


async def test_broken_keybindings_are_reported_and_defaults_kept(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "keybindings.json").write_text(json.dumps({"noSuchAction": "ctrl+q", "undo": "ctrl+??"}))
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        shown = notes(app)
        assert 'unknown action "noSuchAction"' in shown and 'invalid key for "undo"' in shown
        assert app.keybindings.keys("tui.editor.undo") == ("ctrl+-",)


async def test_bash_duration_is_the_tools_own_even_when_the_ui_handles_start_and_end_together(
    tmp_path: Path,
) -> None:
    """A busy UI may receive a tool's start and end in one go; ``Took`` measures the agent-side times."""
    import time

    from pi_app.agent.events import ToolExecutionEndEvent, ToolExecutionStartEvent
    from pi_app.agent.types import AgentToolResult
    from pi_app.ai.types import TextContent
    from pi_app.tui.bridge.messages import ToolEnded, ToolStarted

    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        began = time.monotonic() - 5.0
        args = {"command": "sleep 2"}
        result = AgentToolResult(content=[TextContent(text="done")])
        start = ToolExecutionStartEvent("call-1", "bash", args)
        end = ToolExecutionEndEvent("call-1", "bash", result, False)
        app.post_message(ToolStarted(began, app.snapshot, start))
        app.post_message(ToolEnded(began + 2.0, app.snapshot, end))
        await wait_for(
            pilot, lambda: "call-1" in app.transcript.tools and app.transcript.tools["call-1"].done
        )
        await pilot.pause()
        lines = [line.strip() for line in notes(app).split("\n")]
        assert "Took 2.0s" in lines
