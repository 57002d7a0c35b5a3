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
from typing import Any

_atexit_installed = False


def attach_mcp(
    session: Any,
    *,
    agent_dir: str | Path,
    cwd: str,
    project_trusted: bool,
    report: Callable[[str], None],
    allow_patterns: Iterable[str] | None = None,
    exclude_patterns: Iterable[str] = (),
) -> Any:
    """Load ``mcp.json`` and connect its servers in the background; the manager, or None when
    there is nothing configured. Must run inside the session's event loop."""
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
    )


def start_manager(
    session: Any,
    config: Any,
    *,
    agent_dir: str | Path,
    cwd: str,
    report: Callable[[str], None],
    allow_patterns: Iterable[str] | None = None,
    exclude_patterns: Iterable[str] = (),
) -> Any:
    global _atexit_installed
    from pi_app.coding.mcp.manager import McpManager
    from pi_app.coding.mcp.oauth import auth_factory

    manager = McpManager(
        config,
        cwd=cwd,
        agent_dir=agent_dir,
        report=report,
        allow_patterns=allow_patterns,
        exclude_patterns=exclude_patterns,
        auth_factory=auth_factory(Path(agent_dir), interactive=False),
    )
    if session is not None:
        session.mcp = manager
    manager.start()
    if not _atexit_installed:
        from pi_app.coding.mcp.connection import kill_all_children

        atexit.register(kill_all_children)
        _atexit_installed = True
    return manager
