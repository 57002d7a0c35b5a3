"""Definitions, wrappers and the registry (spec 50 §2.1-2.3, §2.6, R-TDEF-01..06)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_app.agent.types import AgentTool, AgentToolResult
from pi_app.ai.types import TextContent
from pi_app.ai.util.validation import tool_parameters_schema, validate_tool_arguments
from pi_app.coding.tools import (
    ALL_TOOL_NAMES,
    BUILTIN_TOOL_NAMES,
    DEFAULT_ACTIVE_TOOLS,
    create_builtin_tools,
    create_coding_tools,
    create_read_only_tools,
    create_tool,
    create_tool_definition,
    create_tool_definition_from_agent_tool,
    wrap_tool_definition,
)

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference" / "requests-bash_ls-openai-0.73.1.jsonl"
)


def _shape(schema: dict) -> dict:
    """Names, types, required lists and nesting of a JSON schema, without descriptions."""
    if not isinstance(schema, dict):
        return schema
    return {k: _shape(v) for k, v in schema.items() if k not in ("description", "title")}


def test_schemas_match_pi_0_73_1(cwd):
    body = json.loads(FIXTURE.read_text().splitlines()[0])
    reference = {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]}
    tools = {d.name: d for d in create_coding_tools(cwd)}
    assert list(reference) == list(tools) == list(DEFAULT_ACTIVE_TOOLS)
    for name, schema in reference.items():
        ours = tool_parameters_schema(tools[name].parameters)
        assert _shape(ours) == _shape(schema), name


def test_every_builtin_has_its_contract(cwd):
    definitions = create_builtin_tools(cwd)
    assert tuple(d.name for d in definitions) == BUILTIN_TOOL_NAMES
    assert set(BUILTIN_TOOL_NAMES) == ALL_TOOL_NAMES
    for definition in definitions:
        assert definition.label == definition.name
        assert definition.prompt_snippet
        assert definition.execution_mode is None
        assert (definition.prepare_arguments is not None) == (definition.name == "edit")
        schema = tool_parameters_schema(definition.parameters)
        assert schema["type"] == "object"
        assert "2000" in definition.description or definition.name in ("write", "edit", "grep", "find", "ls")


def test_descriptions_render_limits(cwd):
    tools = {d.name: d for d in create_builtin_tools(cwd)}
    assert "2000 lines or 50KB" in tools["read"].description
    assert "50KB" in tools["bash"].description


def test_factory_sets():
    assert [d.name for d in create_coding_tools("/x")] == ["read", "bash", "edit", "write"]
    assert [d.name for d in create_read_only_tools("/x")] == ["read", "grep", "find", "ls"]
    with pytest.raises(ValueError, match="^Unknown tool: nope$"):
        create_tool_definition("nope", "/x")


async def test_tool_sets_keep_their_own_cwd(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f.txt").write_text(name)
    read_a = create_tool("read", str(tmp_path / "a"))
    read_b = create_tool("read", str(tmp_path / "b"))
    result_a = await read_a.execute("1", {"path": "f.txt"}, None, None)
    result_b = await read_b.execute("2", {"path": "f.txt"}, None, None)
    assert (result_a.content[0].text, result_b.content[0].text) == ("a", "b")
    assert os.getcwd() != str(tmp_path / "a")


async def test_wrapper_forwards_context_and_errors():
    seen = {}

    async def execute(tool_call_id, params, signal, on_update, ctx):
        seen.update(id=tool_call_id, params=params, ctx=ctx)
        if params.get("fail"):
            raise RuntimeError("boom")
        return AgentToolResult(content=[TextContent(text="ok")])

    from pi_app.coding.tools import ToolDefinition

    definition = ToolDefinition("t", "t", "d", {"type": "object", "properties": {}}, execute)
    wrapped = wrap_tool_definition(definition, lambda: "CTX")
    assert isinstance(wrapped, AgentTool)
    await wrapped.execute("c1", {"x": 1}, None, None)
    assert seen == {"id": "c1", "params": {"x": 1}, "ctx": "CTX"}
    with pytest.raises(RuntimeError, match="^boom$"):
        await wrapped.execute("c2", {"fail": True}, None, None)
    assert (await wrap_tool_definition(definition).execute("c3", {}, None, None)).content[0].text == "ok"

    back = create_tool_definition_from_agent_tool(wrapped)
    result = await back.execute("c4", {}, None, None, None)
    assert result.content[0].text == "ok" and back.name == "t"


def test_edit_arguments_through_prepare_and_validation():
    edit = create_tool("edit", "/x")
    legacy = edit.prepare_arguments({"path": "a", "oldText": "o", "newText": "n", "extra": 1})
    assert validate_tool_arguments(edit, legacy) == {"path": "a", "edits": [{"oldText": "o", "newText": "n"}]}
    as_string = edit.prepare_arguments({"path": "a", "edits": '[{"oldText":"o","newText":"n","why":"x"}]'})
    assert validate_tool_arguments(edit, as_string)["edits"] == [{"oldText": "o", "newText": "n"}]
    read = create_tool("read", "/x")
    assert validate_tool_arguments(read, {"path": "a", "offset": "5"}) == {"path": "a", "offset": 5}


async def test_constrained_sampling_hint_reaches_the_llm_tool():
    """A definition's constrained-sampling hint is what the model receives with the tool; False sends none."""
    from pi_app.agent import Agent
    from pi_app.ai.testing import fake_provider, text
    from pi_app.coding.tools import ToolDefinition

    async def execute(tool_call_id, params, signal, on_update, ctx):
        return AgentToolResult()

    schema = {"type": "object", "properties": {}}
    hinted = ToolDefinition("t", "t", "d", schema, execute, constrained_sampling={"strict": True})
    off = ToolDefinition("u", "u", "d", schema, execute, constrained_sampling=False)
    provider = fake_provider(script=[[text("ok")]])
    agent = Agent(
        stream_fn=provider.stream_simple,
        initial_state={
            "model": provider.get_models()[0],
            "tools": [wrap_tool_definition(hinted), wrap_tool_definition(off)],
        },
    )
    await agent.prompt("hi")
    sent = provider.calls[0].context.tools
    assert [(t.name, t.constrained_sampling) for t in sent] == [("t", {"strict": True}), ("u", None)]
