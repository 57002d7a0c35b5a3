"""The tool pipeline beyond the numbered scenarios: grace timeout, updates, shims, results, strategy."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from agent_helpers import texts

from pi_app.agent import AfterToolCallResult, AgentToolResult
from pi_app.agent.testing import (
    FakeTool,
    abortable_tool,
    check_event_grammar,
    echo_tool,
    stubborn_tool,
    text_result,
    updating_tool,
)
from pi_app.ai.testing import text, tool_call
from pi_app.ai.types import TextContent

DEADLINE = 5.0


def _results(h: Any) -> list[Any]:
    return [m for m in h.agent.state.messages if m.role == "toolResult"]


async def _abort_when_tool_runs(h: Any) -> None:
    while not h.agent.state.pending_tool_calls:
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    h.agent.abort()


async def test_a_tool_that_ignores_abort_cannot_wedge_the_agent(harness):
    after_calls: list[str] = []

    async def after(ctx, signal):
        after_calls.append(ctx.tool_call.id)

    release = asyncio.Event()
    h = harness(
        [tool_call("stubborn", {}, id="1")],
        tools=[stubborn_tool("stubborn", release)],
        tool_abort_grace_s=0.05,
        after_tool_call=after,
    )
    run = asyncio.create_task(h.agent.prompt("go"))
    await _abort_when_tool_runs(h)
    await asyncio.wait_for(run, DEADLINE)

    (result,) = _results(h)
    assert texts(result) == "Operation aborted" and result.is_error
    assert after_calls == []  # the after-hook is skipped for a cancelled tool
    assert h.agent.state.messages[-1].stop_reason == "aborted"
    check_event_grammar(h.recorder.events)


async def test_without_grace_the_agent_waits_for_the_tool(harness):
    release = asyncio.Event()
    h = harness(
        [tool_call("stubborn", {}, id="1")],
        tools=[stubborn_tool("stubborn", release)],
        tool_abort_grace_s=None,
    )
    run = asyncio.create_task(h.agent.prompt("go"))
    await _abort_when_tool_runs(h)
    await asyncio.sleep(0.1)
    assert not run.done()
    release.set()
    await asyncio.wait_for(run, DEADLINE)
    assert texts(_results(h)[0]) == "stubborn done"


async def test_a_cooperative_aborted_tool_is_finalized_normally(harness):
    after_calls: list[tuple[str, bool]] = []

    async def after(ctx, signal):
        after_calls.append((texts(ctx.result), ctx.is_error))

    h = harness([tool_call("wait", {}, id="1")], tools=[abortable_tool("wait")], after_tool_call=after)
    run = asyncio.create_task(h.agent.prompt("go"))
    await _abort_when_tool_runs(h)
    await asyncio.wait_for(run, DEADLINE)
    assert after_calls == [("Operation aborted", True)]


async def test_every_running_parallel_tool_gets_the_signal(harness):
    h = harness(
        [tool_call("w1", {}, id="1"), tool_call("w2", {}, id="2")],
        tools=[abortable_tool("w1"), abortable_tool("w2")],
    )
    run = asyncio.create_task(h.agent.prompt("go"))
    while len(h.agent.state.pending_tool_calls) < 2:
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    h.agent.abort()
    await asyncio.wait_for(run, DEADLINE)
    assert [texts(m) for m in _results(h)] == ["Operation aborted", "Operation aborted"]


async def test_updates_from_a_worker_thread_arrive_in_order_before_the_end(harness):
    def work(on_update):
        assert threading.current_thread() is not threading.main_thread()
        for i in range(5):
            on_update(text_result(f"step {i}"))
        return "finished"

    async def threaded(params, signal, on_update):
        return text_result(await asyncio.to_thread(work, on_update))

    h = harness([tool_call("thread", {}, id="1")], [text("ok")], tools=[FakeTool("thread", threaded)])
    await h.agent.prompt("go")

    updates = [texts(e.partial_result) for e in h.recorder.of("tool_execution_update")]
    assert updates == [f"step {i}" for i in range(5)]
    check_event_grammar(h.recorder.events)


async def test_updates_keep_their_order_behind_a_slow_listener(harness):
    h = harness(
        [tool_call("progress", {}, id="1")],
        [text("ok")],
        tools=[updating_tool("progress", [str(i) for i in range(10)])],
    )

    async def slow(event, signal):
        if event.type == "tool_execution_update":
            await asyncio.sleep(0.001 * (10 - int(texts(event.partial_result))))

    h.agent.subscribe(slow)
    await h.agent.prompt("go")
    assert [texts(e.partial_result) for e in h.recorder.of("tool_execution_update")] == [
        str(i) for i in range(10)
    ]
    check_event_grammar(h.recorder.events)


async def test_prepare_arguments_shim_runs_before_validation(harness):
    schema = {
        "type": "object",
        "properties": {"edits": {"type": "array", "items": {"type": "object"}}},
        "required": ["edits"],
    }

    def legacy_to_edits(raw):
        if "oldText" in raw:
            raw = {"edits": [{"oldText": raw.pop("oldText"), "newText": raw.pop("newText")}]}
        return raw

    edit = FakeTool(
        "edit",
        lambda p, s, u: text_result(f"{len(p['edits'])} edit(s)"),
        parameters=schema,
        prepare_arguments=legacy_to_edits,
    )
    h = harness([tool_call("edit", {"oldText": "a", "newText": "b"}, id="1")], [text("ok")], tools=[edit])
    await h.agent.prompt("go")

    assert edit.calls[0].params == {"edits": [{"oldText": "a", "newText": "b"}]}
    assert h.recorder.of("tool_execution_start")[0].args == {"oldText": "a", "newText": "b"}
    assert h.agent.state.messages[1].content[0].arguments == {"oldText": "a", "newText": "b"}


async def test_failures_before_execute_become_error_results(harness):
    def broken_shim(raw):
        raise ValueError("cannot upgrade arguments")

    async def broken_hook(ctx, signal):
        if ctx.tool_call.id == "2":
            raise RuntimeError("policy engine offline")

    tools = [FakeTool("shim", lambda p, s, u: text_result("x"), prepare_arguments=broken_shim), echo_tool()]
    h = harness(
        [tool_call("shim", {}, id="1"), tool_call("echo", {"text": "a"}, id="2")],
        [text("ok")],
        tools=tools,
        before_tool_call=broken_hook,
    )
    await h.agent.prompt("go")
    assert [(texts(m), m.is_error) for m in _results(h)] == [
        ("cannot upgrade arguments", True),
        ("policy engine offline", True),
    ]


async def test_result_shapes(harness):
    class Silent(Exception):
        pass

    def raise_silently(p, s, u):
        raise Silent()

    tools = [
        FakeTool("none", lambda p, s, u: None),
        FakeTool("silent", raise_silently),
        FakeTool(
            "unlock",
            lambda p, s, u: AgentToolResult(content=[TextContent(text="ok")], added_tool_names=["grep"]),
        ),
        FakeTool("nothing_new", lambda p, s, u: AgentToolResult(content=None, added_tool_names=[])),  # type: ignore[arg-type]
    ]
    h = harness(
        [tool_call(t.name, {}, id=t.name) for t in tools],
        [text("ok")],
        tools=tools,
    )
    await h.agent.prompt("go")

    none, silent, unlock, nothing_new = _results(h)
    assert (none.content, none.is_error, none.details) == ([], False, None)
    assert (texts(silent), silent.is_error, silent.details) == ("Silent", True, {})
    assert unlock.added_tool_names == ["grep"]
    assert nothing_new.added_tool_names is None and nothing_new.content == []


async def test_after_hook_overrides_replace_whole_values(harness):
    async def redact(ctx, signal):
        return AfterToolCallResult(content=[TextContent(text="[redacted]")], details={"redacted": True})

    tool = FakeTool(
        "secret",
        lambda p, s, u: AgentToolResult(
            content=[TextContent(text="hunter2")], details={"raw": 1}, added_tool_names=["x"]
        ),
    )
    h = harness([tool_call("secret", {}, id="1")], [text("ok")], tools=[tool], after_tool_call=redact)
    await h.agent.prompt("go")
    (result,) = _results(h)
    assert texts(result) == "[redacted]" and result.details == {"redacted": True}
    assert result.added_tool_names == ["x"] and not result.is_error
    assert "hunter2" not in str(h.calls[1].context.messages)


@pytest.mark.parametrize(
    ("global_mode", "tool_mode", "expect_overlap"),
    [("parallel", None, True), ("parallel", "parallel", True), ("sequential", "parallel", False)],
)
async def test_strategy_choice(harness, global_mode, tool_mode, expect_overlap):
    journal: list[str] = []

    async def pause(p, s, u):
        await asyncio.sleep(0.001)
        return text_result("ok")

    tools = [
        FakeTool("a", pause, execution_mode=tool_mode, journal=journal),
        FakeTool("b", pause, journal=journal),
    ]
    h = harness(
        [tool_call("a", {}, id="1"), tool_call("nope", {}, id="x"), tool_call("b", {}, id="2")],
        [text("ok")],
        tools=tools,
        tool_execution=global_mode,
    )
    await h.agent.prompt("go")
    overlap = journal.index("start:2") < journal.index("end:1")
    assert overlap is expect_overlap


async def test_hooks_see_the_validated_args_the_live_context_and_the_signal(harness):
    seen: dict[str, Any] = {}

    async def before(ctx, signal):
        seen["before"] = (ctx.args, ctx.tool_call.arguments, [m.role for m in ctx.context.messages], signal)

    async def after(ctx, signal):
        seen["after"] = (ctx.args, texts(ctx.result), ctx.is_error, signal)

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tool = FakeTool("n", lambda p, s, u: text_result(str(p["n"])), parameters=schema)
    h = harness(
        [tool_call("n", {"n": "7"}, id="1")],
        [text("ok")],
        tools=[tool],
        before_tool_call=before,
        after_tool_call=after,
    )
    await h.agent.prompt("go")

    args, raw, roles, signal = seen["before"]
    assert args == {"n": 7} and raw == {"n": "7"} and roles == ["user", "assistant"] and signal is not None
    assert seen["after"][:3] == ({"n": 7}, "7", False) and seen["after"][3] is signal
