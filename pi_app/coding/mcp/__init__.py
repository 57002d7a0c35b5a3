"""Built-in MCP support (issue 22): servers from ``mcp.json`` over stdio and streamable HTTP.

Layout: ``config`` (the files, validation, ``${VAR}``, writes), ``naming`` (tool names, exposure
patterns), ``connection`` (one server on the official ``mcp`` SDK), ``manager`` (the session's
servers, tools as the model sees them, status), ``tools`` (tool adapters, ``tool_search``,
resource tools), ``results`` (MCP results -> tool results), ``session_tools`` (the glue into an
``AgentSession``'s runs), ``oauth`` (sign-in for HTTP servers).

Start-up cost: ``attach_mcp`` reads the config files only; nothing of the SDK is imported unless
a server is configured (checked with ``python -X importtime``).
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.mcp.config import McpConfig
    from pi_app.coding.mcp.manager import McpManager

_atexit_installed = False


def attach_mcp(
    session: AgentSession,
    *,
    agent_dir: str | Path,
    cwd: str,
    project_trusted: bool,
    report: Callable[[str], None],
    allow_patterns: Iterable[str] | None = None,
    exclude_patterns: Iterable[str] = (),
    defer_connect: bool = False,
) -> McpManager | None:
    """Load ``mcp.json`` and connect its servers in the background; the manager, or None when
    there is nothing configured. Must run inside the session's event loop. ``defer_connect``
    (print and JSON mode): connect when the first prompt runs (``session_tools.prepare_run``)."""
    from pi_app.coding.mcp.config import has_configured_servers

    if not has_configured_servers(agent_dir, cwd, project_trusted=project_trusted):
        return None
    from pi_app.coding.mcp.config import load_mcp_config

    config = load_mcp_config(agent_dir, cwd, project_trusted=project_trusted)
    if not config.servers and not config.errors:
        return None
    return start_manager(
        session,
        config,
        agent_dir=agent_dir,
        cwd=cwd,
        report=report,
        allow_patterns=allow_patterns,
        exclude_patterns=exclude_patterns,
        connect=not defer_connect,
    )


def _lazy_auth_factory(agent_dir: Path) -> Callable[[Any], Any]:
    """``oauth.auth_factory``, imported when an HTTP server first connects (not at start-up)."""

    def make(server: Any) -> Any:
        from pi_app.coding.mcp.oauth import auth_factory

        factory = auth_factory(agent_dir, interactive=False)
        return factory(server) if factory is not None else None

    return make


def start_manager(
    session: AgentSession,
    config: McpConfig,
    *,
    agent_dir: str | Path,
    cwd: str,
    report: Callable[[str], None],
    allow_patterns: Iterable[str] | None = None,
    exclude_patterns: Iterable[str] = (),
    connect: bool = True,
) -> McpManager:
    global _atexit_installed
    from pi_app.coding.mcp.manager import McpManager

    manager = McpManager(
        config,
        cwd=cwd,
        agent_dir=agent_dir,
        report=report,
        allow_patterns=allow_patterns,
        exclude_patterns=exclude_patterns,
        auth_factory=_lazy_auth_factory(Path(agent_dir)),
    )
    if session is not None:
        session.mcp = manager
    manager.start(connect=connect)
    if not _atexit_installed:
        from pi_app.coding.mcp.connection import kill_all_children

        atexit.register(kill_all_children)
        _atexit_installed = True
    return manager


def register_extension_servers(session: AgentSession, servers: dict[str, tuple[dict[str, Any], str]]) -> None:
    """Servers extensions registered (name -> (entry, extension path)); a manager is made for a
    session without mcp.json servers. Sessions started with ``--no-mcp`` get none."""
    if not servers or getattr(session, "mcp_disabled", False):
        return
    manager = session.mcp
    if manager is None:
        from pi_app.coding import paths
        from pi_app.coding.mcp.config import McpConfig

        report = getattr(session, "mcp_report", None) or (lambda line: None)
        manager = start_manager(
            session, McpConfig(), agent_dir=paths.agent_dir(), cwd=session.cwd, report=report
        )
    for name, (entry, source) in servers.items():
        manager.register_server(name, entry, f"extension:{source}")


async def reload_mcp(session: AgentSession) -> None:
    """``/reload``: read mcp.json again; servers whose entry did not change keep their connection,
    the others are stopped, started or restarted. Extension servers stay as registered."""
    if getattr(session, "mcp_disabled", False):
        return
    from pi_app.coding import paths
    from pi_app.coding.mcp.config import McpConfig, load_mcp_config

    old = session.mcp
    loader = getattr(session, "resource_loader", None)
    trusted = bool(getattr(loader, "project_trusted", False))
    agent_dir = old.agent_dir if old is not None else paths.agent_dir()
    config = load_mcp_config(agent_dir, session.cwd, project_trusted=trusted)
    if old is None:
        if config.servers or config.errors:
            report = getattr(session, "mcp_report", None) or (lambda line: None)
            start_manager(session, config, agent_dir=agent_dir, cwd=session.cwd, report=report)
        return
    kept = {}
    for name, server in config.servers.items():
        connection = old.connections.get(name)
        if (
            connection is not None
            and connection.config.raw == server.raw
            and connection.config.source == server.source
        ):
            kept[name] = connection
    extension = {
        n: c for n, c in old.connections.items() if c.config.scope == "extension" and n not in config.servers
    }
    for name, connection in old.connections.items():
        if name not in kept and name not in extension:
            await connection.close()
    old.config = config if config is not None else McpConfig()
    old.connections = {}
    old._definitions.clear()
    old._reported = {key for key in old._reported if key[0] in kept}
    for name, server in config.servers.items():
        if name in kept:
            kept[name].config = server
            old.connections[name] = kept[name]
        else:
            old._add(server)
    old.connections.update(extension)
    old.start()
