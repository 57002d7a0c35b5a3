"""Spec 20 §6 acceptance scenarios 12–18: steering, follow-ups, queue modes, continue, turn hooks."""

from __future__ import annotations

from typing import Any

import pytest
from agent_helpers import assistant, loop_config, request_texts, texts, user

from pi_app.agent import (
    AgentContext,
    AgentError,
    AgentLoopTurnUpdate,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_app.agent.testing import EventRecorder, FakeTool, check_event_grammar, echo_tool, text_result
from pi_app.ai.testing import fake_model, text, tool_call


def _turns(recorder: EventRecorder) -> list[list[str]]:
    """The summary split at each turn_start, without agent/turn markers."""
    turns: list[list[str]] = []
    for item in recorder.summary():
        if item == "turn_start":
            turns.append([])
        elif item not in ("turn_end", "agent_start", "agent_end"):
            turns[-1].append(item)
    return turns


def _user_texts(recorder: EventRecorder) -> list[str]:
    return [texts(m) for m in recorder.ended_messages() if m.role == "user"]


async def test_s12_steering_waits_for_the_whole_batch(harness):
    holder: dict[str, Any] = {}

    def first(params, signal, on_update):
        holder["agent"].steer(user("change of plan"))
        return text_result("one")

    h = harness(
        [tool_call("first", {}, id="1"), tool_call("second", {"text": "two"}, id="2")],
        [text("ok")],
        tools=[FakeTool("first", first), echo_tool("second")],
        tool_execution="sequential",
    )
    holder["agent"] = h.agent
    await h.agent.prompt("go")

    second_tool = h.agent.state.tools[1]
    assert len(second_tool.calls) == 1  # never skipped
    summary = h.recorder.summary()
    results = [i for i, s in enumerate(summary) if s == "message_start:toolResult"]
    steering = [i for i, s in enumerate(summary) if s == "message_start:user"][1]
    assert len(results) == 2 and max(results) < steering
    assert "change of plan" in request_texts(h.calls[1])
    check_event_grammar(h.recorder.events)


async def test_s13_follow_up_runs_after_the_final_answer(harness):
    h = harness([text("first answer")], [text("second answer")])

    queued: list[bool] = []

    def queue_follow_up(event, signal):
        if event.type == "message_start" and event.message.role == "assistant" and not queued:
            queued.append(True)
            h.agent.follow_up(user("and another thing"))

    h.agent.subscribe(queue_follow_up)
    await h.agent.prompt("go")

    assert _turns(h.recorder)[1] == [
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
    ]
    assert h.recorder.types()[-1] == "agent_end"
    assert [texts(m) for m in h.agent.state.messages] == [
        "go",
        "first answer",
        "and another thing",
        "second answer",
    ]
    check_event_grammar(h.recorder.events)


@pytest.mark.parametrize("mode", ["one-at-a-time", "all"])
async def test_s14_queue_modes(harness, mode):
    h = harness([text("a1")], [text("a2")], [text("a3")], steering_mode=mode)
    for i in (1, 2, 3):
        h.agent.steer(user(f"s{i}"))
    await h.agent.prompt("go")

    turns = _turns(h.recorder)
    users_per_turn = [sum(1 for s in turn if s == "message_start:user") for turn in turns]
    if mode == "one-at-a-time":
        assert users_per_turn == [2, 1, 1]  # prompt + s1, then s2, then s3
        assert len(h.calls) == 3
    else:
        assert users_per_turn == [4]
        assert len(h.calls) == 1
    assert _user_texts(h.recorder) == ["go", "s1", "s2", "s3"]
    assert not h.agent.has_queued_messages()
    check_event_grammar(h.recorder.events)


async def test_s15_continue_from_assistant_tail_delivers_steering_one_at_a_time(harness, model):
    h = harness([text("r1")], [text("r2")], messages=[user("q"), assistant("a", model)])
    h.agent.steer(user("s1"))
    h.agent.steer(user("s2"))
    await h.agent.continue_()

    assert len(h.calls) == 2
    assert [m.role for m in h.agent.state.messages[-4:]] == ["user", "assistant", "user", "assistant"]
    assert [texts(m) for m in h.agent.state.messages] == ["q", "a", "s1", "r1", "s2", "r2"]
    assert request_texts(h.calls[0]) == ["q", "a", "s1"]
    check_event_grammar(h.recorder.events)


async def test_s15_continue_from_assistant_tail_delivers_a_follow_up(harness, model):
    h = harness([text("answer")], messages=[user("q"), assistant("a", model)])
    h.agent.follow_up(user("more"))
    await h.agent.continue_()
    assert [texts(m) for m in h.agent.state.messages] == ["q", "a", "more", "answer"]


async def test_s15_continue_from_assistant_tail_without_queue_raises(harness, model):
    h = harness([text("never")], messages=[user("q"), assistant("a", model)])
    with pytest.raises(AgentError, match="^Cannot continue from message role: assistant$"):
        await h.agent.continue_()
    assert h.recorder.events == []
    assert h.calls == []


async def test_continue_preconditions(harness):
    h = harness()
    with pytest.raises(AgentError, match="No messages to continue from"):
        await h.agent.continue_()
    h.agent.state.model = None
    with pytest.raises(AgentError, match="No model configured"):
        await h.agent.prompt("x")
    assert h.recorder.events == []


async def test_s16_loop_continue_from_user_tail(provider, model):
    provider.enqueue([text("answer")])
    messages = [user("q")]
    context = AgentContext(system_prompt="sys", messages=messages)
    recorder = EventRecorder()
    new = await run_agent_loop_continue(
        context, loop_config(model), recorder, stream_fn=provider.stream_simple
    )

    assert [m.role for m in new] == ["assistant"]
    assert not [e for e in recorder.of("message_start", "message_end") if e.message.role == "user"]
    assert messages == [user("q")] and context.messages is messages
    assert recorder.of("agent_end")[0].messages == new
    check_event_grammar(recorder.events)


async def test_loop_continue_preconditions(provider, model):
    recorder = EventRecorder()
    with pytest.raises(ValueError, match="Cannot continue: no messages in context"):
        await run_agent_loop_continue(
            AgentContext(), loop_config(model), recorder, stream_fn=provider.stream_simple
        )
    tail = AgentContext(messages=[user("q"), assistant("a")])
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        await run_agent_loop_continue(tail, loop_config(model), recorder, stream_fn=provider.stream_simple)
    assert recorder.events == []


async def test_s17_should_stop_after_turn(provider, model):
    provider.enqueue([tool_call("echo", {"text": "x"}, id="1")], [text("never")])
    polls = {"steering": 0, "follow_up": 0}
    seen_roles: list[list[str]] = []

    async def steering():
        polls["steering"] += 1
        return []

    async def follow_ups():
        polls["follow_up"] += 1
        return []

    def stop(turn):
        seen_roles.append([m.role for m in turn.context.messages])
        return True

    recorder = EventRecorder()
    config = loop_config(
        model,
        get_steering_messages=steering,
        get_follow_up_messages=follow_ups,
        should_stop_after_turn=stop,
    )
    context = AgentContext(tools=[echo_tool()])
    await run_agent_loop([user("go")], context, config, recorder, stream_fn=provider.stream_simple)

    assert recorder.summary() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "tool_execution_start:1",
        "tool_execution_end:1",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "agent_end",
    ]
    assert polls == {"steering": 1, "follow_up": 0}
    assert seen_roles == [["user", "assistant", "toolResult"]]
    assert len(provider.calls) == 1


