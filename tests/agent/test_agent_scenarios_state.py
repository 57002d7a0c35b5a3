"""Spec 20 §6 acceptance scenarios 27–30: custom messages, transform scope, copy-on-assign, default stream fn."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

import pytest
from agent_helpers import loop_config, request_texts, texts, user

from pi_app.agent import (
    Agent,
    AgentContext,
    AgentCustomMessage,
    get_default_stream_fn,
    message_class_for_role,
    register_message_role,
    run_agent_loop,
    set_default_stream_fn,
)
from pi_app.agent.testing import EventRecorder, slow_tool
from pi_app.ai.testing import fake_provider, text, tool_call


@dataclass
class Notification(AgentCustomMessage):
    text: str
    role: ClassVar[str] = "notification"


async def test_s27_custom_messages_stay_in_the_transcript_but_not_in_the_request(harness):
    note = Notification("build finished", timestamp=5)
    h = harness([text("ok")], messages=[note])
    await h.agent.prompt("hello")

    assert [m.role for m in h.calls[0].context.messages] == ["user"]
    assert request_texts(h.calls[0]) == ["hello"]
    assert h.agent.state.messages[0] is note
    assert [m.role for m in h.agent.state.messages] == ["notification", "user", "assistant"]


async def test_custom_message_as_prompt_with_a_converting_convert_to_llm(harness):
    def convert(messages):
        out = []
        for m in messages:
            if isinstance(m, Notification):
                out.append(user(f"[note] {m.text}"))
            elif m.role in ("user", "assistant", "toolResult"):
                out.append(m)
        return out

    h = harness([text("seen")], convert_to_llm=convert)
    await h.agent.prompt(Notification("deploy done"))
    assert request_texts(h.calls[0]) == ["[note] deploy done"]
    assert isinstance(h.agent.state.messages[0], Notification)


async def test_s28_transform_context_applies_to_the_request_only(provider, model):
    provider.enqueue([tool_call("slow", {}, id="1")], [text("done")])
    converted: list[int] = []
    working: list[int] = []

    async def keep_last_two(messages, signal):
        return messages[-2:]

    def convert(messages):
        converted.append(len(messages))
        return [m for m in messages if m.role in ("user", "assistant", "toolResult")]

    def prepare(turn):
        working.append(len(turn.context.messages))

    config = loop_config(model, transform_context=keep_last_two, prepare_next_turn=prepare)
    config.convert_to_llm = convert
    history = [user("a"), user("b"), user("c")]
    context = AgentContext("", list(history), [slow_tool("slow")])
    await run_agent_loop([user("d")], context, config, EventRecorder(), stream_fn=provider.stream_simple)

    assert converted == [2, 2]
    assert working == [6, 7]  # a b c d + assistant + result, then + final assistant
    assert request_texts(provider.calls[0]) == ["c", "d"]


async def test_s29_copy_on_assign(harness):
    h = harness([tool_call("slow", {}, id="1")], [text("ok")], tools=[slow_tool("slow", asyncio.Event())])
    state = h.agent.state
    transcript = [user("one")]
    state.messages = transcript
    assert state.messages == transcript and state.messages is not transcript
    transcript.append(user("not seen"))
    assert len(state.messages) == 1
    state.messages.append(user("two"))
    assert [texts(m) for m in state.messages] == ["one", "two"]

    tools = list(state.tools)
    state.tools = tools
    assert state.tools is not tools

    with pytest.raises(AttributeError):
        state.is_streaming = True  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.pending_tool_calls = frozenset({"x"})  # type: ignore[misc]

    observed = state.pending_tool_calls
    run = asyncio.create_task(h.agent.prompt("go"))
    while not state.pending_tool_calls:
        await asyncio.sleep(0)
    assert observed == frozenset() and state.pending_tool_calls == {"1"}
    during = state.pending_tool_calls
    h.agent.abort()
    await asyncio.wait_for(run, 5)
    assert during == {"1"} and state.pending_tool_calls == frozenset()


async def test_s30_default_stream_function(monkeypatch):
    monkeypatch.setattr("pi_app.agent.stream_fn._default_stream_fn", None)
    provider = fake_provider(script=[[text("from the default")]])
    with pytest.raises(RuntimeError, match="no default stream function configured"):
        Agent(initial_state={"model": provider.models[0]})

    set_default_stream_fn(provider.stream_simple)
    assert get_default_stream_fn() == provider.stream_simple
    agent = Agent(initial_state={"model": provider.models[0]})
    await agent.prompt("hi")
    assert texts(agent.state.messages[-1]) == "from the default"
    assert len(provider.calls) == 1


async def test_loop_entry_points_use_the_default_stream_function(monkeypatch, model):
    monkeypatch.setattr("pi_app.agent.stream_fn._default_stream_fn", None)
    with pytest.raises(RuntimeError, match="set_default_stream_fn"):
        await run_agent_loop([user("x")], AgentContext(), loop_config(model), EventRecorder())
    provider = fake_provider(script=[[text("ok")]])
    set_default_stream_fn(provider.stream_simple)
    new = await run_agent_loop([user("x")], AgentContext(), loop_config(model), EventRecorder())
    assert texts(new[-1]) == "ok"


def test_role_registry_for_upper_layers(monkeypatch):
    monkeypatch.setattr("pi_app.agent.types._MESSAGE_ROLES", {})
    assert message_class_for_role("notification") is None
    register_message_role("notification", Notification)
    assert message_class_for_role("notification") is Notification
    note = Notification("x", timestamp=3)
    assert (note.role, note.timestamp, note.text) == ("notification", 3, "x")
    assert AgentCustomMessage().role == "custom"
