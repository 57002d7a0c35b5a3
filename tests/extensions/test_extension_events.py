"""Event dispatch and combination rules, also through a real Agent (spec 40 §2.7, R-EXT-09..17,
scenarios 4-8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_app.agent.agent import Agent
from pi_app.agent.testing import FakeTool, echo_tool
from pi_app.agent.types import AgentToolResult
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.ai.types import TextContent, ToolResultMessage, UserMessage
from pi_app.coding.extensions.hooks import (
    AgentEventForwarder,
    after_tool_call_hook,
    before_tool_call_hook,
    transform_context_hook,
)
from pi_app.coding.extensions.types import (
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchResult,
    ToolCallResult,
    ToolResultPatch,
)

from .helpers import FakeHost, load


def bash_tool() -> FakeTool:
    return FakeTool(
        "bash",
        lambda params, signal, on_update: AgentToolResult(
            [TextContent(f"ran {params['command']}")], {"exit": 0}
        ),
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    )


def agent_for(runner: Any, tools: list[Any], *turns: list[Any]) -> tuple[Agent, Any, list[Any]]:
    provider = fake_provider(script=list(turns))
    seen: list[Any] = []
    forwarder = AgentEventForwarder(lambda: runner)
    agent = Agent(
        stream_fn=provider.fake.stream_simple,
        initial_state={"model": provider.models[0], "tools": tools},
        before_tool_call=before_tool_call_hook(lambda: runner),
        after_tool_call=after_tool_call_hook(lambda: runner),
        transform_context=transform_context_hook(lambda: runner),
    )

    async def listen(event: Any, signal: Any = None) -> None:
        seen.append(event)
        await forwarder(event, signal)

    agent.subscribe(listen)
    return agent, provider, seen


def tool_results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


async def test_tool_call_mutation_then_block(tmp_path: Path) -> None:
    """Scenario 4: B sees A's rewrite, the command never runs, no tool_result event fires."""
    seen_by_b: list[str] = []
    fired: list[str] = []

    def a(pi):
        @pi.on("tool_call")
        def rewrite(event, ctx):
            if event.tool_name == "bash":
                event.input["command"] = event.input["command"].replace("/tmp/x", "/tmp/x --verbose")

    def b(pi):
        @pi.on("tool_call")
        def block(event, ctx):
            seen_by_b.append(event.input["command"])
            if "rm -rf" in event.input["command"]:
                return ToolCallResult(block=True, reason="Destructive command blocked")

        pi.on("tool_result", lambda event, ctx: fired.append(event.tool_call_id))

    runner, errors = await load([], tmp_path, factories=[a, b])
    runner.bind_core(FakeHost(str(tmp_path)))
    bash = bash_tool()
    agent, _, events = agent_for(
        runner, [bash], [tool_call("bash", {"command": "rm -rf /tmp/x"})], [text("ok")]
    )
    await agent.prompt("clean up")
    assert seen_by_b == ["rm -rf /tmp/x --verbose"]
    assert bash.calls == []
    [result] = tool_results(agent)
    assert result.is_error and result.content[0].text == "Destructive command blocked"
    assert fired == []
    assert [e.is_error for e in events if e.type == "tool_execution_end"] == [True]
    assert errors == []


async def test_mutated_input_reaches_execution(tmp_path: Path) -> None:
    def a(pi):
        pi.on("tool_call", lambda event, ctx: event.input.update(command="ls -la"))

    runner, _ = await load([], tmp_path, factories=[a])
    runner.bind_core(FakeHost())
    bash = bash_tool()
    agent, _, _ = agent_for(runner, [bash], [tool_call("bash", {"command": "ls"})], [text("ok")])
    await agent.prompt("list")
    assert [c.params["command"] for c in bash.calls] == ["ls -la"]


