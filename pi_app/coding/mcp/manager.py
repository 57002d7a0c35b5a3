"""The MCP servers of one session: connections, their tools as the model sees them, status (issue 22).

``McpManager`` lives in the session's event loop. ``start`` returns at once; every enabled server
connects in the background, so neither the app's first frame nor print mode waits for a server.
Before each run ``AgentSession`` asks for the tools to declare (``agent_tools``): a prompt waits up
to 10 s only for servers still on their first connection attempt that have ``direct`` tools, as
pi 1.6.0 does; ``tool_search`` and the resource tools wait for all servers when they are called.

Exposure per tool (``naming.tool_exposure``): ``direct`` tools are declared; ``deferred`` and
``codemode`` tools are reached through ``tool_search`` (codemode scripts are out of scope: an entry
that asks for codemode explicitly is told so in one line); ``hidden`` tools are unreachable. The
resource tools take the widest exposure among servers that offer resources.

``status`` is what ``/mcp``, ``pi mcp list`` and RPC ``get_state`` (its ``mcp`` field) show.
Problems are reported once each through ``report`` (config errors at start, then each server that
fails or needs sign-in). Server log notifications are appended to ``<agent dir>/mcp.log``
(``<time> [<server>] <level> <logger>: <message>``), moved to ``mcp.log.1`` past 5 MB.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.mcp.config import McpConfig, McpServerConfig
from pi_app.coding.mcp.connection import ServerConnection, kill_all_children
from pi_app.coding.mcp.naming import matches_any, sanitise, tool_exposure, tool_names
from pi_app.coding.mcp.tools import (
    TOOL_SEARCH,
    resource_tool_definitions,
    server_tool_definition,
    tool_search_definition,
)
from pi_app.coding.tools.definition import DefinitionAgentTool, ToolDefinition

DIRECT_WAIT_S = 10.0
SEARCH_WAIT_S = 15.0
LOG_LIMIT_BYTES = 5 * 1024 * 1024
EXPOSURE_RANK = {"hidden": 0, "codemode": 1, "deferred": 1, "direct": 2}


class McpAgentTool(DefinitionAgentTool):
    """An agent tool that came from MCP (replaced on every tool refresh)."""

    mcp = True


class McpManager:
    def __init__(
        self,
        config: McpConfig,
        *,
        cwd: str,
        agent_dir: str | Path,
        report: Callable[[str], None] = lambda line: None,
        allow_patterns: Iterable[str] | None = None,
        exclude_patterns: Iterable[str] = (),
        auth_factory: Callable[[McpServerConfig], Any] | None = None,
    ) -> None:
        self.config = config
        self.cwd = cwd
        self.agent_dir = Path(agent_dir)
        self.report = report
        allow = [p for p in (allow_patterns or ()) if p.startswith("mcp__")]
        self.allow_patterns = allow or None
        self.exclude_patterns = list(exclude_patterns)
        self.auth_factory = auth_factory
        self.connections: dict[str, ServerConnection] = {}
        self.extension_servers: dict[str, McpServerConfig] = {}
        self.listeners: list[Callable[[], None]] = []
        self._reported: set[tuple[str, str]] = set()
        self._first_attempt_done: set[str] = set()
        self._definitions: dict[str, tuple[int, list[tuple[ToolDefinition, str]]]] = {}
        self._search = tool_search_definition(self)
        self._resources = resource_tool_definitions(self)
        self._agent_tools: dict[str, McpAgentTool] = {}
        self.started = False
        self.connecting = False
        for server in config.servers.values():
            self._add(server)

    # -- servers -----------------------------------------------------------------------------------

    def _add(self, server: McpServerConfig) -> ServerConnection:
        connection = ServerConnection(
            server,
            session_cwd=self.cwd,
            agent_dir=self.agent_dir,
            on_change=self._on_change,
            on_log=self._log,
            auth_factory=self.auth_factory,
        )
        self.connections[server.name] = connection
        return connection

    def start(self, *, connect: bool = True) -> None:
        """Report config problems, then connect every enabled server in the background
        (``connect=False``: later, at ``connect_all``)."""
        self.started = True
        for error in self.config.errors:
            self._report_once("config", error, f"MCP config error: {error}")
        for connection in self.connections.values():
            self._warn_codemode(connection.config)
        if self._needs_search() and not self._allowed(TOOL_SEARCH):
            self._report_once(
                "tool_search",
                "off",
                "MCP: tool_search is excluded, so the tools of servers without direct exposure cannot be called",
            )
        if connect:
            self.connect_all()

    def connect_all(self) -> None:
        self.connecting = True
        for connection in self.connections.values():
            if connection.state != "connected":
                connection.start()

    def has_direct_servers(self) -> bool:
        return any(c.config.enabled and self._has_direct(c.config) for c in self.connections.values())

    def register_server(self, name: str, entry: dict[str, Any], source: str) -> str | None:
        """An extension's server (``pi.registerMcpServer``); a file-configured one of the same name wins."""
        from pi_app.coding.mcp.config import parse_entry

        parsed = parse_entry(name, entry, source, "extension")
        if isinstance(parsed, str):
            self.report(f"MCP config error: {parsed}")
            return parsed
        if any(c.config.key == parsed.key for c in self.connections.values()):
            self.extension_servers[name] = parsed
            return None
        connection = self._add(parsed)
        if self.connecting:
            connection.start()
        self._on_change(connection)
        return None

    def connection(self, name: str) -> ServerConnection:
        connection = self.connections.get(name)
        if connection is None:
            wanted = sanitise(name)
            connection = next((c for c in self.connections.values() if sanitise(c.name) == wanted), None)
        if connection is None:
            raise ValueError(f'Unknown MCP server "{name}"')
        if not connection.config.enabled:
            raise ValueError(f'MCP server "{name}" is disabled')
        return connection

    def _warn_codemode(self, server: McpServerConfig) -> None:
        raw = server.raw
        asked = raw.get("exposure") in ("codemode", "codemode-deferred") or any(
            v in ("codemode", "codemode-deferred") for v in (raw.get("toolExposure") or {}).values()
        )
        if asked and server.enabled:
            self._report_once(
                server.name,
                "codemode",
                f'MCP server "{server.name}": codemode is not available in this pi; its tools are reached through tool_search',
            )

    def _report_once(self, server: str, kind: str, line: str) -> None:
        key = (server, kind + line if kind == "config" else kind)
        if key in self._reported:
            return
        self._reported.add(key)
        with contextlib.suppress(Exception):
            self.report(line)

    def _on_change(self, connection: ServerConnection) -> None:
        if connection.state in ("failed", "needs-auth", "connected"):
            self._first_attempt_done.add(connection.name)
        if connection.state == "failed" and not connection.closed:
            self._report_once(
                connection.name, "failed", f'MCP server "{connection.name}" failed: {connection.error}'
            )
        elif connection.state == "needs-auth":
            self._report_once(
                connection.name,
                "auth",
                f'MCP server "{connection.name}" needs sign-in: run /mcp login {connection.name} or pi mcp login {connection.name}',
            )
        elif connection.state == "disconnected" and not connection.closed:
            self._report_once(
                connection.name,
                f"drop{time.monotonic():.0f}",
                f'MCP server "{connection.name}" disconnected: {connection.error} (reconnects on the next call)',
            )
        for listener in list(self.listeners):
            with contextlib.suppress(Exception):
                listener()

    def _log(self, server: str, level: str, logger: str | None, data: Any) -> None:
        path = self.agent_dir / "mcp.log"
        message = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{server}] {level} {logger or '-'}: {message}\n"
        with contextlib.suppress(OSError):
            if path.exists() and path.stat().st_size > LOG_LIMIT_BYTES:
                path.replace(path.with_name("mcp.log.1"))
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line)

    # -- waiting -------------------------------------------------------------------------------------

    def _has_direct(self, server: McpServerConfig) -> bool:
        return server.exposure == "direct" or "direct" in server.tool_exposure.values()

    async def wait_direct(self, timeout: float = DIRECT_WAIT_S) -> None:
        if not self.connecting and self.has_direct_servers():
            self.connect_all()
        waiting = [
            c
            for c in self.connections.values()
            if c.config.enabled
            and c.state == "connecting"
            and c.name not in self._first_attempt_done
            and self._has_direct(c.config)
        ]
        if waiting:
            await asyncio.wait([asyncio.ensure_future(c.wait_ready()) for c in waiting], timeout=timeout)

    async def wait_all(self, timeout: float | None = None, signal: AbortSignal | None = None) -> None:
        """Until no enabled server is on a connection attempt (or ``timeout``, or the abort)."""
        if not self.connecting:
            self.connect_all()
        waiting = [c for c in self.connections.values() if c.config.enabled and c.state == "connecting"]
        if not waiting:
            return
        # tool_search and the resource tools wait for every server, but not for ever: a server
        # still connecting after 15 s is left out of this call (its tools come when it connects)
        limit = (
            timeout
            if timeout is not None
            else min(max(c.config.timeout_s for c in waiting) + 1, SEARCH_WAIT_S)
        )
        futures = {asyncio.ensure_future(c.wait_ready()) for c in waiting}
        aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        try:
            while not all(f.done() for f in futures):
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                watched = futures | ({aborted} if aborted is not None else set())
                done, _pending = await asyncio.wait(
                    watched, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if aborted is not None and aborted in done:
                    return
        finally:
            for future in futures:
                future.cancel()
            if aborted is not None:
                aborted.cancel()

    # -- tools ---------------------------------------------------------------------------------------

    def _allowed(self, name: str) -> bool:
        if (
            self.allow_patterns is not None
            and name.startswith("mcp__")
            and not matches_any(name, self.allow_patterns)
        ):
            return False
        return not matches_any(name, self.exclude_patterns)

    def server_tools(self, connection: ServerConnection) -> list[tuple[ToolDefinition, str]]:
        """``(definition, exposure)`` for each tool of a connected server."""
        key = id(connection.tools)
        cached = self._definitions.get(connection.name)
        if cached is not None and cached[0] == key:
            return cached[1]
        names = tool_names(connection.name, [t.name for t in connection.tools])
        out: list[tuple[ToolDefinition, str]] = []
        config = connection.config
        for tool in connection.tools:
            exposure = tool_exposure(tool.name, config.exposure, config.tool_exposure)
            definition = server_tool_definition(self, connection.name, tool, names[tool.name])
            out.append((definition, exposure))
        self._definitions[connection.name] = (key, out)
        return out

    def _live(self) -> list[ServerConnection]:
        return [c for c in self.connections.values() if c.config.enabled and c.state == "connected"]

    def _server_text(self, connection: ServerConnection) -> str:
        return " ".join(
            filter(None, [connection.name, connection.config.description, connection.instructions])
        )

    def searchable_tools(self) -> list[tuple[ToolDefinition, str]]:
        out = []
        for connection in self._live():
            for definition, exposure in self.server_tools(connection):
                if exposure in ("deferred", "codemode") and self._allowed(definition.name):
                    out.append((definition, self._server_text(connection)))
        for definition in self._resources:
            if self._resource_exposure() in ("deferred", "codemode") and self._allowed(definition.name):
                out.append((definition, "mcp resources"))
        return out

    def resource_servers(self) -> list[str]:
        return [c.name for c in self._live() if c.has_resources and c.config.exposure != "hidden"]

    def _resource_exposure(self) -> str:
        best = "hidden"
        for connection in self._live():
            if connection.has_resources and EXPOSURE_RANK[connection.config.exposure] > EXPOSURE_RANK[best]:
                best = connection.config.exposure
        return best

    def _needs_search(self) -> bool:
        for connection in self.connections.values():
            config = connection.config
            if not config.enabled:
                continue
            if config.exposure in ("deferred", "codemode") or {"deferred", "codemode"} & set(
                config.tool_exposure.values()
            ):
                return True
        return False

    def declared_definitions(self, loaded: set[str]) -> list[ToolDefinition]:
        out: list[ToolDefinition] = []
        for connection in self._live():
            for definition, exposure in self.server_tools(connection):
                if exposure == "hidden" or not self._allowed(definition.name):
                    continue
                if exposure == "direct" or (
                    exposure in ("deferred", "codemode") and definition.name in loaded
                ):
                    out.append(definition)
        resources = self._resource_exposure()
        for definition in self._resources:
            if self._allowed(definition.name) and (
                resources == "direct" or (resources != "hidden" and definition.name in loaded)
            ):
                out.append(definition)
        if self._needs_search() and self._allowed(TOOL_SEARCH):
            out.insert(0, self._search)
        return out

    def agent_tools(self, loaded: set[str]) -> list[McpAgentTool]:
        tools = []
        for definition in self.declared_definitions(loaded):
            tool = self._agent_tools.get(definition.name)
            if tool is None or tool.definition is not definition:
                tool = McpAgentTool(definition)
                self._agent_tools[definition.name] = tool
            tools.append(tool)
        return tools

    def tool_infos(self) -> list[Any]:
        """Every reachable MCP tool as ``ToolInfo`` with its annotations (resource tools read-only)."""
        from pi_app.coding.extensions.types import ToolInfo

        out = []
        for connection in self._live():
            for definition, exposure in self.server_tools(connection):
                if exposure != "hidden" and self._allowed(definition.name):
                    annotations = dict(getattr(definition, "mcp_annotations", {}) or {})
                    out.append(
                        ToolInfo(
                            definition.name,
                            definition.description,
                            dict(definition.parameters),
                            None,
                            annotations,
                        )
                    )
        if self._resource_exposure() != "hidden":
            for definition in self._resources:
                out.append(
                    ToolInfo(
                        definition.name,
                        definition.description,
                        dict(definition.parameters),
                        None,
                        {"readOnlyHint": True},
                    )
                )
        return out

    def all_tool_names(self) -> list[str]:
        return [d.name for c in self._live() for d, _e in self.server_tools(c)]

    # -- system prompt -------------------------------------------------------------------------------

    def prompt_section(self) -> str | None:
        """The ``mcp_servers`` section: servers whose tools are reached through tool_search."""
        lines = []
        for connection in self.connections.values():
            config = connection.config
            if not config.enabled or config.exposure == "hidden" or not self._needs_search_server(config):
                continue
            summary = config.description or (connection.instructions or "").strip().splitlines()[0:1]
            if isinstance(summary, list):
                summary = summary[0].lstrip("# ").strip() if summary else ""
            text = f"- {config.name} (tools reached with tool_search)"
            lines.append(f"{text}: {summary}" if summary else text)
        if not lines:
            return None
        return (
            "<mcp_servers>\nMCP servers whose tools are not declared; find and load them with tool_search:\n"
            + "\n".join(lines)
            + "\n</mcp_servers>"
        )

    def _needs_search_server(self, config: McpServerConfig) -> bool:
        return (
            config.exposure in ("deferred", "codemode")
            or {"deferred", "codemode"} & set(config.tool_exposure.values()) != set()
        )

    # -- status --------------------------------------------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        out = []
        for connection in self.connections.values():
            config = connection.config
            entry: dict[str, Any] = {
                "name": config.name,
                "scope": config.scope,
                "source": config.source,
                "enabled": config.enabled,
                "exposure": config.exposure,
                "transport": config.transport_text(),
                "state": connection.state if config.enabled else "disabled",
                "tools": [t.name for t in connection.tools] if connection.state == "connected" else [],
            }
            if connection.error and config.enabled:
                entry["error"] = connection.error
            if config.description:
                entry["description"] = config.description
            if connection.state == "connected" and connection.has_resources:
                entry["resources"] = True
            out.append(entry)
        return out

    def state_summary(self) -> dict[str, Any]:
        """RPC ``get_state``'s ``mcp`` field."""
        return {"servers": self.status(), "errors": list(self.config.errors)}

    # -- changes -------------------------------------------------------------------------------------

    async def reconnect(self, name: str) -> None:
        await self.connection(name).reconnect()

    def _known(self, name: str) -> ServerConnection:
        connection = self.connections.get(name)
        if connection is None:
            raise ValueError(f'Unknown MCP server "{name}"')
        return connection

    def _save(self, connection: ServerConnection, fields: dict[str, Any]) -> str | None:
        """Write ``fields`` to the file that defines the server (its project override if it has
        one); extension servers change for this session only. Returns the file written."""
        config = connection.config
        if config.scope == "extension":
            return None
        from pi_app.coding.mcp.config import update_server_fields

        path = Path(config.override_source or config.source)
        update_server_fields(path, config.name, fields)
        return str(path)

    async def set_enabled(self, name: str, enabled: bool, *, save: bool = True) -> str | None:
        connection = self._known(name)
        connection.config.enabled = enabled
        written = self._save(connection, {"enabled": enabled}) if save else None
        if enabled:
            connection.closed = False
            connection._attempt = 0
            connection.start()
        else:
            await connection.close()
            connection.state = "disabled"
            self._on_change(connection)
        return written

    def set_exposure(self, name: str, exposure: str, *, save: bool = True) -> str | None:
        connection = self._known(name)
        connection.config.exposure = exposure
        self._definitions.pop(name, None)
        written = self._save(connection, {"exposure": exposure}) if save else None
        self._on_change(connection)
        return written

    async def sign_in(self, name: str, say: Callable[[str], None]) -> None:
        from pi_app.coding.mcp.oauth import sign_in

        connection = self._known(name)
        await sign_in(connection.config, self.agent_dir, say=say)
        self._reported.discard((name, "auth"))
        await connection.reconnect()

    async def sign_out(self, name: str) -> bool:
        from pi_app.coding.mcp.oauth import sign_out

        connection = self._known(name)
        removed = sign_out(connection.config, self.agent_dir)
        await connection.reconnect()
        return removed

    def details(self, name: str) -> str:
        """Markdown for ``/mcp``: the connection, its error and stderr tail, the tools and their exposure."""
        connection = self._known(name)
        config = connection.config
        lines = [f"**{config.name}** — {connection.state if config.enabled else 'disabled'}", ""]
        lines.append(f"- transport: `{config.transport_text()}`")
        lines.append(
            f"- exposure: {config.exposure}; source: {config.source}"
            + (f" (override: {config.override_source})" if config.override_source else "")
        )
        if connection.server_info:
            lines.append(f"- server: {connection.server_info}")
        if config.description:
            lines.append(f"- description: {config.description}")
        if connection.error and config.enabled:
            lines.append(f"- error: {connection.error}")
        tail = (
            connection.stderr_tail()
            if config.transport == "stdio" and connection.state != "connected"
            else []
        )
        if tail:
            lines += ["", "stderr (last lines):", "```", *tail, "```"]
        if connection.state == "connected":
            lines += ["", f"Tools ({len(connection.tools)}):"]
            for definition, exposure in self.server_tools(connection):
                first = (definition.description or "").strip().splitlines()[:1]
                lines.append(f"- `{definition.name}` ({exposure})" + (f": {first[0]}" if first else ""))
        return "\n".join(lines)

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    def kill(self) -> None:
        """Synchronous last resort (exit, dispose without a loop): end every server process group."""
        for connection in self.connections.values():
            connection.closed = True
        kill_all_children()
