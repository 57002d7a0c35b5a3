"""Progress, cancellation, resources, tool search and streamable HTTP against the reference
server ``@modelcontextprotocol/server-everything`` (issue 22 acceptance 1)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import PI, run_pi, write_models_json
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.servers import everything_command, stdio_entry, write_mcp_json

ARGS = ("--provider", "fake", "--model", "fake-model", "--no-session")


def _events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _tool_names(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def _tool_texts(body: dict) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def test_progress_notifications_reach_the_tool_block_as_updates(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="direct", timeout=2)}
    )
    # 3 s in 6 steps with a 2 s timeout: only the progress notifications keep the call alive
    llm_server.enqueue(
        tool_call("mcp__everything__trigger_long_running_operation", {"duration": 3, "steps": 6}, id="c1")
    )
    llm_server.enqueue(text("done"))
    result = run_pi(*ARGS, "--mode", "json", "go", cwd=project, timeout=90)
    assert result.returncode == 0, result.stderr
    events = _events(result.stdout)
    updates = [e for e in events if e["type"] == "tool_execution_update"]
    texts = [e["partialResult"]["content"][0]["text"] for e in updates]
    assert "progress 1/6" in texts and "progress 6/6" in texts
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert (
        end["isError"] is False and "Long running operation completed" in end["result"]["content"][0]["text"]
    )


def test_resources_are_listed_and_read_and_images_and_structured_content_are_mapped(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="direct")}
    )
    llm_server.enqueue(tool_call("list_mcp_resources", {"server": "everything"}, id="c1"))
    llm_server.enqueue(
        tool_call(
            "read_mcp_resource",
            {"server": "everything", "uri": "demo://resource/static/document/architecture.md"},
            id="c2",
        )
    )
    llm_server.enqueue(tool_call("mcp__everything__get_tiny_image", {}, id="c3"))
    llm_server.enqueue(
        tool_call("mcp__everything__get_structured_content", {"location": "New York"}, id="c4")
    )
    llm_server.enqueue(tool_call("mcp__everything__get_resource_links", {"count": 1}, id="c5"))
    llm_server.enqueue(text("done"))
    result = run_pi(*ARGS, "--mode", "json", "go", cwd=project, timeout=90)
    assert result.returncode == 0, result.stderr
    first = llm_server.requests[0].body
    assert {"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"} <= set(
        _tool_names(first)
    )
    ends = {e["toolCallId"]: e for e in _events(result.stdout) if e["type"] == "tool_execution_end"}
    listed = json.loads(ends["c1"]["result"]["content"][0]["text"])
    assert listed["server"] == "everything" and any(
        r["uri"].startswith("demo://") for r in listed["resources"]
    )
    assert all(r["server"] == "everything" for r in listed["resources"])
    read = ends["c2"]["result"]["content"][0]["text"]
    assert not ends["c2"]["isError"] and "architecture" in read.lower()
    image = ends["c3"]["result"]["content"]
    assert any(block["type"] == "image" and block["mimeType"] == "image/png" for block in image)
    assert ends["c4"]["result"]["details"]["structuredContent"]["temperature"] is not None
    links = ends["c5"]["result"]["content"]
    assert any(
        "read_mcp_resource" in b.get("text", "") and '"everything"' in b.get("text", "") for b in links
    )


def test_tool_search_loads_deferred_tools_for_the_next_step(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {
            "everything": stdio_entry(
                [*everything_command(), "stdio"], exposure="deferred", description="The reference test server"
            )
        },
    )
    llm_server.enqueue(tool_call("tool_search", {"query": "add two numbers sum"}, id="c1"))
    llm_server.enqueue(tool_call("mcp__everything__get_sum", {"a": 1, "b": 2}, id="c2"))
    llm_server.enqueue(text("done"))
    result = run_pi(*ARGS, "-p", "add", cwd=project, timeout=90)
    assert result.returncode == 0, result.stderr
    first, second, third = (r.body for r in llm_server.requests)
    assert "tool_search" in _tool_names(first)
    assert not [n for n in _tool_names(first) if n.startswith("mcp__")]
    system = first["messages"][0]["content"]
    assert "<mcp_servers>" in system and "everything" in system and "The reference test server" in system
    assert "mcp__everything__get_sum" in _tool_names(second)  # loaded by the search, declared next step
    assert "mcp__everything__get_sum" in _tool_texts(second)[0]
    assert "3" in _tool_texts(third)[1]


def test_an_explicit_codemode_entry_gets_tool_search_and_one_line(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="codemode")}
    )
    llm_server.enqueue(text("ok"))
    result = run_pi(*ARGS, "-p", "hi", cwd=project, timeout=90)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "codemode" in line]
    assert len(lines) == 1 and "tool_search" in lines[0]
    assert "tool_search" in _tool_names(llm_server.requests[0].body)


class RpcPi:
    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen(
            [PI, "--mode", "rpc", *ARGS],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, obj: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def until(self, kind: str, timeout: float = 60) -> dict:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = json.loads(self.proc.stdout.readline())
            if line.get("type") == kind:
                return line
        raise AssertionError(f"no {kind}")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=15)


def test_abort_cancels_a_long_call_and_the_session_goes_on(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="direct")}
    )
    llm_server.enqueue(
        tool_call("mcp__everything__trigger_long_running_operation", {"duration": 60, "steps": 60}, id="c1")
    )
    llm_server.enqueue(text("after abort"))
    pi = RpcPi(project)
    try:
        pi.send({"type": "prompt", "message": "go", "id": "p"})
        pi.until("tool_execution_update")  # the server reports progress: the call is running
        started = time.monotonic()
        pi.send({"type": "abort", "id": "a"})
        end = pi.until("tool_execution_end")
        assert time.monotonic() - started < 10 and end["isError"] is True
        pi.until("agent_end")
        pi.send({"type": "prompt", "message": "again", "id": "p2"})
        assert "after abort" in json.dumps(pi.until("agent_end"))
    finally:
        pi.close()


SLOW_SERVER = """
import os
import sys
import anyio
from mcp.server.mcpserver import MCPServer

