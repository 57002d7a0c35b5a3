"""Where the real MCP servers of the tests are, and the small scripted misbehaving servers.

``@modelcontextprotocol/server-everything`` (npm) is installed into ``tests/_deps`` by ``.ci/run``
(``npm install`` there); ``mcp-server-time`` (PyPI) comes with the dev extra. Tests that need one
skip with the reason when it is missing on a dev machine.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

DEPS = Path(__file__).resolve().parents[1] / "_deps"
EVERYTHING = DEPS / "node_modules" / ".bin" / "mcp-server-everything"


def everything_command() -> list[str]:
    if not EVERYTHING.exists() or shutil.which("node") is None:
        pytest.skip(
            "@modelcontextprotocol/server-everything is not installed (cd tests/_deps && npm install)"
        )
    return [str(EVERYTHING)]


def time_command() -> list[str]:
    if importlib.util.find_spec("mcp_server_time") is None:
        pytest.skip("mcp-server-time is not installed (pip install -e '.[dev]')")
    return [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def stdio_entry(argv: list[str], **extra: Any) -> dict[str, Any]:
    return {"command": argv[0], "args": argv[1:], **extra}


def write_mcp_json(agent_dir: Path, servers: dict[str, Any], **top: Any) -> Path:
    agent_dir.mkdir(parents=True, exist_ok=True)
    path = agent_dir / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers, **top}, indent=2), encoding="utf-8")
    return path


# Writes its pid to the file named by its first argument (when given), then never answers.
HANG_ON_INITIALIZE = """
import os, sys, time
if len(sys.argv) > 1:
    open(sys.argv[1], "w").write(str(os.getpid()))
sys.stdin.readline()
time.sleep(3600)
"""

# Answers initialize and tools/list with one tool, then dies when the tool is called.
CRASH_ON_CALL = r"""
import json, os, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "crasher", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{"name": "boom", "description": "Crashes the server",
              "inputSchema": {"type": "object", "properties": {}}}]}})
    elif method == "tools/call":
        sys.stderr.write("about to crash\n"); sys.stderr.flush()
        os._exit(3)
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
"""


def script_server(tmp_path: Path, name: str, source: str) -> list[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return [sys.executable, str(path)]
