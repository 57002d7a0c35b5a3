"""Property test: random scripts through an Agent (and the bare loop) always produce a well-formed run.

Each example draws a script of assistant turns (text, thinking, tool calls to good, failing,
unknown, terminating, cooperative-waiting and updating tools, invalid arguments, provider errors,
length truncation), a tool execution strategy, queue modes, a point at which to abort, points at
which to steer or queue a follow-up, and whether a before-hook blocks some calls. It then checks the
grammar invariants I1–I6 with ``check_event_grammar``, I7 (``is_streaming`` true for every event),
that no request reaches the provider after an abort, and that no queued message is lost.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_helpers import user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_app.agent import (
    Agent,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCallResult,
    default_convert_to_llm,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_app.agent.testing import (
    EventRecorder,
    FakeTool,
    check_event_grammar,
    echo_tool,
    raising_tool,
    terminate_tool,
    text_result,
    updating_tool,
)
from pi_app.ai.event_stream import AbortController, AbortError
from pi_app.ai.testing import error, fake_provider, stop, text, thinking, tool_call

TOOL_CALLS = {
    "echo": lambda: tool_call("echo", {"text": "hi"}),
    "bad_args": lambda: tool_call("echo", {"wrong": 1}),
    "fail": lambda: tool_call("fail", {}),
    "nope": lambda: tool_call("nope", {}),
    "finish": lambda: tool_call("finish", {}),
    "wait": lambda: tool_call("wait", {}),
    "progress": lambda: tool_call("progress", {}),
    "serial": lambda: tool_call("serial", {}),
}


async def _cooperative_wait(params: Any, signal: Any, on_update: Any) -> Any:
    for _ in range(3):
        if signal is not None and signal.aborted:
            raise AbortError()
        await asyncio.sleep(0)
    return text_result("waited")


def _tools() -> list[Any]:
    return [
        echo_tool(),
        raising_tool("fail", "it broke"),
        terminate_tool("finish"),
        FakeTool("wait", _cooperative_wait),
        updating_tool("progress", ("a", "b", "c")),
        echo_tool("serial_echo"),
        FakeTool("serial", lambda p, s, u: text_result("serial"), execution_mode="sequential"),
    ]


step = st.one_of(
    st.builds(lambda n: text("x" * n, chunks=2), st.integers(1, 6)),
    st.just(thinking("hmm")),
    st.sampled_from(sorted(TOOL_CALLS)).map(lambda name: TOOL_CALLS[name]()),
)
ending = st.sampled_from([None, None, None, "error", "length"])
turn = st.tuples(st.lists(step, min_size=0, max_size=4), ending).map(
    lambda t: [*t[0], *([error("boom")] if t[1] == "error" else [stop("length")] if t[1] == "length" else [])]
)

scenario = st.fixed_dictionaries(
    {
        "turns": st.lists(turn, min_size=1, max_size=5),
        "tool_execution": st.sampled_from(["parallel", "sequential"]),
        "steering_mode": st.sampled_from(["one-at-a-time", "all"]),
        "follow_up_mode": st.sampled_from(["one-at-a-time", "all"]),
        "abort_at": st.one_of(st.none(), st.integers(0, 40)),
        "steer_at": st.lists(st.integers(0, 40), max_size=3),
        "follow_up_at": st.lists(st.integers(0, 40), max_size=2),
        "block_echo": st.booleans(),
        "use_continue": st.booleans(),
    }
)


async def _run(s: dict[str, Any]) -> None:
    provider = fake_provider(script=s["turns"])

    async def block(ctx: Any, signal: Any) -> Any:
        return BeforeToolCallResult(block=True) if ctx.tool_call.name == "echo" else None

    agent = Agent(
        stream_fn=provider.stream_simple,
        initial_state={
            "model": provider.models[0],
            "tools": _tools(),
            "messages": [user("earlier")] if s["use_continue"] else [],
        },
        tool_execution=s["tool_execution"],
        steering_mode=s["steering_mode"],
        follow_up_mode=s["follow_up_mode"],
        before_tool_call=block if s["block_echo"] else None,
    )
    recorder = EventRecorder()
    streaming_flags: list[bool] = []
    queued: list[Any] = []
    calls_at_abort: list[int] = []

    def driver(event: Any, signal: Any) -> None:
        index = len(recorder.events) - 1
        streaming_flags.append(agent.state.is_streaming)
        for _ in range(s["steer_at"].count(index)):
            queued.append(user(f"steer {index}"))
            agent.steer(queued[-1])
        for _ in range(s["follow_up_at"].count(index)):
            queued.append(user(f"follow-up {index}"))
            agent.follow_up(queued[-1])
        if s["abort_at"] == index and event.type != "agent_end":
            agent.abort()
            calls_at_abort.append(len(provider.calls))

    agent.subscribe(recorder)
    agent.subscribe(driver)
    if s["use_continue"]:
        await asyncio.wait_for(agent.continue_(), 10)
    else:
        await asyncio.wait_for(agent.prompt("go"), 10)

    check_event_grammar(recorder.events)
    assert all(streaming_flags) and not agent.state.is_streaming  # I7
    prior = 1 if s["use_continue"] else 0
    assert agent.state.messages[prior:] == recorder.of("agent_end")[0].messages
    assert agent.state.pending_tool_calls == frozenset() and agent.state.streaming_message is None
    if calls_at_abort:
        assert len(provider.calls) == calls_at_abort[0]  # no request after the abort
    delivered = [m for m in agent.state.messages if m in queued]
    steering, follow_ups = agent.queued_messages()
    assert sorted(map(id, delivered + steering + follow_ups)) == sorted(map(id, queued))  # nothing lost


async def _run_bare_loop(s: dict[str, Any]) -> None:
    """The same scripts through ``run_agent_loop`` with plain callbacks instead of an Agent."""
    provider = fake_provider(script=s["turns"])
    controller = AbortController()
    steering: list[Any] = []
    follow_ups: list[Any] = []
    recorder = EventRecorder()
    calls_at_abort: list[int] = []

    def emit(event: Any) -> None:
        recorder(event)
        index = len(recorder.events) - 1
        steering.extend(user(f"steer {index}") for _ in range(s["steer_at"].count(index)))
        follow_ups.extend(user(f"follow-up {index}") for _ in range(s["follow_up_at"].count(index)))
        if s["abort_at"] == index and event.type != "agent_end":
            controller.abort()
            calls_at_abort.append(len(provider.calls))

    def drain(queue: list[Any], mode: str) -> list[Any]:
        taken = queue[:] if mode == "all" else queue[:1]
        del queue[: len(taken)]
        return taken

    config = AgentLoopConfig(
        model=provider.models[0],
        convert_to_llm=default_convert_to_llm,
        get_steering_messages=lambda: drain(steering, s["steering_mode"]),
        get_follow_up_messages=lambda: drain(follow_ups, s["follow_up_mode"]),
        tool_execution=s["tool_execution"],
    )
    context = AgentContext("system", [user("earlier")] if s["use_continue"] else [], _tools())
    if s["use_continue"]:
        run = run_agent_loop_continue(context, config, emit, controller.signal, provider.stream_simple)
    else:
        run = run_agent_loop([user("go")], context, config, emit, controller.signal, provider.stream_simple)
    new_messages = await asyncio.wait_for(run, 10)

    check_event_grammar(recorder.events)
    assert new_messages == recorder.of("agent_end")[0].messages
    assert len(context.messages) == (1 if s["use_continue"] else 0)  # the caller's context is untouched
    if calls_at_abort:
        assert len(provider.calls) == calls_at_abort[0]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_random_scripts_keep_the_event_grammar(s: dict[str, Any]) -> None:
    asyncio.run(_run(s))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_random_scripts_keep_the_event_grammar_in_the_bare_loop(s: dict[str, Any]) -> None:
    asyncio.run(_run_bare_loop(s))
