"""MCP tools as pi ``ToolDefinition``s: server tools, ``tool_search`` and the resource tools (issue 22).

A server tool keeps the server's JSON schema as its parameters and its description; progress
notifications become ``on_update`` partial results (the tool block shows ``progress 3/10 …``).

``tool_search`` (pi 1.6.0's deferred exposure) ranks the tools the model cannot see yet by the
query's words in their names, descriptions, parameter names and their server's description, and
loads up to ``limit`` (default 8) of them: its result carries ``addedToolNames``, so the loaded tools
are recorded in the transcript and stay declared on that branch (``loaded_tool_names``). 1.6.0's
codemode (scripts in a JS sandbox) is not built here: codemode tools are reached through
``tool_search`` too.

The resource tools (``list_mcp_resources``, ``list_mcp_resource_templates``, ``read_mcp_resource``)
reach every connected server that offers resources; ``ui://`` app resources are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pi_app.agent.types import AgentToolResult
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import TextContent
from pi_app.coding.tools.definition import ToolDefinition

if TYPE_CHECKING:
    from pi_app.coding.mcp.manager import McpManager

TOOL_SEARCH = "tool_search"
RESOURCE_TOOLS = ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource")
DEFAULT_SEARCH_LIMIT = 8


def server_tool_definition(manager: McpManager, server: str, tool: Any, name: str) -> ToolDefinition:
    schema = (
        tool.input_schema if isinstance(tool.input_schema, dict) else {"type": "object", "properties": {}}
    )
    schema = {k: v for k, v in schema.items() if k != "$schema"}
    original = tool.name

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        from pi_app.coding.mcp.results import tool_result

        def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is None:
                return
            shown = f"{value:g}/{total:g}" if total else f"{value:g}"
            text = f"progress {shown}" + (f" {message}" if message else "")
            on_update(
                AgentToolResult(content=[TextContent(text=text)], details={"progress": value, "total": total})
            )

        connection = manager.connection(server)
        result = await connection.call_tool(original, dict(params or {}), on_progress=progress, signal=signal)
        return tool_result(result, server, original)

    description = (tool.description or tool.title or original).strip()
    definition = ToolDefinition(
        name=name,
        label=f"{server}: {tool.title or original}",
        description=description,
        parameters=schema,
        execute=execute,
    )
    definition.mcp_annotations = (  # type: ignore[attr-defined]  # read back by McpManager
        tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations is not None else {}
    )
    return definition


# -- tool search ---------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in _WORD.findall(spaced.replace("_", " ").replace("-", " "))]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def rank_tools(query: str, candidates: Iterable[tuple[str, str, str]], limit: int) -> list[str]:
    """``(name, text, server text)`` ranked by how many query words they hold (name counts most)."""
    terms = [_stem(w) for w in _words(query)]
    scored: list[tuple[float, int, str]] = []
    for index, (name, text, server_text) in enumerate(candidates):
        if query.strip() == name:
            scored.append((1e9, index, name))
            continue
        name_words = {_stem(w) for w in _words(name)}
        body = [_stem(w) for w in _words(text)]
        server_words = {_stem(w) for w in _words(server_text)}
        covered = 0
        score = 0.0
        for term in set(terms):
            hit = False
            if term in name_words:
                score += 3.0
                hit = True
            count = body.count(term)
            if count:
                score += 1.0 + min(count, 5) * 0.2
                hit = True
            if term in server_words:
                score += 0.5
                hit = True
            covered += hit
        if covered:
            scored.append((covered * 100 + score, index, name))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [name for _score, _index, name in scored[:limit]]


def tool_search_definition(manager: McpManager) -> ToolDefinition:
    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        query = str((params or {}).get("query") or "").strip()
        limit = (params or {}).get("limit") or DEFAULT_SEARCH_LIMIT
        if not query:
            raise ValueError("query must not be empty")
        await manager.wait_all(signal=signal)
        candidates = manager.searchable_tools()
        names = rank_tools(query, ((d.name, _search_text(d), s) for d, s in candidates), int(limit))
        by_name = {d.name: d for d, _s in candidates}
        if not names:
            return AgentToolResult(
                content=[TextContent(text=f"No tools match {query!r}.")], details={"loaded": []}
            )
        lines = [f"Loaded {len(names)} tool(s); they can be called from the next step:"]
        for name in names:
            description = by_name[name].description.splitlines()[0] if by_name[name].description else ""
            lines.append(f"- {name}: {description}")
        return AgentToolResult(
            content=[TextContent(text="\n".join(lines))], details={"loaded": names}, added_tool_names=names
        )

    return ToolDefinition(
        name=TOOL_SEARCH,
        label="tool search",
        description=(
            "Search the tools of the connected MCP servers that are not declared yet, by what they do. "
            "The matching tools are loaded and can be called directly from the next step."
        ),
        parameters={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words describing the tool you need, or an exact tool name",
                },
                "limit": {
                    "type": "number",
                    "description": f"Most tools to load (default {DEFAULT_SEARCH_LIMIT})",
                },
            },
            "required": ["query"],
        },
        execute=execute,
        prompt_snippet="Find and load MCP server tools by what they do",
    )


def _search_text(definition: ToolDefinition) -> str:
    schema = definition.parameters if isinstance(definition.parameters, dict) else {}
    props = schema.get("properties") or {}
    parts = [definition.description]
    for key, value in props.items():
        parts.append(str(key))
        if isinstance(value, dict) and isinstance(value.get("description"), str):
            parts.append(value["description"])
    return " ".join(parts)


# -- resources -----------------------------------------------------------------------------------------


def _is_app_resource(item: Any) -> bool:
    uri = str(getattr(item, "uri", "") or getattr(item, "uri_template", ""))
    return uri.startswith("ui://") or "profile=mcp-app" in str(getattr(item, "mime_type", "") or "")


def _plain(item: Any, server: str) -> dict[str, Any]:
    data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("icons", None)
    return {"server": server, **data}


def resource_tool_definitions(manager: McpManager) -> list[ToolDefinition]:
    async def list_resources(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        from mcp_types import PaginatedRequestParams

        params = params or {}
        await manager.wait_all(signal=signal)
        server = params.get("server")
        out: dict[str, Any] = {}
        resources: list[dict[str, Any]] = []
        for name in [server] if server else manager.resource_servers():
            connection = manager.connection(str(name))
            cursor = params.get("cursor") if server else None
            while True:
                request = PaginatedRequestParams(cursor=cursor) if cursor else None

                async def list_page(s: Any, r: Any = request) -> Any:
                    return await s.list_resources(params=r)

                page = await connection.request(list_page, "list resources", signal)
                resources.extend(_plain(r, str(name)) for r in page.resources if not _is_app_resource(r))
                cursor = page.next_cursor
                if server:
                    if cursor:
                        out["nextCursor"] = cursor
                    break
                if not cursor:
                    break
        if server:
            out = {"server": server, "resources": resources, **out}
        else:
            out = {"resources": resources}
        return AgentToolResult(
            content=[TextContent(text=json.dumps(out, ensure_ascii=False))], details={"count": len(resources)}
        )

    async def list_templates(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        params = params or {}
        await manager.wait_all(signal=signal)
        server = params.get("server")
        templates: list[dict[str, Any]] = []
        for name in [server] if server else manager.resource_servers():
            connection = manager.connection(str(name))
            page = await connection.request(
                lambda s: s.list_resource_templates(), "list resource templates", signal
            )
            templates.extend(_plain(t, str(name)) for t in page.resource_templates if not _is_app_resource(t))
        text = json.dumps({"resourceTemplates": templates}, ensure_ascii=False)
        return AgentToolResult(content=[TextContent(text=text)], details={"count": len(templates)})

    async def read(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        from pi_app.coding.mcp.results import resource_result

        params = params or {}
        server, uri = str(params.get("server") or ""), str(params.get("uri") or "")
        if not server or not uri:
            raise ValueError("read_mcp_resource needs server and uri")
        await manager.wait_all(signal=signal)
        connection = manager.connection(server)
        result = await connection.request(lambda s: s.read_resource(uri), f"read {uri}", signal)
        return resource_result(list(result.contents), server, uri)

    server_prop = {"type": "string", "description": "MCP server name"}
    return [
        ToolDefinition(
            name="list_mcp_resources",
            label="list MCP resources",
            description="List the resources of the connected MCP servers as JSON. With server, one page of that server (cursor continues).",
            parameters={
                "type": "object",
                "properties": {"server": server_prop, "cursor": {"type": "string"}},
            },
            execute=list_resources,
        ),
        ToolDefinition(
            name="list_mcp_resource_templates",
            label="list MCP resource templates",
            description="List the URI templates of resources the MCP servers do not list directly.",
            parameters={"type": "object", "properties": {"server": server_prop}},
            execute=list_templates,
        ),
        ToolDefinition(
            name="read_mcp_resource",
            label="read MCP resource",
            description="Read a resource of an MCP server by server and URI.",
            parameters={
                "type": "object",
                "properties": {
                    "server": server_prop,
                    "uri": {"type": "string", "description": "Resource URI"},
                },
                "required": ["server", "uri"],
            },
            execute=read,
        ),
    ]


def loaded_tool_names(messages: Iterable[Any]) -> set[str]:
    """Tools ``tool_search`` loaded on this branch (``addedToolNames`` of its results)."""
    out: set[str] = set()
    for message in messages:
        names = getattr(message, "added_tool_names", None)
        if names:
            out.update(names)
    return out
