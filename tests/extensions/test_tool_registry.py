"""The per-session tool registry (D-10; spec 40 R-EXT-19, R-EXT-43, R-EXT-44, scenario 22)."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.extensions.types import RegisteredTool
from pi_app.coding.tool_registry import ToolRegistry
from pi_app.coding.tools import create_all_tools
from pi_app.coding.tools.definition import ToolDefinition, text_result


def ext_tool(name: str, snippet: str | None = None, guidelines: list[str] | None = None) -> RegisteredTool:
    async def execute(tool_call_id, params, signal, on_update, ctx):
        return text_result(f"{name} from extension")

    definition = ToolDefinition(
        name=name,
        label=name,
        description=f"{name} tool",
        parameters={"type": "object", "properties": {}},
        execute=execute,
        prompt_snippet=snippet,
        prompt_guidelines=guidelines,
    )
    return RegisteredTool(definition, f"/ext/{name}.py")


def builtins(tmp_path: Path) -> dict:
    return create_all_tools(str(tmp_path))


def test_default_active_set_and_allowlist(tmp_path: Path) -> None:
    registry = ToolRegistry(builtins(tmp_path))
    registry.refresh([ext_tool("greet")])
    assert registry.active == ["read", "bash", "edit", "write", "greet"]

    only = ToolRegistry(builtins(tmp_path), allowlist=["greet", "grep", "nope"])
    result = only.refresh([ext_tool("greet")])
    assert only.active == ["greet", "grep"] and result.unknown == ["nope"]

    none = ToolRegistry(builtins(tmp_path), no_tools=True)
    none.refresh([ext_tool("greet")])
    assert none.active == []

    ext_only = ToolRegistry(builtins(tmp_path), no_builtin_tools=True, exclude=["skip"])
    ext_only.refresh([ext_tool("greet"), ext_tool("skip")])
    assert ext_only.active == ["greet"]


def test_builtin_override_keeps_the_builtin_renderer(tmp_path: Path) -> None:
    """Scenario 22 (registry part): the extension's read runs; the built-in renderer draws it."""
    registry = ToolRegistry(builtins(tmp_path))
    result = registry.refresh([ext_tool("read")])
    assert result.overrides == [("read", "/ext/read.py")]
    assert registry.get("read").description == "read tool"
    assert registry.is_overridden_builtin("read")
    assert registry.renderer_fallback("read") is registry.builtins["read"]
    assert registry.refresh([ext_tool("read")]).overrides == []  # the warning is shown once
    assert registry.active.count("read") == 1


def test_late_registration_appends_without_reordering(tmp_path: Path) -> None:
    registry = ToolRegistry(builtins(tmp_path))
    registry.refresh([ext_tool("a")])
    registry.set_active(["bash", "a", "read", "grep", "unknown"])
    assert registry.active == ["read", "bash", "a", "grep"]
    result = registry.refresh([ext_tool("a"), ext_tool("b")])
    assert result.added == ["b"] and registry.active == ["read", "bash", "a", "grep", "b"]


def test_prompt_snippets_and_guidelines(tmp_path: Path) -> None:
    registry = ToolRegistry({}, allowlist=["x", "y", "z"])
    registry.refresh(
        [
            ext_tool("x", "  Does\n  x things  ", ["Use x wisely", " ", "Shared rule"]),
            ext_tool("y", None, ["Shared rule", "  y only  "]),
            ext_tool("z", "inactive", ["never"]),
        ]
    )
    registry.set_active(["x", "y"])
    assert registry.prompt_snippets() == {"x": "Does x things"}
    assert registry.prompt_guidelines() == {"x": ["Use x wisely", "Shared rule"], "y": ["y only"]}
    infos = {i.name: i for i in registry.tool_infos()}
    assert infos["x"].parameters == {"type": "object", "properties": {}}


async def test_agent_tools_get_a_fresh_context(tmp_path: Path) -> None:
    contexts: list[int] = []

    async def execute(tool_call_id, params, signal, on_update, ctx):
        contexts.append(ctx)
        return text_result("ok")

    tool = RegisteredTool(
        ToolDefinition("t", "t", "t", {"type": "object", "properties": {}}, execute), "/e.py"
    )
    registry = ToolRegistry({}, allowlist=["t"])
    registry.refresh([tool])
    counter = iter(range(10))
    [wrapped] = registry.agent_tools(lambda: next(counter))
    await wrapped.execute("1", {}, None, None)
    await wrapped.execute("2", {}, None, None)
    assert contexts == [0, 1]
