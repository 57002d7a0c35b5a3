"""Spec 20 §6 acceptance scenarios 19–26: abort, busy guard, listener barrier, safety net, late updates."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_helpers import texts, user

from pi_app.agent import AgentBusyError
from pi_app.agent.testing import (
    FakeTool,
    abortable_tool,
    check_event_grammar,
    echo_tool,
    slow_tool,
    text_result,
)
from pi_app.ai.testing import hang, text, tool_call

DEADLINE = 5.0


async def test_s19_abort_while_streaming_keeps_the_partial_text(harness):
    h = harness([text("Partial answer"), hang()])

    def abort_after_text(event, signal):
        if event.type == "message_update" and event.assistant_message_event.type == "text_end":
            h.agent.abort()

    h.agent.subscribe(abort_after_text)
    await asyncio.wait_for(h.agent.prompt("go"), DEADLINE)  # returns normally

    final = h.agent.state.messages[-1]
    assert final.role == "assistant" and final.stop_reason == "aborted"
    assert texts(final) == "Partial answer"
    assert h.agent.state.error_message == final.error_message and final.error_message
    assert h.recorder.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    assert h.recorder.of("turn_end")[-1].tool_results == []
    assert h.agent.state.is_streaming is False
    check_event_grammar(h.recorder.events)


async def test_s20_abort_during_a_tool(harness):
    h = harness([tool_call("wait", {}, id="1")], [text("never")], tools=[abortable_tool("wait")])

    def steer_then_abort(event, signal):
        if event.type == "tool_execution_start":
            h.agent.steer(user("queued while the tool ran"))
            asyncio.get_running_loop().call_soon(h.agent.abort)

    h.agent.subscribe(steer_then_abort)
    await asyncio.wait_for(h.agent.prompt("go"), DEADLINE)

    result = [m for m in h.agent.state.messages if m.role == "toolResult"][0]
    assert result.is_error and texts(result) == "Operation aborted"
    assert len(h.calls) == 1  # the next request never reached the provider
    final = h.agent.state.messages[-1]
    assert (
        final.stop_reason == "aborted"
        and final.content == []
        and final.error_message == "Request was aborted"
    )
    assert h.recorder.types().count("agent_end") == 1
    assert h.agent.has_queued_messages()
    assert "queued while the tool ran" not in [texts(m) for m in h.agent.state.messages]
    check_event_grammar(h.recorder.events)


async def test_s21_abort_during_preflight(harness):
    tools = [echo_tool("echo")]
    holder: dict[str, Any] = {}

    async def abort_on_second(ctx, signal):
        if ctx.tool_call.id == "2":
            holder["agent"].abort()

    h = harness(
        [
            tool_call("echo", {"text": "a"}, id="1"),
            tool_call("echo", {"text": "b"}, id="2"),
            tool_call("echo", {"text": "c"}, id="3"),
        ],
        [text("never")],
        tools=tools,
        before_tool_call=abort_on_second,
    )
    holder["agent"] = h.agent
    await asyncio.wait_for(h.agent.prompt("go"), DEADLINE)

    assert tools[0].calls == []  # call 1 was prepared but never executed
    ends = {e.tool_call_id: e for e in h.recorder.of("tool_execution_end")}
    assert set(ends) == {"1", "2"}
    assert all(texts(e.result) == "Operation aborted" and e.is_error for e in ends.values())
    assert not [e for e in h.recorder.events if getattr(e, "tool_call_id", None) == "3"]
    assert h.agent.state.messages[-1].stop_reason == "aborted"
    check_event_grammar(h.recorder.events)


async def test_s23_busy_guard(harness):
    h = harness([hang()])
    run = asyncio.create_task(h.agent.prompt("first"))
    while not h.agent.state.is_streaming or h.agent.state.streaming_message is None:
        await asyncio.sleep(0)
    before = list(h.agent.state.messages)

    with pytest.raises(AgentBusyError, match=r"steer\(\).*follow_up\(\)"):
        await h.agent.prompt("second")
    with pytest.raises(AgentBusyError, match=r"wait_for_idle\(\)"):
        await h.agent.continue_()
    with pytest.raises(AgentBusyError):
        h.agent.reset()
    assert h.agent.state.messages == before

    h.agent.abort()
    await asyncio.wait_for(run, DEADLINE)
    assert h.recorder.types().count("agent_start") == 1


async def test_s24_agent_end_listener_is_a_barrier(harness):
    h = harness([text("hi")])
    release = asyncio.Event()
    streaming_at_agent_end: list[bool] = []

    async def slow_listener(event, signal):
        if event.type == "agent_end":
            streaming_at_agent_end.append(h.agent.state.is_streaming)
            await release.wait()

    h.agent.subscribe(slow_listener)
    run = asyncio.create_task(h.agent.prompt("go"))
    idle = asyncio.create_task(h.agent.wait_for_idle())
    while not streaming_at_agent_end:
        await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not run.done() and not idle.done()
    assert h.agent.state.is_streaming is True

    release.set()
    await asyncio.wait_for(asyncio.gather(run, idle), DEADLINE)
    assert streaming_at_agent_end == [True]
    assert h.agent.state.is_streaming is False


async def test_s24_before_tool_call_sees_the_requesting_message(harness):
    seen: list[list[str]] = []
    holder: dict[str, Any] = {}

    async def record(ctx, signal):
        seen.append([m.role for m in holder["agent"].state.messages])
        assert holder["agent"].state.messages[-1] is ctx.assistant_message

    h = harness(
        [tool_call("echo", {"text": "x"}, id="1")], [text("ok")], tools=[echo_tool()], before_tool_call=record
    )
    holder["agent"] = h.agent
    await h.agent.prompt("go")
    assert seen == [["user", "assistant"]]


async def test_s25_stream_function_that_raises(harness):
    h = harness()

    def exploding(model, context, options):
        raise RuntimeError("provider exploded")

    h.agent.stream_fn = exploding
    await h.agent.prompt("hello")
    _assert_failure_run(h, "provider exploded")


async def test_s25_safety_net_for_a_raising_callback(harness):
    def broken_convert(messages):
        raise RuntimeError("provider exploded")

    h = harness(convert_to_llm=broken_convert)
    await h.agent.prompt("hello")  # never raises for in-run failures
    _assert_failure_run(h, "provider exploded")


def _assert_failure_run(h: Any, error: str) -> None:
    assert h.recorder.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    last = h.agent.state.messages[-1]
    assert last.role == "assistant" and last.stop_reason == "error" and last.error_message == error
    assert h.agent.state.error_message == error
    assert [m.role for m in h.recorder.of("agent_end")[0].messages] == ["user", "assistant"]
    assert h.agent.state.is_streaming is False
    check_event_grammar(h.recorder.events)


async def test_s26_late_tool_updates_are_ignored(harness):
    kept: list[Any] = []

    def leaky(params, signal, on_update):
        kept.append(on_update)
        on_update(text_result("during"))
        return text_result("done")

    h = harness([tool_call("leaky", {}, id="1")], [text("ok")], tools=[FakeTool("leaky", leaky)])
    await h.agent.prompt("go")
    kept[0](text_result("after return"))  # nothing happens, nothing raises
    await asyncio.sleep(0)

    updates = h.recorder.of("tool_execution_update")
    assert [texts(u.partial_result) for u in updates] == ["during"]
    assert h.recorder.types()[-1] == "agent_end"
    check_event_grammar(h.recorder.events)


async def test_abort_when_idle_is_a_no_op(harness):
    h = harness([text("hi")])
    h.agent.abort()
    assert h.agent.signal is None
    await h.agent.prompt("go")
    assert h.agent.state.messages[-1].stop_reason == "stop"


async def test_abort_then_wait_for_idle_and_prompt_again(harness):
    release = asyncio.Event()
    h = harness([tool_call("slow", {}, id="1")], tools=[slow_tool("slow", release)])
    run = asyncio.create_task(h.agent.prompt("go"))
    while not h.agent.state.pending_tool_calls:
        await asyncio.sleep(0)
    signal = h.agent.signal
    h.agent.abort()
    await asyncio.wait_for(h.agent.wait_for_idle(), DEADLINE)
    assert signal is not None and signal.aborted and run.done()
    assert h.agent.signal is None
    assert len(h.calls) == 1

    h.provider.enqueue([text("fresh")])
    await h.agent.prompt("again")
    assert texts(h.agent.state.messages[-1]) == "fresh"
