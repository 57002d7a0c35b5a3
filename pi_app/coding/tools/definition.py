"""The project's single ``ToolDefinition`` and its adapters to the agent layer (spec 50 §2.1, D-10).

A ``ToolDefinition`` is what built-in and extension tools declare: LLM-facing schema and text, the
system-prompt snippet/guidelines, an ``execute(tool_call_id, params, signal, on_update, ctx)``
coroutine, and opaque TUI render hooks that this layer never calls. The agent loop wants the
four-argument ``AgentTool`` protocol instead; ``wrap_tool_definition`` binds the context at call
time and ``create_tool_definition_from_agent_tool`` goes the other way.

``ToolParams`` is the base of the built-in parameter models: camelCase aliases, snake_case
attributes, and a JSON Schema without pydantic's ``null`` branches and titles, so the wire schema
matches the shape pi 0.73.1 sends (``{"type": "number"}`` for an optional number).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import TextContent

ToolExecute = Callable[
    [str, dict[str, Any], AbortSignal | None, ToolUpdateCallback | None, Any], Awaitable[AgentToolResult]
]
ConstrainedSamplingConfig = dict[str, Any]


def _collapse_optional(schema: dict[str, Any]) -> None:
    """``anyOf: [X, {type: null}]`` with ``default: null`` → ``X`` (pi never sends null branches)."""
    for prop in (schema.get("properties") or {}).values():
        prop.pop("title", None)
        variants = prop.get("anyOf")
        if isinstance(variants, list):
            non_null = [v for v in variants if v != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(variants):
                del prop["anyOf"]
                if prop.get("default", ...) is None:
                    del prop["default"]
                prop.update(non_null[0])
    schema.pop("title", None)


class ToolParams(BaseModel):
    """Base of tool parameter models: camelCase on the wire, snake_case in Python, extras ignored."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="ignore",
        json_schema_extra=lambda schema, _cls: _collapse_optional(schema),
    )


@dataclass
class ToolDefinition:
    """A tool in the extension format: schema, prompt texts and ``execute``."""

    name: str
    label: str
    description: str
    parameters: Any
    execute: ToolExecute
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] | None = None
    prepare_arguments: Callable[[Any], Any] | None = None
    execution_mode: Literal["sequential", "parallel"] | None = None
    constrained_sampling: Literal[False] | ConstrainedSamplingConfig | None = None
    render_call: Any = None
    render_result: Any = None


ToolRun = Callable[[Any, AbortSignal | None, ToolUpdateCallback | None, Any], Awaitable[AgentToolResult]]


def define_tool(
    name: str,
    description: str,
    parameters: type[ToolParams],
    run: ToolRun,
    *,
    prompt_snippet: str | None = None,
    prompt_guidelines: list[str] | None = None,
    prepare_arguments: Callable[[Any], Any] | None = None,
) -> ToolDefinition:
    """A definition whose ``execute`` parses ``params`` into the pydantic model and calls
    ``run(args, signal, on_update, ctx)``. ``prepare_arguments`` (idempotent) is applied there too,
    so a direct ``execute`` call with legacy arguments behaves like a call through the agent loop."""

    async def execute(
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        ctx: Any,
    ) -> AgentToolResult:
        if prepare_arguments is not None:
            params = prepare_arguments(params)
        return await run(parameters.model_validate(params), signal, on_update, ctx)

    return ToolDefinition(
        name=name,
        label=name,
        description=description,
        parameters=parameters,
        execute=execute,
        prompt_snippet=prompt_snippet,
        prompt_guidelines=prompt_guidelines,
        prepare_arguments=prepare_arguments,
    )


class DefinitionAgentTool:
    """A ``ToolDefinition`` seen through the agent layer's four-argument ``AgentTool`` protocol."""

    def __init__(self, definition: ToolDefinition, get_ctx: Callable[[], Any] | None = None) -> None:
        self.definition = definition
        self.name = definition.name
        self.label = definition.label
        self.description = definition.description
        self.parameters = definition.parameters
        self.prepare_arguments = definition.prepare_arguments
        self.execution_mode = definition.execution_mode
        # ``False`` (explicitly off) and None both mean "no hint" on the wire.
        self.constrained_sampling = definition.constrained_sampling or None
        self._get_ctx = get_ctx

    async def execute(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        ctx = self._get_ctx() if self._get_ctx is not None else None
        return await self.definition.execute(tool_call_id, params, signal, on_update, ctx)

    def __repr__(self) -> str:
        return f"DefinitionAgentTool({self.name!r})"


def wrap_tool_definition(
    definition: ToolDefinition, get_ctx: Callable[[], Any] | None = None
) -> DefinitionAgentTool:
    """Adapt a definition to the agent loop; ``get_ctx()`` is called on every execution."""
    return DefinitionAgentTool(definition, get_ctx)


def create_tool_definition_from_agent_tool(tool: Any) -> ToolDefinition:
    """The reverse adapter: an externally supplied ``AgentTool`` entering the definition registry."""

    async def execute(
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        _ctx: Any,
    ) -> AgentToolResult:
        result = tool.execute(tool_call_id, params, signal, on_update)
        if inspect.isawaitable(result):
            result = await result
        return result

    return ToolDefinition(
        name=tool.name,
        label=getattr(tool, "label", None) or tool.name,
        description=getattr(tool, "description", ""),
        parameters=getattr(tool, "parameters", None),
        execute=execute,
        prepare_arguments=getattr(tool, "prepare_arguments", None),
        execution_mode=getattr(tool, "execution_mode", None),
    )


def text_result(text: str, details: Any = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details)
