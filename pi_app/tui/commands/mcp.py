"""``/mcp`` in the app (issue 22): the MCP servers, their state, tools, and what to do about them.

``/mcp`` lists the servers, those that need attention (failed, sign-in required, dropped) first,
each with its state, tool count, exposure and source. Picking one offers: its tools and connection
details (error and the tail of a stdio server's stderr), reconnect, sign in / sign out (HTTP
servers), enable or disable, and a change of exposure. Enabled state and exposure are saved to the
file that defines the server (its project override if it has one), leaving the rest of the file
as it was. ``/mcp login|logout|reconnect|enable|disable <server>`` do the action directly.

The servers live on the agent loop: every read and action goes through ``app.bridge.request``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_app.tui.transcript.blocks.info import InfoBlock

if TYPE_CHECKING:
    from pi_app.tui.host import SessionHost

ATTENTION = {"failed": 0, "needs-auth": 0, "disconnected": 0, "connecting": 1, "connected": 2, "disabled": 3}
ACTIONS = ("login", "logout", "reconnect", "enable", "disable")
EXPOSURES = ("direct", "deferred", "codemode", "hidden")


def _summary(entry: dict[str, Any]) -> str:
    state = entry["state"]
    if state == "connected":
        count = len(entry["tools"])
        state = f"connected, {count} tool{'s' if count != 1 else ''}"
    return f"{entry['name']} — {state} ({entry['exposure']}, {entry['scope']})"


async def _status(app: SessionHost) -> list[dict[str, Any]] | None:
    status: list[dict[str, Any]] | None = await app.bridge.request(
        lambda s: s.mcp.status() if s.mcp is not None else None
    )
    return status


async def mcp_command(app: SessionHost, args: str) -> None:
    words = args.split()
    status = await _status(app)
    if status is None:
        app.show_status(
            "No MCP servers configured (pi mcp add, or ~/.pi/agent/mcp.json); /reload after adding one"
        )
        return
    if words and words[0] in ACTIONS:
        if len(words) != 2:
            app.show_error(f"Usage: /mcp {words[0]} <server>")
            return
        await run_action(app, words[0], words[1])
        return
    if words:
        app.show_error(f"Unknown /mcp action {words[0]!r} (login, logout, reconnect, enable, disable)")
        return
    await _browse(app, status)


async def _browse(app: SessionHost, status: list[dict[str, Any]]) -> None:
    from pi_app.tui.selectors.choice import ChoiceSelector
    from pi_app.tui.selectors.slot import ask

    ordered = sorted(status, key=lambda e: ATTENTION.get(e["state"], 1))
    errors = await app.bridge.request(lambda s: list(s.mcp.config.errors))
    message = "\n".join(f"config error: {e}" for e in errors) or None
    selector = ChoiceSelector(
        "MCP servers", [_summary(e) for e in ordered], keys=app.keybindings, message=message
    )
    try:
        answer = await ask(app, selector)
    finally:
        app.restore_editor()
    index = answer.index if isinstance(answer, ChoiceSelector.Chosen) else None
    if index is None:
        return
    await _server_menu(app, ordered[index])


async def _server_menu(app: SessionHost, entry: dict[str, Any]) -> None:
    from pi_app.tui.selectors.choice import ChoiceSelector
    from pi_app.tui.selectors.slot import ask

    name = entry["name"]
    http = entry["transport"].startswith(("http://", "https://"))
    options: list[tuple[str, str]] = [("Tools and connection details", "details"), ("Reconnect", "reconnect")]
    if http:
        options += [("Sign in", "login"), ("Sign out", "logout")]
    options.append(("Disable", "disable") if entry["enabled"] else ("Enable", "enable"))
    options += [(f"Exposure: {e}", f"exposure:{e}") for e in EXPOSURES if e != entry["exposure"]]
    selector = ChoiceSelector(_summary(entry), [label for label, _ in options], keys=app.keybindings)
    try:
        answer = await ask(app, selector)
    finally:
        app.restore_editor()
    index = answer.index if isinstance(answer, ChoiceSelector.Chosen) else None
    if index is None:
        return
    await run_action(app, options[index][1], name)


async def run_action(app: SessionHost, action: str, name: str) -> None:
    try:
        if action == "details":
            text = await app.bridge.request(lambda s: s.mcp.details(name))
            app.transcript.append_block(InfoBlock(text))
        elif action == "reconnect":
            await app.bridge.request(lambda s: s.mcp.reconnect(name))
            app.show_status(f"Reconnecting MCP server {name}")
        elif action in ("enable", "disable"):
            written = await app.bridge.request(lambda s: s.mcp.set_enabled(name, action == "enable"))
            where = f" (saved to {written})" if written else " (this session)"
            app.show_status(f"MCP server {name} {action}d{where}")
        elif action.startswith("exposure:"):
            exposure = action.split(":", 1)[1]
            written = await app.bridge.request(lambda s: s.mcp.set_exposure(name, exposure))
            app.show_status(
                f"MCP server {name}: exposure {exposure}" + (f" (saved to {written})" if written else "")
            )
        elif action == "login":
            app.show_status(f"Signing in to {name}: approve in the browser")

            def say(line: str) -> None:
                app.call_from_thread(app.transcript.append_block, InfoBlock(line.replace("\n  ", "\n\n    ")))

            await app.bridge.request(lambda s: s.mcp.sign_in(name, say))
            app.show_status(f"Signed in to MCP server {name}")
        elif action == "logout":
            removed = await app.bridge.request(lambda s: s.mcp.sign_out(name))
            app.show_status(
                f"Signed out of MCP server {name}" if removed else f"No stored sign-in for {name}"
            )
    except Exception as exc:  # one line, the app goes on
        app.show_error(f"/mcp {action.split(':')[0]} {name}: {exc}")
