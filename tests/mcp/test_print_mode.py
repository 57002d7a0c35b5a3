"""MCP servers in print mode through the fake LLM server: tools in the request with pi's names,
a call, its result in the next request; misbehaving servers do not hold pi up (issue 22)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import run_pi, write_models_json
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.servers import (
    CRASH_ON_CALL,
    HANG_ON_INITIALIZE,
    everything_command,
    script_server,
    stdio_entry,
    time_command,
    write_mcp_json,
)

ARGS = ("--provider", "fake", "--model", "fake-model", "-p")


def _tool_names(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def _tool_results(body: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def test_direct_tools_reach_the_model_and_a_call_result_comes_back(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {
            "time": stdio_entry(time_command(), exposure="direct"),
            "every-thing": stdio_entry([*everything_command(), "stdio"], exposure="direct"),
        },
    )
    llm_server.enqueue(tool_call("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}, id="c1"))
    llm_server.enqueue(tool_call("mcp__every_thing__get_sum", {"a": 2, "b": 40}, id="c2"))
    llm_server.enqueue(text("done"))
    result = run_pi(*ARGS, "what time is it in Tokyo?", cwd=project, timeout=90)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
    first, second, third = (r.body for r in llm_server.requests)
    names = _tool_names(first)
    assert {
        "read",
        "bash",
        "mcp__time__get_current_time",
        "mcp__time__convert_time",
        "mcp__every_thing__echo",
    } <= set(names)
    schema = next(
        t["function"]["parameters"]
        for t in first["tools"]
        if t["function"]["name"] == "mcp__time__get_current_time"
    )
    assert "timezone" in schema["properties"]  # the server's JSON schema, passed through
    assert "Asia/Tokyo" in _tool_results(second)[0] and "datetime" in _tool_results(second)[0]
    assert "42" in _tool_results(third)[1]


def test_no_mcp_leaves_the_servers_out(llm_server: FakeLLMServer, agent_dir: Path, project: Path) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(agent_dir, {"time": stdio_entry(time_command(), exposure="direct")})
    llm_server.enqueue(text("ok"))
    result = run_pi(*ARGS, "--no-mcp", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert not [n for n in _tool_names(llm_server.requests[0].body) if n.startswith("mcp__")]


def test_hanging_crashing_and_malformed_servers_do_not_hold_print_mode_up(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path, tmp_path: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {
            "hangs": stdio_entry(
                [*script_server(tmp_path, "hang", HANG_ON_INITIALIZE), str(tmp_path / "hang.pid")]
            ),
            "crashes": stdio_entry(script_server(tmp_path, "crash", CRASH_ON_CALL), exposure="direct"),
            "broken": {"command": ["not", "a", "string"]},
        },
    )
    # baseline: the same prompt without any server
    llm_server.enqueue(text("ok"))
    started = time.monotonic()
    assert run_pi(*ARGS, "--no-mcp", "hi", cwd=project).returncode == 0
    baseline = time.monotonic() - started
    llm_server.enqueue(tool_call("mcp__crashes__boom", {}, id="c1"))
    llm_server.enqueue(text("went on"))
    result = run_pi(*ARGS, "hi", cwd=project, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "went on"
    # the crash reached the model as a failed tool call naming the server
    assert "crashes" in _tool_results(llm_server.requests[2].body)[0]
    lines = result.stderr.splitlines()
    assert [line for line in lines if '"broken"' in line and "command" in line], result.stderr
    # the prompt went out without waiting for the hanging server (its exposure is not direct)
    first_request = llm_server.requests[1].received_at
    assert first_request - llm_server.requests[0].received_at > 0  # sanity
    del baseline  # timing is compared in benchmarks/mcp_startup.py, not here
    # the stdio servers end with pi (their process groups are signalled at exit)
    pid = int((tmp_path / "hang.pid").read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_slash_mcp_in_print_mode_prints_the_status_and_never_reaches_the_model(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {"time": stdio_entry(time_command(), exposure="deferred"), "off": {"command": "x", "enabled": False}},
    )
    result = run_pi(*ARGS, "/mcp", cwd=project, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "time: connected, 2 tools (deferred, global)" in result.stdout
    assert "off: disabled (codemode, global)" in result.stdout
    assert llm_server.requests == []


def test_tools_and_exclude_tools_filter_mcp_tools_only_through_mcp_patterns(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(
        agent_dir,
        {
            "time": stdio_entry(time_command(), exposure="direct"),
            "clock": stdio_entry(time_command(), exposure="direct"),
        },
    )
    llm_server.enqueue(text("ok"))
    assert run_pi(*ARGS, "--tools", "read", "hi", cwd=project, timeout=60).returncode == 0
    names = _tool_names(llm_server.requests[-1].body)
    assert (
        "read" in names and "bash" not in names and "mcp__time__get_current_time" in names
    )  # no mcp__ entry
    llm_server.enqueue(text("ok"))
    assert run_pi(*ARGS, "--tools", "read,mcp__time__*", "hi", cwd=project, timeout=60).returncode == 0
    names = _tool_names(llm_server.requests[-1].body)
    assert "mcp__time__convert_time" in names and not [n for n in names if n.startswith("mcp__clock")]
    llm_server.enqueue(text("ok"))
    assert (
        run_pi(*ARGS, "--exclude-tools", "mcp__*__convert_time", "hi", cwd=project, timeout=60).returncode
        == 0
    )
    names = _tool_names(llm_server.requests[-1].body)
    assert "mcp__clock__get_current_time" in names and not [n for n in names if n.endswith("convert_time")]


def test_excluding_tool_search_with_deferred_servers_is_said_once(
    llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(agent_dir, {"time": stdio_entry(time_command(), exposure="deferred")})
    llm_server.enqueue(text("ok"))
    result = run_pi(*ARGS, "--exclude-tools", "tool_search", "hi", cwd=project, timeout=60)
    assert result.returncode == 0
    assert len([line for line in result.stderr.splitlines() if "tool_search is excluded" in line]) == 1
    assert "tool_search" not in _tool_names(llm_server.requests[-1].body)
