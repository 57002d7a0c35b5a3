"""Spec 20 §6 acceptance scenarios 1–11: plain answers, tool calls, ordering, validation, hooks, terminate."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent_helpers import request_texts, texts

from pi_app.agent import AfterToolCallResult, BeforeToolCallResult
from pi_app.agent.testing import (
    FakeTool,
    check_event_grammar,
    echo_tool,
    raising_tool,
    slow_tool,
    terminate_tool,
    text_result,
)
from pi_app.ai import codec
from pi_app.ai.testing import stop, text, tool_call

READ_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def _tool_results(recorder: Any) -> list[Any]:
    return [e.message for e in recorder.of("message_end") if e.message.role == "toolResult"]


async def test_s01_plain_answer(harness):
    h = harness([text("Hi there", chunks=3)])
    await h.agent.prompt("Hello")

    types = h.recorder.types()
    updates = types.count("message_update")
    assert updates >= 3
    assert types == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        *["message_update"] * updates,
        "message_end",
        "turn_end",
        "agent_end",
    ]
    user, answer = h.agent.state.messages
    assert user.role == "user" and texts(user) == "Hello"
    assert answer.role == "assistant" and texts(answer) == "Hi there"
    turn_end = h.recorder.of("turn_end")[0]
    assert turn_end.message is answer and turn_end.tool_results == []
    assert h.recorder.of("agent_end")[0].messages == [user, answer]
    assert h.agent.state.is_streaming is False
    check_event_grammar(h.recorder.events)


async def test_s02_one_tool_call(harness):
    h = harness([tool_call("echo", {"text": "pong"}, id="c1")], [text("done")], tools=[echo_tool()])
    await h.agent.prompt("ping")

    assert h.recorder.summary() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "tool_execution_start:c1",
        "tool_execution_end:c1",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert h.recorder.of("tool_execution_end")[0].is_error is False
    first_turn_end = h.recorder.of("turn_end")[0]
    assert [m.tool_call_id for m in first_turn_end.tool_results] == ["c1"]
    assert len(h.calls) == 2
    second_request = h.calls[1].context.messages
    assert second_request[-1].role == "toolResult" and texts(second_request[-1]) == "pong"
    check_event_grammar(h.recorder.events)


async def test_s03_parallel_ends_in_completion_order_results_in_source_order(harness):
    journal: list[str] = []
    release = asyncio.Event()

    def fast(params, signal, on_update):
        release.set()  # the first (slow) call may finish only after this one
        return text_result("fast done")

    tools = [slow_tool("slow", release, journal=journal), FakeTool("fast", fast, journal=journal)]
    h = harness([tool_call("slow", {}, id="1"), tool_call("fast", {}, id="2")], [text("ok")], tools=tools)
    await h.agent.prompt("go")

    assert [e.tool_call_id for e in h.recorder.of("tool_execution_end")] == ["2", "1"]
    assert [m.tool_call_id for m in _tool_results(h.recorder)] == ["1", "2"]
    assert [m.tool_call_id for m in h.recorder.of("turn_end")[0].tool_results] == ["1", "2"]
    assert journal.index("start:2") < journal.index("end:1")  # ran concurrently
    check_event_grammar(h.recorder.events)


async def test_s03_blocked_first_call_ends_during_preflight(harness):
    async def block_first(ctx, signal):
        return BeforeToolCallResult(block=True, reason="no") if ctx.tool_call.id == "1" else None

    h = harness(
        [tool_call("echo", {"text": "a"}, id="1"), tool_call("echo", {"text": "b"}, id="2")],
        [text("ok")],
        tools=[echo_tool()],
        before_tool_call=block_first,
    )
    await h.agent.prompt("go")

    summary = h.recorder.summary()
    assert summary.index("tool_execution_end:1") < summary.index("tool_execution_start:2")
    assert [m.tool_call_id for m in _tool_results(h.recorder)] == ["1", "2"]
    check_event_grammar(h.recorder.events)


async def test_s04_a_sequential_tool_serialises_the_batch(harness):
    journal: list[str] = []
    tools = [slow_tool("slow", execution_mode="sequential", journal=journal), echo_tool(journal=journal)]
    h = harness(
        [tool_call("slow", {}, id="1"), tool_call("echo", {"text": "x"}, id="2")],
        [text("ok")],
        tools=tools,
        tool_execution="parallel",
    )
    await h.agent.prompt("go")

    assert journal == ["start:1", "end:1", "start:2", "end:2"]
    batch = [s for s in h.recorder.summary() if s.startswith(("tool_", "message_start:toolResult"))]
    assert batch == [
        "tool_execution_start:1",
        "tool_execution_end:1",
        "message_start:toolResult",
        "tool_execution_start:2",
        "tool_execution_end:2",
        "message_start:toolResult",
    ]
    check_event_grammar(h.recorder.events)


async def test_s05_validation_error_is_shown_to_the_model(harness):
    read = FakeTool("read", lambda p, s, u: text_result("contents"), parameters=READ_SCHEMA)
    h = harness(
        [tool_call("read", {"offset": 3}, id="1"), tool_call("read", {"path": {"nested": True}}, id="2")],
        [text("sorry")],
        tools=[read],
    )
    await h.agent.prompt("read it")

    assert read.calls == []
    ends = h.recorder.of("tool_execution_end")
    assert [e.is_error for e in ends] == [True, True]
    missing, wrong_type = (texts(m) for m in _tool_results(h.recorder))
    assert missing.startswith('Validation failed for tool "read":\n')
    assert "  - path: " in missing
    assert missing.endswith("Received arguments:\n" + json.dumps({"offset": 3}, indent=2))
    assert wrong_type.startswith('Validation failed for tool "read":\n')
    assert "  - path: must be string" in wrong_type
    assert wrong_type.endswith(json.dumps({"path": {"nested": True}}, indent=2))
    assert len(h.calls) == 2  # the model gets to retry
    check_event_grammar(h.recorder.events)


async def test_s06_unknown_tool(harness):
    h = harness([tool_call("nope", {}, id="1")], [text("ok")], tools=[echo_tool()])
    await h.agent.prompt("go")

    (result,) = _tool_results(h.recorder)
    assert texts(result) == "Tool nope not found" and result.is_error
    assert len(h.calls) == 2
    assert h.agent.state.messages[-1].role == "assistant"


async def test_s07_arguments_are_coerced(harness):
    schema = {"type": "object", "properties": {"count": {"type": "number"}}, "required": ["count"]}
    counter = FakeTool("count", lambda p, s, u: text_result(str(p["count"] * 2)), parameters=schema)
    h = harness([tool_call("count", {"count": "42"}, id="1")], [text("ok")], tools=[counter])
    await h.agent.prompt("go")

    assert counter.calls[0].params == {"count": 42}
    assert texts(_tool_results(h.recorder)[0]) == "84"
    # the raw block (and the events built from it) keep what the model sent
    assert h.recorder.of("tool_execution_start")[0].args == {"count": "42"}


async def test_s08_blocked_by_hook(harness):
    async def deny(ctx, signal):
        return BeforeToolCallResult(
            block=True, reason="bash is disabled" if ctx.tool_call.id == "1" else None
        )

    bash = echo_tool("bash")
    h = harness(
        [tool_call("bash", {"text": "rm"}, id="1"), tool_call("bash", {"text": "ls"}, id="2")],
        [text("ok")],
        tools=[bash],
        before_tool_call=deny,
    )
    await h.agent.prompt("go")

    assert bash.calls == []
    with_reason, without_reason = _tool_results(h.recorder)
    assert texts(with_reason) == "bash is disabled" and with_reason.is_error
    assert texts(without_reason) == "Tool execution was blocked" and without_reason.is_error
    assert with_reason.details == {}


async def test_s09_before_hook_mutation_is_not_revalidated(harness):
    schema = {"type": "object", "properties": {"value": {"type": "string"}}}
    tool = FakeTool("set", lambda p, s, u: text_result(repr(p["value"])), parameters=schema)

    async def mutate(ctx, signal):
        ctx.args["value"] = 123
        return None

    h = harness(
        [tool_call("set", {"value": "a"}, id="1")], [text("ok")], tools=[tool], before_tool_call=mutate
    )
    await h.agent.prompt("go")

    assert tool.calls[0].params == {"value": 123}
    assert h.recorder.of("tool_execution_start")[0].args == {"value": "a"}


async def test_s10_after_hook_can_clear_the_error_flag(harness):
    async def downgrade(ctx, signal):
        assert ctx.is_error and texts(ctx.result) == "no matches"
        return AfterToolCallResult(is_error=False)

    h = harness(
        [tool_call("grep", {}, id="1")],
        [text("ok")],
        tools=[raising_tool("grep", "no matches")],
        after_tool_call=downgrade,
    )
    await h.agent.prompt("go")

    (result,) = _tool_results(h.recorder)
    assert texts(result) == "no matches" and result.is_error is False
    assert h.recorder.of("tool_execution_end")[0].is_error is False


async def test_s10_after_hook_failure_becomes_the_result(harness):
    async def audit(ctx, signal):
        if ctx.tool_call.id == "1":
            raise RuntimeError("audit down")
        return None

    h = harness(
        [tool_call("echo", {"text": "a"}, id="1"), tool_call("echo", {"text": "b"}, id="2")],
        [text("ok")],
        tools=[echo_tool()],
        after_tool_call=audit,
    )
    await h.agent.prompt("go")

    first, second = _tool_results(h.recorder)
    assert texts(first) == "audit down" and first.is_error
    assert texts(second) == "b" and not second.is_error
    assert len(h.calls) == 2


async def test_s11_terminate_single_call_ends_the_run(harness):
    h = harness([tool_call("finish", {}, id="1")], [text("never")], tools=[terminate_tool()])
    await h.agent.prompt("go")

    assert len(h.calls) == 1
    assert h.recorder.types().count("turn_end") == 1
    assert [m.role for m in h.recorder.of("agent_end")[0].messages] == ["user", "assistant", "toolResult"]
    end = h.recorder.of("tool_execution_end")[0]
    assert end.result.terminate is True
    persisted = codec.to_dict(_tool_results(h.recorder)[0])
    assert "terminate" not in persisted and "terminate" not in json.dumps(persisted)
    check_event_grammar(h.recorder.events)


async def test_s11_terminate_needs_every_call(harness):
    h = harness(
        [tool_call("finish", {}, id="1"), tool_call("echo", {"text": "x"}, id="2")],
        [text("ok")],
        tools=[terminate_tool(), echo_tool()],
    )
    await h.agent.prompt("go")
    assert len(h.calls) == 2


async def test_s11_after_hook_can_terminate(harness):
    async def stop_here(ctx, signal):
        return AfterToolCallResult(terminate=True)

    h = harness(
        [tool_call("echo", {"text": "x"}, id="1")],
        [text("never")],
        tools=[echo_tool()],
        after_tool_call=stop_here,
    )
    await h.agent.prompt("go")
    assert len(h.calls) == 1
    assert request_texts(h.calls[0]) == ["go"]


async def test_s11_blocking_hook_can_terminate(harness):
    async def block(ctx, signal):
        return BeforeToolCallResult(block=True, reason="stop", terminate=True)

    h = harness(
        [tool_call("echo", {"text": "x"}, id="1")],
        [text("never")],
        tools=[echo_tool()],
        before_tool_call=block,
    )
    await h.agent.prompt("go")
    assert len(h.calls) == 1


async def test_s22_length_truncated_calls_are_not_executed(harness):
    tool = echo_tool()
    h = harness(
        [tool_call("echo", {"text": "partial"}, id="1"), stop("length")], [text("retry")], tools=[tool]
    )
    await h.agent.prompt("go")

    assert tool.calls == []
    (result,) = _tool_results(h.recorder)
    assert result.is_error and "output token limit" in texts(result)
    assert len(h.calls) == 2
    check_event_grammar(h.recorder.events)
