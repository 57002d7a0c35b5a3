"""Pipes, devices and aborts in the file tools (issue 19 item 2).

``read`` of a FIFO used to freeze pi (the open waited for a writer on the agent's own loop, so abort,
RPC ``get_state`` and every key did nothing); ``/dev/zero`` was read for ever, abort took the 5 s
grace and the reading thread kept pi from exiting. Now the file tools refuse pipes, sockets and
devices with one sentence, a read stops within a chunk of an abort, and a tool that ignores an abort
is cancelled after 100 ms.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pi_app.agent.agent import Agent
from pi_app.agent.testing import stubborn_tool
from pi_app.ai.event_stream import AbortController
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.coding.tools import create_edit_tool, create_read_tool, create_write_tool, read_scan
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback
from tests.tools.conftest import run_tool

DEADLINE = 5.0  # far above what any of these may take; a freeze is what they catch


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


async def _error_of(tool, params: dict) -> str:
    with pytest.raises(Exception) as info:
        await asyncio.wait_for(run_tool(tool, params), DEADLINE)
    return str(info.value)


async def test_read_of_a_fifo_is_refused_at_once(fifo: Path) -> None:
    message = await _error_of(create_read_tool(str(fifo.parent)), {"path": "pipe"})
    assert message == "Could not read file: pipe. It is a named pipe (FIFO), not a regular file."


async def test_read_of_a_device_is_refused_at_once(tmp_path: Path) -> None:
    message = await _error_of(create_read_tool(str(tmp_path)), {"path": "/dev/zero"})
    assert message == "Could not read file: /dev/zero. It is a character device, not a regular file."


async def test_read_through_a_symlink_to_a_fifo_is_refused(fifo: Path) -> None:
    (fifo.parent / "link").symlink_to(fifo)
    message = await _error_of(create_read_tool(str(fifo.parent)), {"path": "link"})
    assert "named pipe (FIFO)" in message


async def test_edit_and_write_leave_a_fifo_alone(fifo: Path) -> None:
    cwd = str(fifo.parent)
    edit = await _error_of(
        create_edit_tool(cwd), {"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]}
    )
    write = await _error_of(create_write_tool(cwd), {"path": "pipe", "content": "x"})
    assert edit == "Could not edit file: pipe. It is a named pipe (FIFO), not a regular file."
    assert write == "Could not write file: pipe. It is a named pipe (FIFO), not a regular file."
    assert fifo.is_fifo()


async def test_an_aborted_read_returns_at_once_and_its_thread_stops(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "big.txt").write_bytes(b"line\n" * 1_000_000)
    monkeypatch.setattr(read_scan, "CHUNK_BYTES", 1)  # a read that would take many seconds
    controller = AbortController()
    threads_before = {t.ident for t in threading.enumerate()}
    task = asyncio.create_task(
        run_tool(create_read_tool(str(tmp_path)), {"path": "big.txt"}, signal=controller.signal)
    )
    await asyncio.sleep(0.3)
    assert not task.done()
    controller.abort()
    started = time.monotonic()
    with pytest.raises(Exception, match="Operation aborted"):
        await asyncio.wait_for(task, DEADLINE)
    assert time.monotonic() - started < 0.1
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and any(
        t.ident not in threads_before and t.is_alive() and "asyncio" in t.name for t in threading.enumerate()
    ):
        await asyncio.sleep(0.01)
    reading = [t for t in threading.enumerate() if t.ident not in threads_before and "asyncio" in t.name]
    # the executor thread may stay parked for reuse; it must not still be reading
    assert all(not t.is_alive() or _idle(t) for t in reading)


def _idle(thread: threading.Thread) -> bool:
    import sys
    import traceback

    frame = sys._current_frames().get(thread.ident or 0)
    stack = "".join(traceback.format_stack(frame)) if frame is not None else ""
    return "read_scan" not in stack


async def test_an_agent_tool_that_ignores_abort_is_cancelled_within_100_ms() -> None:
    provider = fake_provider(script=[[tool_call("stubborn", {}, id="1")], [text("done")]])
    agent = Agent(
        stream_fn=provider.stream_simple,
        initial_state={"model": provider.get_models()[0], "tools": [stubborn_tool("stubborn")]},
    )
    run = asyncio.create_task(agent.prompt("go"))
    while not agent.state.pending_tool_calls:
        await asyncio.sleep(0.001)
    agent.abort()
    began = time.monotonic()
    await asyncio.wait_for(run, DEADLINE)
    assert time.monotonic() - began < 0.5  # 100 ms of grace plus the loop's own bookkeeping
    assert agent.state.messages[-1].stop_reason == "aborted"


def test_rpc_read_of_a_fifo_answers_get_state_and_exits_at_eof(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    home = PiHome.make(tmp_path)
    os.mkfifo(home.project / "pipe")
    home.point_at(llm_server.base_url)
    llm_server.enqueue(tool_call("read", {"path": "pipe"}, id="call_1"))
    llm_server.enqueue(text("the pipe cannot be read"))
    proc = subprocess.Popen(
        [PI, "--mode", "rpc"],
        cwd=home.project,
        env=home.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def send(command: dict) -> None:
        proc.stdin.write(json.dumps(command).encode() + b"\n")
        proc.stdin.flush()

    def next_event(deadline: float) -> dict:
        return json.loads(lines.get(timeout=max(0.01, deadline - time.monotonic())))

    try:
        send({"id": "1", "type": "prompt", "message": "read it"})
        deadline = time.monotonic() + 30
        events = [next_event(deadline)]
        while events[-1]["type"] != "tool_execution_start":
            events.append(next_event(deadline))
        send({"id": "2", "type": "get_state"})  # while the read runs (or has just been refused)
        deadline = time.monotonic() + DEADLINE
        while not (events[-1].get("command") == "get_state"):
            events.append(next_event(deadline))
        assert events[-1]["success"] is True
        deadline = time.monotonic() + 30
        while events[-1]["type"] != "agent_end":
            events.append(next_event(deadline))
        proc.stdin.close()
        assert proc.wait(timeout=DEADLINE) == 0  # EOF ends pi: no thread left reading
    finally:
        proc.kill()
        proc.wait()
    assert_no_traceback(proc.stderr.read().decode())
    (result,) = [e for e in events if e["type"] == "tool_execution_end"]
    assert result["isError"] is True
    assert "named pipe (FIFO)" in result["result"]["content"][0]["text"]
