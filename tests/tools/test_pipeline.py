"""Built-in tools driven by the agent layer's real tool pipeline (prepare → validate → execute)."""

from __future__ import annotations

import json
import os

from pi_app.agent.tools import execute_tool_calls
from pi_app.agent.types import AgentContext, AgentLoopConfig
from pi_app.ai.types import AssistantMessage, Model, ToolCall
from pi_app.coding.tools import create_builtin_tools, wrap_tool_definition


async def run_calls(cwd: str, *calls: ToolCall):
    tools = [wrap_tool_definition(d, lambda: None) for d in create_builtin_tools(cwd)]
    assistant = AssistantMessage(content=list(calls), stop_reason="toolUse")
    config = AgentLoopConfig(model=Model(id="m"), convert_to_llm=lambda messages: messages)
    events = []

    async def emit(event):
        events.append(event)

    batch = await execute_tool_calls(assistant, AgentContext(tools=tools), config, None, emit)
    return {m.tool_call_id: m for m in batch.messages}


async def test_parallel_batch_of_builtins(cwd):
    with open(os.path.join(cwd, "a.txt"), "w") as handle:
        handle.write("alpha\nbeta\n")
    results = await run_calls(
        cwd,
        ToolCall(id="1", name="edit", arguments={"path": "a.txt", "oldText": "alpha", "newText": "ALPHA"}),
        ToolCall(
            id="2",
            name="edit",
            arguments={"path": "a.txt", "edits": json.dumps([{"oldText": "beta", "newText": "BETA"}])},
        ),
        ToolCall(id="3", name="read", arguments={"path": "a.txt", "offset": "1"}),
        ToolCall(id="4", name="bash", arguments={"command": "echo hi"}),
        ToolCall(id="5", name="ls", arguments={}),
        ToolCall(id="6", name="write", arguments={"path": "b.txt"}),
    )
    assert not results["1"].is_error and not results["2"].is_error
    with open(os.path.join(cwd, "a.txt")) as handle:
        assert handle.read() == "ALPHA\nBETA\n"
    assert not results["3"].is_error
    assert results["4"].content[0].text == "hi\n" and results["4"].details is None
    assert results["5"].content[0].text == "a.txt"
    assert results["6"].is_error
    assert results["6"].content[0].text.startswith('Validation failed for tool "write":')
    assert results["1"].details["patch"].startswith("--- a.txt")
