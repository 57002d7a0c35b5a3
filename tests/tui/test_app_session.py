"""Session-level behaviours of the app: resuming, submit routing, queueing during compaction (R-TUI-14, R-INT)."""

from __future__ import annotations

import asyncio
import gc
import threading
from pathlib import Path

from pi_app.ai.testing import delay, gate, hang, text
from pi_app.ai.types import AssistantMessage, TextContent, Usage, UserMessage
from pi_app.tui.app import PiApp
from pi_app.tui.chrome.footer import footer_lines
from pi_app.tui.transcript.blocks import AssistantBlock, UserBlock
from tests.tui.fakes import fake_session_factory, history_session_factory
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started, users


async def test_a_resumed_session_shows_its_messages_and_fills_prompt_history(tmp_path: Path) -> None:
    messages = [
        UserMessage(content="first question"),
        AssistantMessage(content=[TextContent(text="First answer.")], usage=Usage(input=1200, output=30)),
        UserMessage(content="second question"),
        AssistantMessage(content=[TextContent(text="Second answer.")], usage=Usage(input=1500, output=40)),
    ]
    factory, _ = history_session_factory(str(tmp_path), messages)
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        assert [b.text for b in app.transcript.blocks_of(UserBlock)] == ["first question", "second question"]
        assert [b.plain_text() for b in app.transcript.blocks_of(AssistantBlock)] == [
            "First answer.",
            "Second answer.",
        ]
        assert "↑2.7k ↓70" in str(app.footer.render())
        await pilot.press("up")
        assert app.editor.text == "second question"
        await pilot.press("up")
        assert app.editor.text == "first question"


async def test_an_unknown_slash_word_goes_to_the_model_as_text(tmp_path: Path) -> None:
    app, provider = make_app(tmp_path, [[text("Plain prompt.")]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/nosuchthing please", "enter")
        await wait_for(pilot, lambda: "Plain prompt." in notes(app) and not app.is_working)
        assert provider.calls[0].context.messages[-1].content[0].text == "/nosuchthing please"


async def test_messages_typed_during_compaction_are_sent_after_it(tmp_path: Path) -> None:
    summary = "## Goal\nGreet.\n"
    typed = threading.Event()  # compaction lasts until the message typed meanwhile is queued
    script = [
        [text("First answer.")],
        [text("Second answer.")],
        [gate(typed), text(summary)],
        [delay(0.2), text(summary)],
        [text("After compaction.")],
    ]
    app, provider = make_app(tmp_path, script, settings={"compaction": {"keepRecentTokens": 1}})
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: "First answer." in notes(app) and not app.is_working)
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: "Second answer." in notes(app) and not app.is_working)
        await pilot.press(*"/compact", "enter")
        await wait_for(pilot, lambda: app.run_status.is_compacting)
        await pilot.press(*"while compacting", "enter")
        await wait_for(pilot, lambda: "Queued message for after compaction" in notes(app))
        assert "Steering: while compacting" in str(app.pending.render())
        assert app.run_status.is_compacting
        typed.set()
        await wait_for(pilot, lambda: "After compaction." in notes(app) and not app.is_working, 20)
        assert provider.calls[-1].context.messages[-1].content[0].text == "while compacting"
        assert str(app.pending.render()) == ""


