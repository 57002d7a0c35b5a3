"""Bridge one MCP server over stdio: its tools become pi tools (00-index.md D-38, 40 §4 item 15).

pi has MCP built in (``~/.pi/agent/mcp.json``, ``pi mcp add``; issue 22); this example stays as a
small, dependency-free illustration of an extension that bridges a protocol. Start pi with the
server's command line::

    pi -e examples/extensions/mcp_bridge.py --mcp "npx -y @modelcontextprotocol/server-filesystem ."

(or set ``PI_MCP_SERVER``). At session start the bridge spawns the server, performs the MCP
``initialize`` handshake, lists the server's tools and registers each as ``mcp_<name>`` with the
server's JSON schema; a call is forwarded as ``tools/call`` and the text content comes back as the
tool result (``isError`` becomes a failed tool call). The server is stopped at session shutdown.
The transport is newline-delimited JSON-RPC 2.0 on the child's stdin/stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shlex
from typing import Any

from pi_app.ext import AgentToolResult, ExtensionAPI, ImageContent, TextContent, ToolDefinition

PROTOCOL_VERSION = "2024-11-05"
REQUEST_TIMEOUT_S = 30.0


class McpError(RuntimeError):
    pass


class StdioMcpClient:
    """A minimal JSON-RPC client for one MCP server process."""

    def __init__(self, argv: list[str], cwd: str) -> None:
        self.argv = argv
        self.cwd = cwd
        self.process: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> dict[str, Any]:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=16 * 1024 * 1024,
        )
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())
        info = await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "pi", "version": "1"},
            },
        )
        await self.notify("notifications/initialized")
        return info

    async def _read_loop(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        async for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            future = self._pending.pop(message.get("id"), None) if isinstance(message, dict) else None
            if future is None or future.done():
                continue
            if "error" in message:
                error = message["error"] or {}
                future.set_exception(McpError(str(error.get("message", error))))
            else:
                future.set_result(message.get("result"))
        for future in self._pending.values():
            if not future.done():
                future.set_exception(McpError("MCP server exited"))
        self._pending.clear()

    async def _send(self, payload: dict[str, Any]) -> None:
        if self.process is None or self.process.stdin is None:
            raise McpError("MCP server is not running")
        self.process.stdin.write((json.dumps(payload) + "\n").encode())
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        return await asyncio.wait_for(future, REQUEST_TIMEOUT_S)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    async def close(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.process.wait(), 5)
        if self._reader is not None:
            self._reader.cancel()
        self.process = None


def tool_name(name: str) -> str:
    return ("mcp_" + re.sub(r"[^a-zA-Z0-9_-]", "_", name))[:64]


def to_content(result: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for block in result.get("content") or []:
        if block.get("type") == "text":
            out.append(TextContent(block.get("text", "")))
        elif block.get("type") == "image":
            out.append(ImageContent(block.get("data", ""), block.get("mimeType", "image/png")))
        else:
            out.append(TextContent(json.dumps(block)))
    return out or [TextContent("")]


def setup(pi: ExtensionAPI) -> None:
    pi.register_flag("mcp", type="string", description="Command line of an MCP server to bridge (stdio)")
    state: dict[str, Any] = {"client": None}

    def make_tool(client: StdioMcpClient, spec: dict[str, Any]) -> ToolDefinition:
        remote = spec["name"]

        async def execute(tool_call_id, params, signal, on_update, ctx) -> AgentToolResult:
            result = await client.request("tools/call", {"name": remote, "arguments": params})
            content = to_content(result or {})
            if (result or {}).get("isError"):
                raise McpError(
                    " ".join(c.text for c in content if isinstance(c, TextContent)) or "MCP tool failed"
                )
            return AgentToolResult(content, {"server_tool": remote})

        schema = spec.get("inputSchema") or {"type": "object", "properties": {}}
        return ToolDefinition(
            name=tool_name(remote),
            label=f"MCP {remote}",
            description=spec.get("description") or f"MCP tool {remote}",
            parameters=schema,
            execute=execute,
            prompt_snippet=(spec.get("description") or remote).splitlines()[0][:120],
        )

    @pi.on("session_start")
    async def connect(event, ctx) -> None:
        command = pi.get_flag("mcp") or os.environ.get("PI_MCP_SERVER")
        if not command or state["client"] is not None:
            return
        client = StdioMcpClient(shlex.split(str(command)), ctx.cwd)
        try:
            await client.start()
            listed = await client.request("tools/list")
        except Exception as exc:
            await client.close()
            ctx.ui.notify(f"MCP bridge: could not start {command}: {exc}", "error")
            raise
        state["client"] = client
        for spec in (listed or {}).get("tools", []):
            pi.register_tool(make_tool(client, spec))

    @pi.on("session_shutdown")
    async def disconnect(event, ctx) -> None:
        client, state["client"] = state["client"], None
        if client is not None:
            await client.close()
