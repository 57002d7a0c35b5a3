"""The stateless loop used directly: minimal config, broken streams, errors, the observational stream."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_helpers import loop_config, texts, user

from pi_app.agent import AgentContext, agent_loop, agent_loop_continue, run_agent_loop
from pi_app.agent.testing import EventRecorder, FakeTool, check_event_grammar, echo_tool, text_result
from pi_app.ai.event_stream import AbortController, AssistantMessageEventStream
from pi_app.ai.testing import error, fake_provider, text, tool_call
from pi_app.ai.types import AssistantMessage, StartEvent, TextContent, TextDeltaEvent, TextStartEvent


async def test_only_model_and_convert_to_llm_are_needed(provider, model):
    provider.enqueue([tool_call("echo", {"text": "x"}, id="1")], [text("done")])
    recorder = EventRecorder()
    context = AgentContext(tools=[echo_tool()])
    new = await run_agent_loop(
        [user("go")], context, loop_config(model), recorder, stream_fn=provider.stream_simple
    )
    assert [m.role for m in new] == ["user", "assistant", "toolResult", "assistant"]
    assert recorder.of("agent_end")[0].messages == new
    assert context.messages == []  # the caller's context is never touched
    check_event_grammar(recorder.events)


async def test_async_emit_is_awaited(provider, model):
    provider.enqueue([text("hi")])
    seen: list[str] = []

    async def emit(event):
        await asyncio.sleep(0)
        seen.append(event.type)

    await run_agent_loop(
        [user("go")], AgentContext(), loop_config(model), emit, stream_fn=provider.stream_simple
    )
    assert seen[0] == "agent_start" and seen[-1] == "agent_end"


def _partial(model: Any) -> AssistantMessage:
    return AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=1)


async def test_a_stream_without_a_terminal_event_becomes_an_error_message(model):
    def stream_fn(m, context, options):
        stream = AssistantMessageEventStream()
        partial = _partial(m)
        stream.push(StartEvent(partial=partial))
        partial.content.append(TextContent(text="half"))
        stream.push(TextStartEvent(content_index=0, partial=partial))
        stream.end(partial)
        return stream

    recorder = EventRecorder()
    new = await run_agent_loop(
        [user("go")], AgentContext(), loop_config(model), recorder, stream_fn=stream_fn
    )
    final = new[-1]
    assert final.stop_reason == "error" and final.error_message == "stream ended without a final message"
    assert texts(final) == "half"
    check_event_grammar(recorder.events)


class _BrokenStream:
    """Yields a start and a delta, then the connection 'resets'."""

    def __init__(self, model: Any) -> None:
        self.partial = _partial(model)

    async def __aiter__(self):
        yield StartEvent(partial=self.partial)
        self.partial.content.append(TextContent(text="so far"))
        yield TextDeltaEvent(content_index=0, delta="so far", partial=self.partial)
        raise ConnectionResetError("connection reset by peer")

    async def result(self) -> AssistantMessage:
        raise AssertionError("not reached")


async def test_a_stream_that_raises_keeps_the_partial_content(model):
    recorder = EventRecorder()
    new = await run_agent_loop(
        [user("go")], AgentContext(), loop_config(model), recorder, stream_fn=lambda m, c, o: _BrokenStream(m)
    )
    final = new[-1]
    assert final.stop_reason == "error" and final.error_message == "connection reset by peer"
    assert texts(final) == "so far"
    check_event_grammar(recorder.events)


async def test_a_broken_stream_after_abort_is_aborted(model):
    controller = AbortController()

    class AbortingStream(_BrokenStream):
        async def __aiter__(self):
            yield StartEvent(partial=self.partial)
            controller.abort()
            raise RuntimeError("socket closed")

    recorder = EventRecorder()
    new = await run_agent_loop(
        [user("go")],
        AgentContext(),
        loop_config(model),
        recorder,
        signal=controller.signal,
        stream_fn=lambda m, c, o: AbortingStream(m),
    )
    assert new[-1].stop_reason == "aborted" and new[-1].error_message == "socket closed"


async def test_a_provider_error_ends_the_run_without_running_its_tools(provider, model):
    provider.enqueue([tool_call("echo", {"text": "x"}, id="1"), error("rate limited")])
    polls = {"steering": 0, "hooks": 0}

    async def steering():
        polls["steering"] += 1
        return [user("steer")]

    def hook(turn):
        polls["hooks"] += 1

    recorder = EventRecorder()
    config = loop_config(
        model, get_steering_messages=steering, prepare_next_turn=hook, should_stop_after_turn=hook
    )
    context = AgentContext(tools=[echo_tool()])
    new = await run_agent_loop([user("go")], context, config, recorder, stream_fn=provider.stream_simple)

    assert new[-1].stop_reason == "error" and new[-1].error_message == "rate limited"
    assert not recorder.of("tool_execution_start")
    assert polls["hooks"] == 0
    assert (
        recorder.types()[-2:] == ["turn_end", "agent_end"] and recorder.of("turn_end")[0].tool_results == []
    )
    # polled once at run start (its message went into the first turn), never after the error
    assert polls["steering"] == 1 and [texts(m) for m in new[:2]] == ["go", "steer"]


async def test_must_not_raise_callbacks_propagate_out_of_the_loop(provider, model):
    provider.enqueue([text("never")])

    async def transform(messages, signal):
        raise KeyError("compaction bug")

    recorder = EventRecorder()
    with pytest.raises(KeyError, match="compaction bug"):
        await run_agent_loop(
            [user("go")],
            AgentContext(),
            loop_config(model, transform_context=transform),
            recorder,
            stream_fn=provider.stream_simple,
        )
    assert recorder.types() == ["agent_start", "turn_start", "message_start", "message_end"]


async def test_a_parallel_batch_settles_before_an_emit_failure_propagates(provider, model):
    release = asyncio.Event()
    finished: list[str] = []

    async def slow(params, signal, on_update):
        await release.wait()
        finished.append("slow")
        return text_result("slow")

    provider.enqueue([tool_call("echo", {"text": "x"}, id="1"), tool_call("slow", {}, id="2")])

    def emit(event):
        if event.type == "tool_execution_end" and event.tool_call_id == "1":
            release.set()
            raise RuntimeError("sink failed")

    context = AgentContext(tools=[echo_tool(), FakeTool("slow", slow)])
    with pytest.raises(RuntimeError, match="sink failed"):
        await run_agent_loop(
            [user("go")], context, loop_config(model), emit, stream_fn=provider.stream_simple
        )
    assert finished == ["slow"]


async def test_agent_loop_streams_events_and_the_result(provider, model):
    provider.enqueue([text("hi")])
    stream = agent_loop([user("go")], AgentContext(), loop_config(model), stream_fn=provider.stream_simple)
    events = [event async for event in stream]
    assert events[0].type == "agent_start" and events[-1].type == "agent_end"
    check_event_grammar(events)
    result = await stream.result()
    assert [m.role for m in result] == ["user", "assistant"]
    assert [event async for event in stream] == []  # a second iteration ends at once


async def test_agent_loop_raises_what_the_run_raised(provider, model):
    def convert(messages):
        raise RuntimeError("converter broke")

    config = loop_config(model)
    config.convert_to_llm = convert
    stream = agent_loop([user("go")], AgentContext(), config, stream_fn=provider.stream_simple)
    seen: list[str] = []
    with pytest.raises(RuntimeError, match="converter broke"):
        async for event in stream:
            seen.append(event.type)
    assert seen == ["agent_start", "turn_start", "message_start", "message_end"]
    with pytest.raises(RuntimeError, match="converter broke"):
        await stream.result()


async def test_agent_loop_keeps_running_when_the_consumer_stops(provider, model):
    provider.enqueue([text("first")])
    stream = agent_loop([user("go")], AgentContext(), loop_config(model), stream_fn=provider.stream_simple)
    async for _event in stream:
        break
    result = await asyncio.wait_for(stream.result(), 5)
    assert texts(result[-1]) == "first"


async def test_agent_loop_continue_checks_preconditions_synchronously(provider, model):
    with pytest.raises(ValueError, match="no messages"):
        agent_loop_continue(AgentContext(), loop_config(model), stream_fn=provider.stream_simple)
    provider.enqueue([text("resumed")])
    stream = agent_loop_continue(
        AgentContext(messages=[user("q")]), loop_config(model), stream_fn=provider.stream_simple
    )
    assert [m.role for m in await stream.result()] == ["assistant"]


async def test_two_loops_run_concurrently_without_interference(provider, model):
    other = fake_provider(id="other")
    provider.enqueue([text("one", chunks=5)])
    other.enqueue([text("two", chunks=5)])
    a, b = EventRecorder(), EventRecorder()
    first, second = await asyncio.gather(
        run_agent_loop([user("a")], AgentContext(), loop_config(model), a, stream_fn=provider.stream_simple),
        run_agent_loop(
            [user("b")], AgentContext(), loop_config(other.models[0]), b, stream_fn=other.stream_simple
        ),
    )
    assert [texts(m) for m in first] == ["a", "one"] and [texts(m) for m in second] == ["b", "two"]
    check_event_grammar(a.events)
    check_event_grammar(b.events)


async def test_message_update_snapshots_are_fresh_objects(provider, model):
    provider.enqueue([text("abcdef", chunks=3)])
    recorder = EventRecorder()
    new = await run_agent_loop(
        [user("go")], AgentContext(), loop_config(model), recorder, stream_fn=provider.stream_simple
    )
    updates = [e.message for e in recorder.of("message_update")]
    assert len({id(m) for m in updates}) == len(updates)
    assert all(m is not new[-1] for m in updates)
    assert recorder.of("message_end")[-1].message is new[-1]