async def test_s17_agent_keeps_queued_messages_when_stopped(harness):
    h = harness([text("one")], should_stop_after_turn=lambda ctx, signal: True)

    def queue_during_run(event, signal):
        if event.type == "turn_end":
            h.agent.steer(user("later"))

    h.agent.subscribe(queue_during_run)
    await h.agent.prompt("go")
    assert h.agent.queued_steering == (user("later"),)
    assert [texts(m) for m in h.agent.state.messages] == ["go", "one"]


async def test_s18_prepare_next_turn_replaces_context_model_and_reasoning(provider, model):
    other = fake_model("other-model", provider=model.provider)
    provider.enqueue(
        [tool_call("echo", {"text": "x"}, id="1")],
        [tool_call("echo", {"text": "y"}, id="2")],
        [text("done")],
    )
    turns: list[tuple[str, list[str]]] = []

    def prepare(turn):
        turns.append((turn.context.system_prompt, [m.role for m in turn.context.messages]))
        if len(turns) == 1:
            context = AgentContext("second prompt", list(turn.context.messages), turn.context.tools)
            return AgentLoopTurnUpdate(context=context, thinking_level="off")
        if len(turns) == 2:
            return AgentLoopTurnUpdate(model=other, thinking_level="low")
        return None

    config = loop_config(model, prepare_next_turn=prepare)
    config.stream_options.reasoning = "high"
    context = AgentContext("first prompt", [], [echo_tool()])
    new = await run_agent_loop(
        [user("go")], context, config, EventRecorder(), stream_fn=provider.stream_simple
    )

    first, second, third = provider.calls
    assert (first.context.system_prompt, first.options.reasoning, first.model.id) == (
        "first prompt",
        "high",
        model.id,
    )
    assert (second.context.system_prompt, second.options.reasoning, second.model.id) == (
        "second prompt",
        None,
        model.id,
    )
    assert (third.context.system_prompt, third.options.reasoning, third.model.id) == (
        "second prompt",
        "low",
        "other-model",
    )
    # appends after the replacement land in the new context; new messages keep accumulating
    assert turns[1] == ("second prompt", ["user", "assistant", "toolResult", "assistant", "toolResult"])
    assert [m.role for m in new] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert context.system_prompt == "first prompt" and context.messages == []


async def test_agent_prepare_next_turn_variants(harness):
    seen: list[Any] = []

    def with_context(turn, signal):
        seen.append(("ctx", turn.message.role, signal is not None))

    def plain(signal):
        seen.append(("plain", signal is not None))

    h = harness([text("a")], prepare_next_turn_with_context=with_context, prepare_next_turn=plain)
    await h.agent.prompt("go")
    assert seen == [("ctx", "assistant", True)]  # the context variant wins

    h.agent.prepare_next_turn_with_context = None
    h.provider.enqueue([text("b")])
    await h.agent.prompt("again")
    assert seen[-1] == ("plain", True)
