"""RPC ``get_state`` carries the MCP servers' state (issue 22)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from tests.e2e.helpers import PI, write_models_json
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.servers import stdio_entry, time_command, write_mcp_json


def test_get_state_lists_servers_and_their_state(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {"time": stdio_entry(time_command(), exposure="direct"), "off": {"command": "x", "enabled": False}},
    )
    proc = subprocess.Popen(
        [PI, "--mode", "rpc", "--provider", "fake", "--model", "fake-model", "--no-session"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        deadline = time.monotonic() + 30
        servers: list[dict] = []
        while time.monotonic() < deadline:
            proc.stdin.write(json.dumps({"type": "get_state", "id": "s"}) + "\n")
            proc.stdin.flush()
            while True:
                line = json.loads(proc.stdout.readline())
                if line.get("type") == "response":
                    break
            servers = line["data"]["mcp"]["servers"]
            if servers[0]["state"] == "connected":
                break
            time.sleep(0.2)
        by_name = {s["name"]: s for s in servers}
        assert by_name["time"]["state"] == "connected"
        assert "get_current_time" in by_name["time"]["tools"]
        assert by_name["off"]["state"] == "disabled" and by_name["off"]["enabled"] is False
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def test_slash_mcp_over_rpc_is_handled_and_answers_with_a_notify(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(agent_dir, {"time": stdio_entry(time_command(), exposure="direct")})
    proc = subprocess.Popen(
        [PI, "--mode", "rpc", "--provider", "fake", "--model", "fake-model", "--no-session"],
        cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps({"type": "prompt", "message": "/mcp", "id": "m"}) + "\n")
        proc.stdin.flush()
        seen: list[dict] = []
        while not any(line.get("method") == "notify" for line in seen):
            seen.append(json.loads(proc.stdout.readline()))
        response = next(line for line in seen if line.get("type") == "response")
        assert response["data"]["disposition"] == "handled"
        notify = next(line for line in seen if line.get("method") == "notify")
        assert "time: connected, 2 tools (direct, global)" in notify["message"]
        assert llm_server.requests == []
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