async def test_raising_tool_call_handler_blocks_fail_safe(tmp_path: Path) -> None:
    """Scenario 5."""
    later: list[str] = []

    def broken(pi):
        @pi.on("tool_call")
        def boom(event, ctx):
            raise ValueError("boom")

    def after(pi):
        pi.on("tool_call", lambda event, ctx: later.append("ran"))

    runner, errors = await load([], tmp_path, factories=[broken, after])
    runner.bind_core(FakeHost())
    read = echo_tool("read")
    agent, _, _ = agent_for(runner, [read], [tool_call("read", {"text": "secret"})], [text("ok")])
    await agent.prompt("read it")
    assert read.calls == [] and later == []
    [result] = tool_results(agent)
    assert result.is_error and "boom" in result.content[0].text
    assert [(e.extension_path, e.event) for e in errors] == [("<inline:1>", "tool_call")]


async def test_tool_result_middleware(tmp_path: Path) -> None:
    """Scenario 6."""

    def a(pi):
        pi.on("tool_result", lambda event, ctx: {"content": [TextContent("A")]})

    def b(pi):
        @pi.on("tool_result")
        def append(event, ctx):
            return ToolResultPatch(content=[TextContent(event.content[0].text + " B")])

    runner, _ = await load([], tmp_path, factories=[a, b])
    runner.bind_core(FakeHost())
    agent, provider, _ = agent_for(
        runner, [bash_tool()], [tool_call("bash", {"command": "ls"})], [text("ok")]
    )
    await agent.prompt("go")
    [result] = tool_results(agent)
    assert [c.text for c in result.content] == ["A B"]
    assert result.details == {"exit": 0}
    sent = provider.calls[-1].context.messages[-1]
    assert sent.content[0].text == "A B"


async def test_tool_result_can_flip_is_error(tmp_path: Path) -> None:
    def flip(pi):
        pi.on("tool_result", lambda event, ctx: {"is_error": not event.is_error})

    runner, _ = await load([], tmp_path, factories=[flip])
    runner.bind_core(FakeHost())
    outcome = await runner.emit_tool_result("id", "x", {}, [TextContent("t")], None, True)
    assert outcome.is_error is False


async def test_context_handlers_get_a_copy(tmp_path: Path) -> None:
    def mutate_only(pi):
        pi.on("context", lambda event, ctx: event.messages.clear())

    def replace(pi):
        pi.on("context", lambda event, ctx: {"messages": [*event.messages, UserMessage("injected", 1)]})

    runner, _ = await load([], tmp_path, factories=[mutate_only])
    original = [UserMessage("hi", 1)]
    assert await runner.emit_context(original) is original and len(original) == 1
    runner, _ = await load([], tmp_path, factories=[replace])
    agent, provider, _ = agent_for(runner, [], [text("ok")])
    runner.bind_core(FakeHost())
    await agent.prompt("hello")
    sent = provider.calls[-1].context.messages
    assert [m.content for m in sent][-1] == "injected"
    assert not any(getattr(m, "content", None) == "injected" for m in agent.state.messages)


async def test_input_transform_and_handled(tmp_path: Path) -> None:
    """Scenario 7 at the runner level (the session stores the transformed text)."""

    def ext(pi):
        @pi.on("input")
        def route(event, ctx):
            if event.text.startswith("?q "):
                return {"action": "transform", "text": "Respond briefly: " + event.text[3:]}
            if event.text == "ping":
                return {"action": "handled"}

    def observer(pi):
        pi.on("input", lambda event, ctx: {"action": "transform", "text": event.text + "!"})

    runner, _ = await load([], tmp_path, factories=[ext, observer])
    outcome = await runner.emit_input("?q hi", source="interactive")
    assert (outcome.action, outcome.text, outcome.images) == ("transform", "Respond briefly: hi!", None)
    handled = await runner.emit_input("ping")
    assert handled.action == "handled"
    plain = await runner.emit_input("hello", images=["img"])
    assert (plain.action, plain.text, plain.images) == ("transform", "hello!", ["img"])
    runner, _ = await load([], tmp_path, factories=[])
    assert (await runner.emit_input("x")).action == "continue"


