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


GATE = """
import json

def setup(pi):
    @pi.on("tool_call")
    def gate(event, ctx):
        infos = {{t.name: t.annotations for t in pi.get_all_tools()}}
        open({out!r}, "w").write(json.dumps({{"tool": event.tool_name, "annotations": infos.get(event.tool_name)}}))
        if (infos.get(event.tool_name) or {{}}).get("readOnlyHint"):
            return None
        return {{"block": True, "reason": "only read-only MCP tools"}}
"""


def test_mcp_calls_pass_extension_gates_that_see_the_servers_annotations(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path, tmp_path: Path
) -> None:
    from pi_app.ai.testing import tool_call
    from tests.mcp.servers import everything_command, stdio_entry

    out = tmp_path / "seen.json"
    extension = tmp_path / "gate.py"
    extension.write_text(GATE.format(out=str(out)))
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="direct")}
    )
    llm_server.enqueue(tool_call("mcp__everything__toggle_simulated_logging", {}, id="c1"))
    llm_server.enqueue(tool_call("mcp__everything__echo", {"message": "hi"}, id="c2"))
    llm_server.enqueue(text("done"))
    result = run_pi(
        "--provider",
        "fake",
        "--model",
        "fake-model",
        "--no-session",
        "-e",
        str(extension),
        "-p",
        "go",
        cwd=project,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    blocked = json.dumps(llm_server.requests[1].body["messages"][-1])
    assert "only read-only MCP tools" in blocked
    seen = json.loads(out.read_text())
    assert seen["tool"] == "mcp__everything__echo" and seen["annotations"]["readOnlyHint"] is True
    assert "Echo: hi" in json.dumps(llm_server.requests[2].body["messages"][-1])
