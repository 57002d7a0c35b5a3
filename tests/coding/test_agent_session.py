"""AgentSession orchestration: persistence, threshold and overflow compaction, auto-retry, manual
compaction, queues during compaction, user bash (spec 30 scenarios 2, 10, 13, 14; R-CMP-30…34)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pi_app.agent import Agent, AgentOptions
from pi_app.ai.testing import delay, error, fake_model, fake_provider, hang, text, usage
from pi_app.coding import agent_session as agent_session_module
from pi_app.coding.agent_session import AgentSession, CompactionError
from pi_app.coding.messages import BashExecutionMessage, convert_to_llm
from pi_app.coding.session import SessionManager
from pi_app.coding.settings import SettingsManager
from tests.session.helpers import assistant, user

FILLER = "lorem ipsum dolor sit amet " * 60  # ~600 tokens


def make(script, *, window=100_000, settings=None, sm=None, prior=(), max_tokens=16384, cwd="/p"):
    model = fake_model(context_window=window, max_tokens=max_tokens)
    provider = fake_provider(models=[model], script=script)
    sm = sm or SessionManager.in_memory("/p")
    for message in prior:
        sm.append_message(message)
    agent = Agent(
        AgentOptions(
            initial_state={
                "model": model,
                "thinking_level": "off",
                "messages": sm.build_session_context().messages,
            },
            convert_to_llm=convert_to_llm,
            stream_fn=provider.stream_simple,
            session_id=sm.get_session_id(),
        )
    )
    session = AgentSession(
        agent=agent, session_manager=sm, settings_manager=SettingsManager.in_memory(settings), cwd=cwd
    )
    events: list = []
    session.subscribe(events.append)
    return session, provider, events


def history(turns: int = 4) -> list:
    out = []
    for t in range(turns):
        out += [user(f"question {t} {FILLER}"), assistant(f"answer {t}", total_tokens=1000 * (t + 1))]
    return out


def kinds(events) -> list[str]:
    return [e.type for e in events]


async def test_the_prompt_is_on_disk_while_the_first_request_runs(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    assert list(tmp_path.iterdir()) == []
    session, provider, _ = make([[delay(0.2), error("upstream said no")]], sm=sm)
    task = asyncio.ensure_future(session.prompt("hello"))
    await asyncio.sleep(0.05)
    assert session.is_streaming
    lines = [json.loads(line) for line in Path(sm.get_session_file()).read_text().splitlines()]
    assert [line["type"] for line in lines] == ["session", "model_change", "thinking_level_change", "message"]
    await asyncio.wait_for(task, 5)
    lines = [json.loads(line) for line in Path(sm.get_session_file()).read_text().splitlines()]
    assert [line["type"] for line in lines][3:] == ["message", "message"]
    assert lines[4]["message"]["stopReason"] == "error"


async def test_threshold_compaction_after_a_run() -> None:
    settings = {"compaction": {"keepRecentTokens": 300}}
    reply = [text("done"), usage(input=90_000)]
    session, provider, events = make(
        [reply, [text("## Goal\nsummary of the start")]], settings=settings, prior=history()
    )
    await session.prompt("read a.txt please")
    order = kinds(events)
    assert order.index("agent_end") < order.index("compaction_start") < order.index("compaction_end")
    start = next(e for e in events if e.type == "compaction_start")
    end = next(e for e in events if e.type == "compaction_end")
    assert start.reason == "threshold" and end.reason == "threshold" and end.will_retry is False
    assert end.result is not None and end.error_message is None
    entry = session.session_manager.get_leaf_entry()
    assert entry.type == "compaction" and entry.tokens_before > 0 and entry.from_hook is False
    path_ids = [e.id for e in session.session_manager.get_branch()]
    kept = session.session_manager.get_entry(entry.first_kept_entry_id)
    assert kept.id in path_ids and kept.role != "toolResult"
    assert session.messages[0].role == "compactionSummary"
    assert session.messages[0].summary.startswith("## Goal\nsummary of the start")
    assert [m.role for m in session.messages[1:]] == [
        m.role for m in session.session_manager.build_session_context().messages[1:]
    ]
    assert len(provider.calls) == 2 and provider.calls[1].context.system_prompt.startswith("You condense")
    usage_line = session.get_context_usage()
    assert usage_line.tokens is None and usage_line.percent is None  # unknown until the next reply


async def test_threshold_with_nothing_to_summarise_is_silent() -> None:
    session, provider, events = make([[text("ok"), usage(input=95_000)]])
    await session.prompt("tiny")
    assert "compaction_start" not in kinds(events) and len(provider.calls) == 1


async def test_threshold_is_skipped_when_disabled_or_below() -> None:
    session, provider, events = make(
        [[text("ok"), usage(input=90_000)]], settings={"compaction": {"enabled": False}}, prior=history()
    )
    await session.prompt("x")
    assert "compaction_start" not in kinds(events)
    session, provider, events = make([[text("ok"), usage(input=50_000)]], prior=history())
    await session.prompt("x")
    assert "compaction_start" not in kinds(events)


async def test_overflow_recovery_compacts_and_resumes_once() -> None:
    settings = {"compaction": {"keepRecentTokens": 300}}
    script = [
        [error("prompt is too long: 150000 tokens > 100000 maximum")],
        [text("## Goal\ncompacted")],
        [text("answer after recovery")],
    ]
    session, provider, events = make(script, settings=settings, prior=history())
    await session.prompt("big question")
    order = kinds(events)
    i_end = order.index("agent_end")
    assert order[i_end + 1 : i_end + 4] == ["compaction_start", "compaction_end", "agent_start"]
    end = next(e for e in events if e.type == "compaction_end")
    assert end.reason == "overflow" and end.will_retry is True and end.result is not None
    assert session.get_last_assistant_text() == "answer after recovery"
    resent = provider.calls[2].context.messages
    assert not any(getattr(m, "stop_reason", None) == "error" for m in resent)
    in_file = [e.raw["message"] for e in session.session_manager.get_entries() if e.type == "message"]
    assert any(m.get("stopReason") == "error" for m in in_file)


async def test_second_overflow_reports_failure_without_a_third_attempt() -> None:
    settings = {"compaction": {"keepRecentTokens": 300}}
    overflow = [error("prompt is too long: 150000 tokens > 100000 maximum")]
    script = [overflow, [text("## Goal\ncompacted")], overflow, [text("never requested")]]
    session, provider, events = make(script, settings=settings, prior=history())
    await session.prompt("big question")
    ends = [e for e in events if e.type == "compaction_end"]
    assert len(ends) == 2 and ends[1].result is None and ends[1].will_retry is False
    assert "one compact-and-retry" in ends[1].error_message
    assert len(provider.calls) == 3


async def test_auto_retry_with_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def no_sleep(seconds, signal=None):
        slept.append(seconds)
        return False

    monkeypatch.setattr(agent_session_module, "sleep_abortable", no_sleep)
    script = [[error("529 overloaded")], [error("529 overloaded")], [text("finally")]]
    session, provider, events = make(script)
    await session.prompt("hi")
    starts = [e for e in events if e.type == "auto_retry_start"]
    assert [(e.attempt, e.max_attempts, e.delay_ms) for e in starts] == [(1, 3, 2000), (2, 3, 4000)]
    assert starts[0].error_message == "529 overloaded"
    end = next(e for e in events if e.type == "auto_retry_end")
    assert end.success is True and end.attempt == 2
    assert slept == [2.0, 4.0] and session.get_last_assistant_text() == "finally"
    assert [m.role for m in session.messages] == ["user", "assistant"]  # failed replies dropped from memory
    assert (
        sum(1 for e in session.session_manager.get_entries() if e.type == "message") == 4
    )  # but kept on disk


async def test_auto_retry_disabled_and_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_sleep(seconds, signal=None):
        return False

    monkeypatch.setattr(agent_session_module, "sleep_abortable", no_sleep)
    session, provider, events = make([[error("529 overloaded")]], settings={"retry": {"enabled": False}})
    await session.prompt("hi")
    assert "auto_retry_start" not in kinds(events) and len(provider.calls) == 1
    session, provider, events = make(
        [[error("503 service unavailable")]] * 3, settings={"retry": {"maxRetries": 2}}
    )
    await session.prompt("hi")
    end = [e for e in events if e.type == "auto_retry_end"][-1]
    assert end.success is False and end.attempt == 2 and end.final_error == "503 service unavailable"
    assert len(provider.calls) == 3


async def test_abort_during_backoff_cancels_the_retry() -> None:
    session, provider, events = make(
        [[error("overloaded")], [text("not reached")]], settings={"retry": {"baseDelayMs": 10_000}}
    )
    task = asyncio.ensure_future(session.prompt("hi"))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if session.is_retrying:
            break
    assert session.is_retrying
    session.abort()
    await asyncio.wait_for(task, 5)
    end = next(e for e in events if e.type == "auto_retry_end")
    assert end.success is False and end.final_error == "Retry cancelled" and len(provider.calls) == 1


async def test_manual_compact_errors_and_success() -> None:
    session, provider, events = make([[text("## Goal\nmanual")]], prior=[user("only one")])
    with pytest.raises(CompactionError, match="no messages yet"):
        await session.compact()
    session, provider, events = make(
        [[text("## Goal\nmanual")]], prior=history(), settings={"compaction": {"keepRecentTokens": 300}}
    )
    result = await session.compact("keep the numbers")
    assert result.summary.startswith("## Goal\nmanual")
    assert (
        provider.calls[0].context.messages[0].content[0].text.endswith("Additional focus: keep the numbers")
    )
    assert [e.reason for e in events if e.type == "compaction_start"] == ["manual"]
    with pytest.raises(CompactionError, match="Already compacted"):
        await session.compact()
    failing, provider, events = make(
        [[error("invalid api key")]], prior=history(), settings={"compaction": {"keepRecentTokens": 300}}
    )
    with pytest.raises(CompactionError, match="Compaction failed: Summarization failed: invalid api key"):
        await failing.compact()
    end = next(e for e in events if e.type == "compaction_end")
    assert (
        end.error_message.startswith("Compaction failed")
        and failing.session_manager.get_leaf_entry().type == "message"
    )


async def test_manual_compaction_can_be_aborted_and_prompts_wait_for_it() -> None:
    session, provider, events = make(
        [[hang()]], prior=history(), settings={"compaction": {"keepRecentTokens": 300}}
    )
    task = asyncio.ensure_future(session.compact())
    await asyncio.sleep(0.05)
    assert session.is_compacting
    session.abort_compaction()
    with pytest.raises(CompactionError, match="cancelled"):
        await asyncio.wait_for(task, 5)
    end = next(e for e in events if e.type == "compaction_end")
    assert end.aborted is True and end.result is None
    session2, provider2, _ = make(
        [[delay(0.1), text("## Goal\ns")], [text("after")]],
        prior=history(),
        settings={"compaction": {"keepRecentTokens": 300}},
    )
    compacting = asyncio.ensure_future(session2.compact())
    await asyncio.sleep(0.02)
    await asyncio.wait_for(session2.prompt("typed while compacting"), 5)
    assert compacting.done() and session2.messages[0].role == "compactionSummary"
    assert session2.get_last_assistant_text() == "after"


async def test_user_bash_is_recorded_and_deferred_while_streaming(tmp_path: Path) -> None:
    session, provider, _ = make([[delay(0.1), text("ok")], [text("second")]], cwd=str(tmp_path))
    task = asyncio.ensure_future(session.prompt("go"))
    await asyncio.sleep(0.03)
    session.record_bash_execution(BashExecutionMessage(command="ls", output="a", exit_code=0, timestamp=1))
    assert not any(m.role == "bashExecution" for m in session.messages)
    await asyncio.wait_for(task, 5)
    assert [m.role for m in session.messages] == ["user", "assistant", "bashExecution"]
    message = await session.execute_bash("echo hidden", exclude_from_context=True)
    assert message.output.strip() == "hidden" and message.exit_code == 0
    await session.prompt("next")
    sent = provider.calls[1].context.messages
    assert any("ls" in m.content[0].text for m in sent if m.role == "user")
    assert not any("hidden" in getattr(m.content[0], "text", "") for m in sent if m.role == "user")
    roles = [e.raw["message"]["role"] for e in session.session_manager.get_entries()]
    assert roles.count("bashExecution") == 2


async def test_wait_for_idle_covers_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    session, provider, events = make(
        [[error("overloaded")], [text("ok")]], settings={"retry": {"baseDelayMs": 50}}
    )
    task = asyncio.ensure_future(session.prompt("hi"))
    await asyncio.sleep(0.02)
    await asyncio.wait_for(session.wait_for_idle(), 5)
    assert "auto_retry_end" in kinds(events) and session.get_last_assistant_text() == "ok"
    await task


async def test_thinking_level_changes_are_recorded_once_and_saved() -> None:
    session, _, events = make([])
    session.agent.state.model.reasoning = True
    session.set_thinking_level("high")
    session.set_thinking_level("high")
    entries = [e for e in session.session_manager.get_entries() if e.type == "thinking_level_change"]
    assert [e.thinking_level for e in entries] == ["high"]
    assert session.settings_manager.get_default_thinking_level() == "high"
    assert [e.level for e in events if e.type == "thinking_level_changed"] == ["high"]
    assert session.cycle_thinking_level() == "off"  # no xhigh without a thinkingLevelMap: wraps around
    assert session.cycle_thinking_level() == "minimal"


async def test_sdk_reports_skipped_session_lines_and_passes_settings(tmp_path: Path) -> None:
    from pi_app.ai.auth import InMemoryCredentialStore
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.sdk import create_agent_session

    sm = SessionManager.create(str(tmp_path), tmp_path / "s")
    sm.append_message(user("one"))
    sm.append_message(assistant("two"))
    path = Path(sm.get_session_file())
    path.write_text(path.read_text() + "{torn\n")
    provider = fake_provider()
    registry = ModelRegistry(InMemoryCredentialStore(), None)
    registry.models.set_provider(provider)
    settings = SettingsManager.in_memory(
        {"retry": {"provider": {"maxRetryDelayMs": 1234}}, "transport": "sse"}
    )
    created = await create_agent_session(
        str(tmp_path),
        session_manager=SessionManager.open(path),
        settings_manager=settings,
        model_registry=registry,
        model=provider.get_models()[0],
        no_context_files=True,
    )
    assert any("Skipped 1 unreadable line" in w for w in created.warnings)
    agent = created.session.agent
    assert agent.max_retry_delay_ms == 1234 and agent.transport == "sse"
    assert [m.role for m in created.session.messages] == ["user", "assistant"]
