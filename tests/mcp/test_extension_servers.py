"""Extensions add MCP servers with ``pi.register_mcp_server`` (issue 22); a server of the same
name in mcp.json wins, and ``--no-mcp`` leaves them out too."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import text
from tests.e2e.helpers import run_pi, write_models_json
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.servers import time_command, write_mcp_json

EXTENSION = """
def setup(pi):
    pi.register_mcp_server("clock", {{"command": {command!r}, "args": {args!r}, "exposure": "direct"}})
"""


def _names(server: FakeLLMServer) -> list[str]:
    return [t["function"]["name"] for t in server.requests[-1].body.get("tools", [])]


def test_an_extension_server_connects_like_a_configured_one(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path, tmp_path: Path
) -> None:
    command = time_command()
    extension = tmp_path / "clock_ext.py"
    extension.write_text(EXTENSION.format(command=command[0], args=command[1:]))
    write_models_json(agent_dir, llm_server.base_url)
    args = ("--provider", "fake", "--model", "fake-model", "--no-session", "-e", str(extension), "-p", "hi")
    llm_server.enqueue(text("ok"))
    result = run_pi(*args, cwd=project, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "mcp__clock__get_current_time" in _names(llm_server)

    llm_server.enqueue(text("ok"))
    assert run_pi(*args[:-2], "--no-mcp", "-p", "hi", cwd=project, timeout=60).returncode == 0
    assert not [n for n in _names(llm_server) if n.startswith("mcp__")]

    # mcp.json's "clock" wins over the extension's
    write_mcp_json(agent_dir, {"clock": {"command": command[0], "args": command[1:], "exposure": "hidden"}})
    llm_server.enqueue(text("ok"))
    assert run_pi(*args, cwd=project, timeout=60).returncode == 0
    assert not [n for n in _names(llm_server) if n.startswith("mcp__clock")]
    assert json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["clock"]["exposure"] == "hidden"
