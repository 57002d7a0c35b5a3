"""Helpers for the built-in tool tests: run a definition the way the agent loop would."""

from __future__ import annotations

from typing import Any

import pytest

from pi_app.agent.types import AgentToolResult
from pi_app.ai.event_stream import AbortController
from pi_app.coding.tools.definition import ToolDefinition


async def run_tool(
    tool: ToolDefinition,
    params: dict[str, Any],
    *,
    signal: Any = None,
    on_update: Any = None,
    ctx: Any = None,
) -> AgentToolResult:
    if tool.prepare_arguments is not None:
        params = tool.prepare_arguments(params)
    return await tool.execute("call-1", params, signal, on_update, ctx)


def text_of(result: AgentToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def aborted_signal() -> Any:
    controller = AbortController()
    controller.abort()
    return controller.signal


@pytest.fixture
def cwd(tmp_path) -> str:
    path = tmp_path / "work"
    path.mkdir()
    return str(path)
