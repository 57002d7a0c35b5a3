"""A signal during the first model request keeps the prompt (issue 19 item 7).

SIGTERM, SIGHUP or SIGINT while ``pi -p`` waited for its first answer used to lose the prompt: a new
session wrote nothing until the first assistant message. The user's message is now on disk before
the request starts.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from pi_app.ai.testing import stall
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_the_first_request_keeps_the_prompt(
    tmp_path, llm_server: FakeLLMServer, signum
) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    llm_server.enqueue(stall())
    proc = home.popen("-p", "please remember this prompt")
    try:
        deadline = time.monotonic() + 30
        while not llm_server.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert llm_server.requests, "pi never sent its request"
        proc.send_signal(signum)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()

    (session,) = home.sessions()
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    users = [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]
    assert [u["content"][0]["text"] if isinstance(u["content"], list) else u["content"] for u in users] == [
        "please remember this prompt"
    ]


STUBBORN_TOOL = """
import asyncio
from pathlib import Path

from pi_app.ext import AgentToolResult, ExtensionAPI, TextContent, ToolDefinition, ToolParams


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id, params, signal, on_update, ctx) -> AgentToolResult:
        Path("tool-started").write_text("yes")
        while True:  # ignores cancellation: pi's wind-down after Ctrl+C would wait for ever
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass
        return AgentToolResult([TextContent("never")])

    pi.register_tool(
        ToolDefinition(name="stubborn", label="Stubborn", description="Never ends.", parameters=ToolParams, execute=execute)
    )
"""


def test_ctrl_c_ends_a_headless_run_whose_wind_down_never_finishes(
    tmp_path, llm_server: FakeLLMServer
) -> None:
    from pi_app.ai.testing import tool_call
    from pi_app.cli import INTERRUPT_DEADLINE_S

    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    extension = tmp_path / "stubborn.py"
    extension.write_text(STUBBORN_TOOL)
    llm_server.enqueue(tool_call("stubborn", {}, id="call_1"))
    proc = home.popen("-p", "-e", str(extension), "call the stubborn tool")
    try:
        deadline = time.monotonic() + 60
        while not (home.project / "tool-started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (home.project / "tool-started").exists(), "the tool never ran"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=INTERRUPT_DEADLINE_S + 10)
        assert time.monotonic() - sent >= INTERRUPT_DEADLINE_S - 0.5  # it did try to wind down
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
