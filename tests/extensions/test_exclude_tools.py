"""``--exclude-tools`` removes any named tool — built-in or extension, registered at load or later —
in print and RPC mode (spec 50 §2.3, D-30; pi 0.73.1 has no such flag, ``--tools`` is its
allow-list). Checked on the tool list the model receives."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pi_app.ai.testing import text
from pi_app.modes.rpc_client import RpcClient
from tests.e2e.helpers import PI, run_pi
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

TOOLS = """
from pi_app.ext import ToolDefinition, text_result

def _tool(name):
    async def run(tool_call_id, params, signal, on_update, ctx):
        return text_result(name)
    return ToolDefinition(name=name, label=name, description=f"The {name} tool",
        parameters={"type": "object", "properties": {}}, execute=run)

def setup(pi):
    pi.register_tool(_tool("greet"))
    pi.register_tool(_tool("wave"))

    @pi.on("session_start")
    async def later(event, ctx):
        pi.register_tool(_tool("late"))
"""


def _home(tmp_path: Path, server: FakeLLMServer) -> PiHome:
    home = PiHome.make(tmp_path)
    (home.agent_dir / "extensions").mkdir()
    (home.agent_dir / "extensions" / "tools.py").write_text(textwrap.dedent(TOOLS))
    home.point_at(server.base_url)
    return home


def _tools_sent(server: FakeLLMServer) -> list[str]:
    return [t["function"]["name"] for t in server.requests[-1].body.get("tools", [])]


def test_print_mode_excludes_extension_and_builtin_tools(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        home = _home(tmp_path, server)
        server.enqueue(text("all tools"))
        result = run_pi("--no-session", "-p", "hi", cwd=home.project, env=home.env())
        assert result.returncode == 0, result.stderr
        assert _tools_sent(server) == ["read", "bash", "edit", "write", "greet", "wave", "late"]

        server.enqueue(text("fewer tools"))
        result = run_pi(
            "--exclude-tools", "greet,bash,late", "--no-session", "-p", "hi", cwd=home.project, env=home.env()
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout == "fewer tools\n"
        assert _tools_sent(server) == ["read", "edit", "write", "wave"]

        server.enqueue(text("allow-list minus exclusions"))
        result = run_pi(
            "--tools", "read,greet,wave", "--exclude-tools", "wave", "--no-session", "-p", "hi",
            cwd=home.project, env=home.env(),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert _tools_sent(server) == ["read", "greet"]


async def test_rpc_mode_excludes_extension_tools(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        home = _home(tmp_path, server)
        server.enqueue(text("answered"))
        args = ["--no-session", "--exclude-tools", "wave,late,edit"]
        async with RpcClient(args, cwd=str(home.project), env=home.env(), command=[PI]) as client:
            await client.prompt_and_wait("hi")
        assert _tools_sent(server) == ["read", "bash", "write", "greet"]
