"""Helpers for the built-in tool tests: run a definition the way the agent loop would, build file
trees, and run search tests once per back end (``backend`` fixture) and repo kind (``repo_kind``)."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from pi_app.agent.types import AgentToolResult
from pi_app.ai.event_stream import AbortController
from pi_app.coding.tools.definition import ToolDefinition
from pi_app.coding.tools.search_backend import find_rg


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


@pytest.fixture(params=["native", "python"])
def backend(request, monkeypatch) -> str:
    if request.param == "native" and find_rg() is None:
        pytest.skip("rg not installed")
    monkeypatch.setenv("PI_SEARCH_BACKEND", request.param)
    return request.param


@pytest.fixture(params=["git", "plain"])
def repo_kind(request) -> str:
    return request.param


def make_tree(root: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)


def git_init(root: str) -> None:
    subprocess.run(["git", "init", "-q", root], check=True)
