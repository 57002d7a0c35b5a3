"""R-PHIL-06 (a tool runs a nested agent loop) and R-PHIL-07 (structural tools), spec 70."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_helpers import loop_config, texts, user

from pi_app.agent import AgentContext, AgentToolResult, agent_loop
from pi_app.agent.testing import check_event_grammar
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.ai.types import TextContent


@dataclass
class SubAgentTool:
    """A plain dataclass: no base class, no decorator, in no registry."""

    name: str = "subagent"
    label: str = "Sub-agent"
    description: str = "Ask a helper agent."
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"task": {"type": "string"}},
            "required": ["task"],
        }
    )
    inner_events: list[Any] = field(default_factory=list)
    inner_messages: list[Any] = field(default_factory=list)

    async def execute(self, tool_call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        inner = fake_provider(id="inner", script=[[text(f"inner answer to {params['task']}")]])
        model = inner.models[0]
        stream = agent_loop(
            [user(params["task"])],
            AgentContext("inner system prompt", []),
            loop_config(model),
            signal,
            inner.stream_simple,
        )
        async for event in stream:
            self.inner_events.append(event)
            if on_update is not None and event.type == "message_end":
                on_update(AgentToolResult(content=[TextContent(text=event.message.role)]))
        self.inner_messages = await stream.result()
        return AgentToolResult(content=[TextContent(text=texts(self.inner_messages[-1]))])


async def test_nested_agent_loop_inside_a_tool(harness):
    tool = SubAgentTool()
    h = harness([tool_call("subagent", {"task": "count files"}, id="1")], [text("outer done")], tools=[tool])
    await h.agent.prompt("delegate")

    result = [m for m in h.agent.state.messages if m.role == "toolResult"][0]
    assert texts(result) == "inner answer to count files" and not result.is_error
    assert texts(h.agent.state.messages[-1]) == "outer done"
    outer_ids = {id(m) for m in h.agent.state.messages}
    assert not outer_ids & {id(m) for m in tool.inner_messages}
    assert [texts(m) for m in tool.inner_messages] == ["count files", "inner answer to count files"]
    assert "delegate" not in [texts(m) for m in tool.inner_messages]
    check_event_grammar(tool.inner_events)
    check_event_grammar(h.recorder.events)
    assert [texts(u.partial_result) for u in h.recorder.of("tool_execution_update")] == ["user", "assistant"]
    assert h.provider.calls[0].context.tools[0].name == "subagent"


@dataclass
class PlainTool:
    name: str
    label: str
    description: str
    parameters: dict[str, Any]
    seen: list[Any] = field(default_factory=list)

    def execute(self, tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        self.seen.append(params)
        return {"content": [TextContent(text=f"{params['a'] + params['b']}")], "details": {"sum": True}}


async def test_structural_tool_with_a_synchronous_execute(harness):
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }
    tool = PlainTool("add", "Add", "Adds two integers.", schema)
    h = harness([tool_call("add", {"a": 2, "b": "3"}, id="1")], [text("5")], tools=[tool])
    await h.agent.prompt("2+3?")

    assert tool.seen == [{"a": 2, "b": 3}]
    result = [m for m in h.agent.state.messages if m.role == "toolResult"][0]
    assert texts(result) == "5" and result.details == {"sum": True} and not result.is_error
    request_tool = h.provider.calls[0].context.tools[0]
    assert (request_tool.name, request_tool.description, request_tool.parameters) == (
        "add",
        "Adds two integers.",
        schema,
    )