app = MCPServer("slow")


@app.tool()
async def wait(seconds: float) -> str:
    \"\"\"Waits.\"\"\"
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        # written whole, then renamed: the test polls for the file and must never see it empty
        with open(sys.argv[1] + ".part", "w") as part:
            part.write("cancelled")
        os.replace(sys.argv[1] + ".part", sys.argv[1])
        raise
    return "waited"


app.run()
"""


def test_the_cancellation_reaches_the_server(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled.txt"
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SERVER)
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {"slow": {"command": sys.executable, "args": [str(script), str(marker)], "exposure": "direct"}},
    )
    llm_server.enqueue(tool_call("mcp__slow__wait", {"seconds": 60}, id="c1"))
    pi = RpcPi(project)
    try:
        pi.send({"type": "prompt", "message": "go", "id": "p"})
        pi.until("tool_execution_start")
        time.sleep(1.0)
        pi.send({"type": "abort", "id": "a"})
        pi.until("agent_end")
        deadline = time.monotonic() + 10
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.read_text() == "cancelled"  # notifications/cancelled interrupted the handler
    finally:
        pi.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def everything_http() -> Iterator[str]:
    command = everything_command()
    port = _free_port()
    proc = subprocess.Popen(
        [*command, "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=10)


def test_streamable_http_server_tools_are_called(
    everything_http: str, llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {
            "remote": {
                "url": everything_http,
                "exposure": "direct",
                "headers": {"X-Test": "${PI_TEST_HEADER}"},
            }
        },
    )
    llm_server.enqueue(tool_call("mcp__remote__echo", {"message": "über http"}, id="c1"))
    llm_server.enqueue(text("done"))
    result = run_pi(*ARGS, "-p", "echo", cwd=project, env={"PI_TEST_HEADER": "yes"}, timeout=90)
    assert result.returncode == 0, result.stderr
    assert "Echo: über http" in _tool_texts(llm_server.requests[1].body)[0]
    listed = run_pi("mcp", "list", cwd=project, env={"PI_TEST_HEADER": "yes"}, timeout=60)
    assert "remote: connected" in listed.stdout and everything_http in listed.stdout


def test_server_log_notifications_are_appended_to_mcp_log(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir, {"everything": stdio_entry([*everything_command(), "stdio"], exposure="direct")}
    )
    llm_server.enqueue(tool_call("mcp__everything__toggle_simulated_logging", {}, id="c1"))
    llm_server.enqueue(text("logging"))
    pi = RpcPi(project)
    log = agent_dir / "mcp.log"
    try:
        pi.send({"type": "prompt", "message": "go", "id": "p"})
        pi.until("agent_end")
        deadline = time.monotonic() + 20  # the server logs every 5 s
        while not (log.exists() and log.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.2)
        line = log.read_text().splitlines()[0]
        assert " [everything] " in line and ": " in line  # <time> [<server>] <level> <logger>: <message>
    finally:
        pi.close()