async def test_before_agent_start_chaining(tmp_path: Path) -> None:
    """Scenario 8 at the runner level."""

    def one(pi):
        pi.on("before_agent_start", lambda event, ctx: {"system_prompt": event.system_prompt + "\nLine one"})

    def two(pi):
        @pi.on("before_agent_start")
        def add(event, ctx):
            return {
                "system_prompt": event.system_prompt + "\nLine two",
                "message": {"custom_type": "note", "content": "extra", "display": True},
            }

    runner, _ = await load([], tmp_path, factories=[one, two])
    outcome = await runner.emit_before_agent_start("prompt", None, "BASE")
    assert outcome.system_prompt == "BASE\nLine one\nLine two"
    assert outcome.messages == [{"custom_type": "note", "content": "extra", "display": True}]

    def silent(pi):
        pi.on("before_agent_start", lambda event, ctx: None)

    runner, _ = await load([], tmp_path, factories=[silent])
    assert (await runner.emit_before_agent_start("p", None, "BASE")).system_prompt is None


async def test_session_before_cancel_short_circuits(tmp_path: Path) -> None:
    calls: list[str] = []

    def first(pi):
        pi.on(
            "session_before_switch",
            lambda e, c: calls.append("first") or SessionBeforeSwitchResult(cancel=True),
        )

    def second(pi):
        pi.on("session_before_switch", lambda e, c: calls.append("second"))

    runner, _ = await load([], tmp_path, factories=[first, second])
    assert await runner.emit_session_before(SessionBeforeSwitchEvent("new")) == {"cancel": True}
    assert calls == ["first"]


async def test_message_end_replacement_must_keep_role(tmp_path: Path) -> None:
    def swap(pi):
        pi.on("message_end", lambda e, c: {"message": {"role": "assistant", "content": "x"}})

    def fine(pi):
        pi.on("message_end", lambda e, c: {"message": UserMessage("rewritten", 2)})

    runner, errors = await load([], tmp_path, factories=[swap, fine])
    result = await runner.emit_message_end(UserMessage("original", 1))
    assert result.content == "rewritten"
    assert [e.event for e in errors] == ["message_end"] and 'keep role "user"' in errors[0].error


async def test_provider_payload_and_headers(tmp_path: Path) -> None:
    def ext(pi):
        pi.on("before_provider_request", lambda e, c: {**e.payload, "seed": 1})
        pi.on("before_provider_headers", lambda e, c: e.headers.update({"x-extra": "1", "x-drop": None}))

    runner, _ = await load([], tmp_path, factories=[ext])
    assert await runner.emit_before_provider_request({"model": "m"}) == {"model": "m", "seed": 1}
    assert await runner.emit_before_provider_headers({"x-drop": "v", "a": "b"}) == {"a": "b", "x-extra": "1"}


async def test_result_validation(tmp_path: Path) -> None:
    """R-EXT-26: unknown keys warn once per (extension, event); a wrong type is an error."""

    def ext(pi):
        pi.on("tool_call", lambda e, c: {"block": "yes"})
        pi.on("tool_call", lambda e, c: {"blok": True})

    runner, errors = await load([], tmp_path, factories=[ext])
    for _ in range(2):
        assert (await runner.emit_tool_call("1", "bash", {})).block is False
    assert [e.error for e in errors] == ['Invalid result for "tool_call": block must be a bool'] * 2
    assert [w.error for w in runner.warnings] == ['Unknown result keys for "tool_call": blok']


async def test_agent_event_forwarding_with_turn_index(tmp_path: Path) -> None:
    seen: list[tuple[str, Any]] = []

    def ext(pi):
        for name in ("agent_start", "turn_start", "turn_end", "message_start", "message_end", "agent_end"):
            pi.on(name, lambda e, c, name=name: seen.append((name, getattr(e, "turn_index", None))))

    runner, _ = await load([], tmp_path, factories=[ext])
    runner.bind_core(FakeHost())
    agent, _, _ = agent_for(runner, [echo_tool()], [tool_call("echo", {"text": "x"})], [text("done")])
    await agent.prompt("hi")
    names = [n for n, _ in seen]
    assert names[0] == "agent_start" and names[-1] == "agent_end"
    assert [i for n, i in seen if n in ("turn_start", "turn_end")] == [0, 0, 1, 1]
