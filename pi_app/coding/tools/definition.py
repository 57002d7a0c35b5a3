"""The project's single ``ToolDefinition`` and its adapters to the agent layer (spec 50 §2.1, D-10).

A ``ToolDefinition`` is what built-in and extension tools declare: LLM-facing schema and text, the
system-prompt snippet/guidelines, an ``execute(tool_call_id, params, signal, on_update, ctx)``
coroutine, and opaque TUI render hooks that this layer never calls. The agent loop wants the
four-argument ``AgentTool`` protocol instead; ``wrap_tool_definition`` binds the context at call
time and ``create_tool_definition_from_agent_tool`` goes the other way.

Parameters. ``BuiltinParams`` is the base of the built-in tools' parameters: a ``msgspec.Struct``
(camelCase encoded names, snake_case attributes, the Python names accepted too, extras ignored)
that records its wire schema, the JSON Schema sent to the model, byte for byte what the pydantic
models it replaced generated (``{"type": "number"}`` for an optional number, no titles, the shape
pi sends). Extensions declare pydantic models on ``ToolParams`` (``tool_params``, loaded when asked
for) or raw JSON-Schema dicts; ``define_tool`` takes either kind of class.

Decision (issue 20): the built-ins left pydantic so that start-up, and the first tool call too,
import none of it (pydantic and its models were a quarter of ``pi -p``'s start; a streamed call
loads only ``pydantic_core``'s JSON parser, ``pi_app.ai.util.partial_json``). Their arguments are
validated by ``pi_app.ai.util.structs`` with pydantic's lax rules and texts, so what a tool accepts
("5" as a number, null for an optional field, unknown keys dropped) and what the model reads when it
gets one wrong stay exactly as they were; ``tests/tools/test_builtin_params.py`` runs the old
pydantic models next to them. The other two ways were rejected: AJV-style validation of the raw
schema (pi 1.6.0's) would change what the tools accept (null for an optional field, numbers as
strings, extra keys kept), and pydantic models built on the first validation would put pydantic's
import, a tenth of a second, in the middle of the first tool call.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import TextContent
from pi_app.ai.util.structs import convert
from pi_app.ai.util.validation import StructParams
from pi_app.coding.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_app.coding.tools.tool_params import ToolParams

ToolExecute = Callable[
    [str, dict[str, Any], AbortSignal | None, ToolUpdateCallback | None, Any], Awaitable[AgentToolResult]
]
ConstrainedSamplingConfig = dict[str, Any]


class BuiltinParams(StructParams, rename="camel"):
    """Base of the built-in tools' parameters (see the module docstring)."""

    populate_by_name: ClassVar[bool] = True


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
    parameters: type[ToolParams] | type[StructParams],
    run: ToolRun,
    *,
    prompt_snippet: str | None = None,
    prompt_guidelines: list[str] | None = None,
    prepare_arguments: Callable[[Any], Any] | None = None,
) -> ToolDefinition:
    """A definition whose ``execute`` parses ``params`` into the parameter class (a pydantic model
    or a ``StructParams`` Struct) and calls ``run(args, signal, on_update, ctx)``.
    ``prepare_arguments`` (idempotent) is applied there too, so a direct ``execute`` call with
    legacy arguments behaves like a call through the agent loop."""

    async def execute(
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        ctx: Any,
    ) -> AgentToolResult:
        if prepare_arguments is not None:
            params = prepare_arguments(params)
        if issubclass(parameters, StructParams):
            return await run(convert(params, parameters), signal, on_update, ctx)
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


__getattr__ = lazy_exports("pi_app.coding.tools", {"ToolParams": "tool_params"}, globals())
