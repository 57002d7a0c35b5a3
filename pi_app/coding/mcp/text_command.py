"""``/mcp`` outside the full-screen app (issue 22): in print, JSON and RPC mode the command prints
the servers' status, and ``/mcp login|logout|reconnect|enable|disable <server>`` act directly, as
pi 1.6.0 does. The text reaches the user through the session's ``mcp_output`` listeners (RPC: a
``notify`` extension UI request; print mode: stdout)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession

ACTIONS = ("login", "logout", "reconnect", "enable", "disable")


def is_mcp_command(text: str) -> bool:
    stripped = text.strip()
    return stripped == "/mcp" or stripped.startswith("/mcp ")


def status_text(manager: Any) -> str:
    lines = []
    for entry in manager.status():
        state = entry["state"]
        if state == "connected":
            count = len(entry["tools"])
            state = f"connected, {count} tool{'s' if count != 1 else ''}"
        lines.append(f"{entry['name']}: {state} ({entry['exposure']}, {entry['scope']})")
        if entry.get("error"):
            lines.append(f"  {entry['error']}")
    lines += [f"config error: {error}" for error in manager.config.errors]
    return "\n".join(lines) or "No MCP servers configured."


async def run_text_command(session: AgentSession, text: str) -> str:
    manager = session.mcp
    if manager is None:
        return "No MCP servers configured (pi mcp add, or ~/.pi/agent/mcp.json)."
    words = text.strip().split()[1:]
    if not words:
        await manager.wait_all()  # as pi mcp list: the status once every server has answered
        return status_text(manager)
    action, rest = words[0], words[1:]
    if action not in ACTIONS or len(rest) != 1:
        return f"Usage: /mcp [{'|'.join(ACTIONS)} <server>]"
    name = rest[0]
    try:
        if action == "reconnect":
            await manager.reconnect(name)
            ok = await manager.connection(name).wait_ready(None)
            return (
                f"MCP server {name}: {manager.connection(name).state}"
                if ok
                else f"MCP server {name}: {manager.connection(name).error}"
            )
        if action in ("enable", "disable"):
            written = await manager.set_enabled(name, action == "enable")
            return f"MCP server {name} {action}d" + (f" (saved to {written})" if written else "")
        if action == "login":
            said: list[str] = []
            await manager.sign_in(name, lambda line: said.append(line))
            return f"Signed in to MCP server {name}."
        removed = await manager.sign_out(name)
        return f"Signed out of MCP server {name}." if removed else f"No stored sign-in for MCP server {name}."
    except Exception as exc:  # one line back to the user
        return f"/mcp {action} {name}: {exc}"
