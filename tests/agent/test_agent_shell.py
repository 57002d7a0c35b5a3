"""The stateful Agent beyond the numbered scenarios: listeners, queues, reset, pass-through options."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from agent_helpers import texts, user

from pi_app.agent import Agent, AgentOptions, PendingMessageQueue
from pi_app.agent.testing import check_event_grammar, echo_tool, updating_tool
from pi_app.ai.testing import fake_model, hang, text, tool_call
from pi_app.ai.types import ImageContent

DEADLINE = 5.0


async def test_listeners_never_run_for_two_events_at_once(harness):
    h = harness(
        [tool_call("p1", {}, id="1"), tool_call("p2", {}, id="2")],
        [text("ok")],
        tools=[updating_tool("p1", ["a", "b", "c"]), updating_tool("p2", ["d", "e", "f"])],
    )
    active = 0
    peak = 0
    order: list[int] = []

    async def slow(event, signal):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        order.append(len(order))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        active -= 1

    h.agent.subscribe(slow)
    await h.agent.prompt("go")
    assert peak == 1
    assert len(order) == len(h.recorder.events)
    check_event_grammar(h.recorder.events)


async def test_listeners_are_called_in_order_with_the_run_signal(harness):
    h = harness([text("hi")])
    calls: list[tuple[str, Any]] = []
    h.agent.subscribe(lambda e, s: calls.append(("first", s)))

    async def second(event, signal):
        calls.append(("second", signal))

    unsubscribe = h.agent.subscribe(second)
    await h.agent.prompt("go")
    names = [n for n, _ in calls]
    assert names[:2] == ["first", "second"] and len(names) == 2 * len(h.recorder.events)
    signals = {id(s) for _, s in calls}
    assert len(signals) == 1 and calls[0][1] is not None

    unsubscribe()
    unsubscribe()  # idempotent
    calls.clear()
    h.provider.enqueue([text("again")])
    await h.agent.prompt("again")
    assert {n for n, _ in calls} == {"first"}


async def test_a_listener_failure_ends_the_run_through_the_safety_net(harness):
    h = harness([tool_call("echo", {"text": "x"}, id="1")], [text("never")], tools=[echo_tool()])

    def explode(event, signal):
        if event.type == "tool_execution_end":
            raise RuntimeError("renderer crashed")

    h.agent.subscribe(explode)
    await asyncio.wait_for(h.agent.prompt("go"), DEADLINE)

    last = h.agent.state.messages[-1]
    assert last.stop_reason == "error" and last.error_message == "renderer crashed"
    assert h.agent.state.error_message == "renderer crashed"
    assert h.recorder.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    assert h.agent.state.is_streaming is False


async def test_a_listener_failure_on_a_tool_update_ends_the_run(harness):
    h = harness([tool_call("p", {}, id="1")], [text("never")], tools=[updating_tool("p", ["a", "b"])])

    def explode(event, signal):
        if event.type == "tool_execution_update":
            raise RuntimeError("progress widget broke")

    h.agent.subscribe(explode)
    await asyncio.wait_for(h.agent.prompt("go"), DEADLINE)
    assert h.agent.state.error_message == "progress widget broke"
    assert len(h.calls) == 1 and h.recorder.types()[-1] == "agent_end"
    assert h.agent.state.pending_tool_calls == frozenset() and not h.agent.state.is_streaming


async def test_a_listener_failure_mid_stream_still_closes_the_assistant_message(harness):
    h = harness([text("streaming", chunks=4)])

    def explode(event, signal):
        if event.type == "message_update":
            raise RuntimeError("render failed")

    h.agent.subscribe(explode)
    await h.agent.prompt("go")
    check_event_grammar(h.recorder.events)
    assert h.agent.state.error_message == "render failed"
    assert [m.role for m in h.agent.state.messages] == ["user", "assistant"]


async def test_a_listener_failure_on_agent_end_is_logged(harness, caplog):
    h = harness([text("hi")])

    def explode(event, signal):
        if event.type == "agent_end":
            raise RuntimeError("late failure")

    h.agent.subscribe(explode)
    with caplog.at_level(logging.ERROR, logger="pi_app.agent.agent"):
        await h.agent.prompt("go")
    assert h.recorder.types().count("agent_end") == 1
    assert h.agent.state.error_message is None and not h.agent.state.is_streaming
    assert "late failure" in caplog.text


async def test_queue_inspection_and_clearing(harness):
    h = harness()
    a, b, c = user("a"), user("b"), user("c")
    assert not h.agent.has_queued_messages()
    h.agent.steer(a)
    h.agent.steer(b)
    h.agent.follow_up(c)
    assert h.agent.has_queued_messages()
    assert h.agent.queued_steering == (a, b) and h.agent.queued_follow_ups == (c,)
    assert h.agent.queued_messages() == ([a, b], [c])
    assert h.agent.clear_steering_queue() == [a, b]
    assert h.agent.clear_follow_up_queue() == [c]
    h.agent.steer(a)
    h.agent.follow_up(c)
    assert h.agent.clear_all_queues() == [a, c]
    assert not h.agent.has_queued_messages()


def test_pending_message_queue_modes():
    queue = PendingMessageQueue()
    assert queue.mode == "one-at-a-time" and queue.drain() == []
    for name in "abc":
        queue.enqueue(name)
    assert queue.drain() == ["a"]
    queue.mode = "all"
    assert queue.drain() == ["b", "c"] and not queue.has_items()


async def test_steering_queued_while_idle_is_delivered_after_the_prompt(harness):
    h = harness([text("ok")])
    h.agent.steer(user("also this"))
    await h.agent.prompt("main")
    assert [texts(m) for m in h.agent.state.messages] == ["main", "also this", "ok"]
    assert [texts(m) for m in h.calls[0].context.messages] == ["main", "also this"]


async def test_queue_mode_can_change_between_drains(harness):
    h = harness([text("1")], [text("2")], steering_mode="all")
    assert h.agent.steering_mode == "all"
    h.agent.steering_mode = "one-at-a-time"
    h.agent.follow_up_mode = "all"
    h.agent.steer(user("s1"))
    h.agent.steer(user("s2"))
    await h.agent.prompt("go")
    assert len(h.calls) == 2 and h.agent.follow_up_mode == "all"


async def test_reset_keeps_configuration(harness):
    h = harness([text("bad")], [text("fine")])
    h.agent.state.system_prompt = "be brief"
    await h.agent.prompt("go")
    h.agent.steer(user("pending"))
    h.agent.follow_up(user("pending too"))
    model, tools = h.agent.state.model, h.agent.state.tools

    h.agent.reset()
    state = h.agent.state
    assert state.messages == [] and not h.agent.has_queued_messages()
    assert state.error_message is None and state.streaming_message is None
    assert state.model is model and state.tools == tools and state.system_prompt == "be brief"
    await h.agent.prompt("again")
    assert [texts(m) for m in state.messages] == ["again", "fine"]
    assert h.calls[1].context.system_prompt == "be brief"


async def test_state_changes_emit_nothing(harness):
    h = harness()
    h.agent.state.system_prompt = "x"
    h.agent.state.thinking_level = "high"
    h.agent.state.messages = [user("a")]
    h.agent.state.tools = [echo_tool()]
    assert h.recorder.events == []


async def test_options_are_forwarded_to_the_stream_function(harness):
    keys: list[str] = []

    def get_api_key(provider):
        keys.append(provider)
        return f"key-{len(keys)}"

    h = harness(
        [tool_call("echo", {"text": "x"}, id="1")],
        [text("ok")],
        [text("again")],
        tools=[echo_tool()],
        session_id="s-1",
        transport="sse",
        max_retry_delay_ms=1234,
        thinking_budgets={"low": 100},
        get_api_key=get_api_key,
    )
    h.agent.state.thinking_level = "medium"
    h.agent.state.system_prompt = "system"
    await h.agent.prompt("go")

    first, second = h.calls
    assert keys == ["fake", "fake"]  # resolved before every call
    assert (first.options.api_key, second.options.api_key) == ("key-1", "key-2")
    options = first.options
    assert (options.session_id, options.transport, options.max_retry_delay_ms) == ("s-1", "sse", 1234)
    assert (options.reasoning, options.thinking_budgets) == ("medium", {"low": 100})
    assert options.signal is not None and options.signal is second.options.signal
    assert first.context.system_prompt == "system" and first.context.tools[0].name == "echo"

    h.agent.session_id = "s-2"
    h.agent.state.thinking_level = "off"
    await h.agent.prompt("next")
    assert h.calls[2].options.session_id == "s-2" and h.calls[2].options.reasoning is None


async def test_model_and_callbacks_are_captured_at_run_start(harness, provider):
    other = fake_model("other", provider=provider.id)
    h = harness([tool_call("echo", {"text": "x"}, id="1")], [text("ok")], tools=[echo_tool()])

    def switch_model(event, signal):
        if event.type == "tool_execution_start":
            h.agent.state.model = other

    h.agent.subscribe(switch_model)
    await h.agent.prompt("go")
    assert [c.model.id for c in h.calls] == ["fake-model", "fake-model"]
    h.provider.enqueue([text("later")])
    await h.agent.prompt("next")
    assert h.calls[-1].model.id == "other"


async def test_prompt_input_forms(harness):
    h = harness([text("1")], [text("2")])
    image = ImageContent(data="aGk=", mime_type="image/png")
    await h.agent.prompt("look", images=[image])
    first = h.agent.state.messages[0]
    assert first.content[0].text == "look" and first.content[1] is image and first.timestamp > 0

    await h.agent.prompt([user("x"), user("y")])
    assert [texts(m) for m in h.agent.state.messages[2:]] == ["x", "y", "2"]


async def test_assigning_messages_during_a_run_redirects_later_appends(harness):
    h = harness([text("partial"), hang()])
    run = asyncio.create_task(h.agent.prompt("go"))
    while h.agent.state.streaming_message is None or h.agent.state.streaming_message.role != "assistant":
        await asyncio.sleep(0)
    h.agent.state.messages = []
    h.agent.abort()
    await asyncio.wait_for(run, DEADLINE)
    assert [m.role for m in h.agent.state.messages] == ["assistant"]


async def test_cancelling_the_run_task_propagates_and_settles(harness):
    h = harness([hang()])
    run = asyncio.create_task(h.agent.prompt("go"))
    while h.agent.state.streaming_message is None:
        await asyncio.sleep(0)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not h.agent.state.is_streaming and h.agent.signal is None
    await asyncio.wait_for(h.agent.wait_for_idle(), DEADLINE)


def test_construction_from_options_object(provider):
    agent = Agent(AgentOptions(stream_fn=provider.stream_simple, initial_state={"system_prompt": "hi"}))
    state = agent.state
    assert state.system_prompt == "hi" and state.model is None and state.thinking_level == "off"
    assert state.tools == [] and state.messages == [] and not state.is_streaming
    assert agent.steering_mode == agent.follow_up_mode == "one-at-a-time"
    assert (
        agent.tool_execution == "parallel" and agent.transport == "auto" and agent.tool_abort_grace_s == 0.1
    )
    with pytest.raises(TypeError):
        Agent(stream_fn=provider.stream_simple, initial_state={"is_streaming": True})