async def test_bang_output_reaches_the_model_and_double_bang_output_does_not(tmp_path: Path) -> None:
    app, provider = make_app(tmp_path, [[text("Noted.")]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"!echo shared-$((20+1))", "enter")
        await wait_for(pilot, lambda: app.user_bash is not None and not app.user_bash.running)
        await pilot.press(*"!!echo private-$((40+2))", "enter")
        await wait_for(pilot, lambda: "private-42" in notes(app) and not app.user_bash.running)
        await pilot.press(*"what did you see", "enter")
        await wait_for(pilot, lambda: "Noted." in notes(app) and not app.is_working)
        sent = str(provider.calls[0].context.messages)
        assert "shared-21" in sent and "private-42" not in sent


async def test_escape_cancels_a_running_bang_command(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"!sleep 30", "enter")
        await wait_for(pilot, lambda: app.user_bash is not None and "Running..." in notes(app))
        await pilot.press(*"!echo second", "enter")
        await wait_for(pilot, lambda: "A bash command is already running." in notes(app))
        assert app.editor.text == "!echo second"  # the text stays for later
        await pilot.press("ctrl+u", "escape")
        await wait_for(pilot, lambda: not app.user_bash.running, 15)
        assert "(cancelled)" in notes(app)


async def test_messages_from_the_command_line_are_sent_one_after_another(tmp_path: Path) -> None:
    from pi_app.coding.launch import LaunchOptions
    from tests.tui.fakes import fake_session_factory

    factory, provider = fake_session_factory(str(tmp_path), [[text("One.")], [text("Two.")]])
    options = LaunchOptions(messages=["first message", "second message"])
    app = PiApp(options, session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "a")
    async with app.run_test(size=(90, 30)) as pilot:
        await wait_for(pilot, lambda: "Two." in notes(app) and not app.is_working)
        assert [b.text for b in app.transcript.blocks_of(UserBlock)] == ["first message", "second message"]
        assert len(provider.calls) == 2
        assert len(provider.calls[1].context.messages) == 3  # the second saw the first answer


async def test_a_bang_command_during_a_turn_waits_in_the_pending_area(tmp_path: Path) -> None:
    from pi_app.tui.transcript.blocks.user_bash import UserBashBlock

    app, provider = make_app(tmp_path, [[text("Busy", chunks=2), hang()], [text("Saw it.")]])
    async with app.run_test(size=(90, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"work", "enter")
        await wait_for(pilot, lambda: app.is_working and "Busy" in notes(app))
        await pilot.press(*"!echo side-$((3*3))", "enter")
        await wait_for(pilot, lambda: app.user_bash is not None and not app.user_bash.running)
        await pilot.pause()
        pending = str(app.pending.render())
        lines = [line.strip() for line in pending.splitlines()]
        assert "$ echo side-$((3*3))" in lines and "side-9" in lines
        assert not app.transcript.blocks_of(UserBashBlock)  # not in the transcript yet
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_working)
        await pilot.press(*"and now", "enter")
        await wait_for(pilot, lambda: "Saw it." in notes(app) and not app.is_working)
        assert str(app.pending.render()) == ""
        kinds = [b.kind for b in app.transcript.blocks if b.kind in ("user-bash", "user")]
        assert kinds == ["user", "user-bash", "user"]
        assert "side-9" in str(provider.calls[-1].context.messages)


def _held_factory(tmp_path: Path, script, *, fail: bool = False):  # type: ignore[no-untyped-def]
    """A session factory that waits for ``release`` (a slow start-up), then builds or fails."""
    factory, provider = fake_session_factory(str(tmp_path), script)
    release = threading.Event()

    async def held() -> object:
        await asyncio.to_thread(release.wait, 30)
        if fail:
            raise RuntimeError("models.json is broken")
        return await factory()

    return held, provider, release


def footer_text(app: PiApp) -> str:
    return "\n".join(line.plain.rstrip() for line in footer_lines(app.footer.state, 90))


async def test_messages_submitted_before_the_session_is_ready_are_sent_once_it_is(tmp_path: Path) -> None:
    held, provider, release = _held_factory(tmp_path, [[text("First reply.")], [text("Second reply.")]])
    app = PiApp(session_factory=held, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"early one", "enter")
        await pilot.press(*"early two", "enter")
        assert app.session is None
        assert app.editor.text == ""
        pending = str(app.pending.render())
        assert "early one" in pending and "early two" in pending
        assert "queued until the session is ready" in notes(app)
        assert "no-model" not in footer_text(app)  # starting: the model is not known yet, not missing
        release.set()
        await wait_for(pilot, lambda: "Second reply." in notes(app) and not app.is_working)
        assert [call.context.messages[-1].content[0].text for call in provider.calls] == [
            "early one",
            "early two",
        ]
        assert users(app) == ["early one", "early two"]
        assert str(app.pending.render()) == ""


async def test_messages_submitted_before_a_failed_start_go_back_to_the_editor(tmp_path: Path) -> None:
    held, provider, release = _held_factory(tmp_path, [], fail=True)
    app = PiApp(session_factory=held, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"keep me", "enter")
        release.set()
        await wait_for(pilot, lambda: "Error: models.json is broken" in notes(app))
        await wait_for(pilot, lambda: footer_text(app).endswith("no-model"))
        assert app.editor.text == "keep me"
        assert str(app.pending.render()) == ""
        assert provider.calls == []


async def test_the_collector_held_off_by_the_launcher_runs_again_after_the_first_frame(
    tmp_path: Path,
) -> None:
    gc.collect()
    gc.disable()  # what cli.run does before it imports the app
    try:
        app, _ = make_app(tmp_path)
        async with app.run_test(size=(90, 30)) as pilot:
            await started(pilot, app)
            assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
