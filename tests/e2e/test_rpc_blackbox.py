"""Black-box RPC: the installed ``pi --mode rpc`` driven by ``pi_app.modes.rpc_client`` against the
loopback fake LLM server, compared with the TypeScript pi's recorded streams (0.73.1's event order;
1.6.0's additions — delta-only ``message_update``, ``willRetry``, ``agent_settled`` — are checked
here too and against 1.6.0's own recording in test_json_stream_16.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.testing import delay, text, tool_call
from pi_app.modes.rpc_client import RpcClient, RpcError
from tests.e2e.helpers import PI, write_models_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference"


def _shape(event: dict) -> tuple:
    """Event type plus the sub-kind that matters for order comparisons.

    ``message_update`` sub-kinds are compared per message as a multiset (see ``_update_kinds``):
    pi 0.73.1's OpenAI adapter closes a text block only at the end of the message, ours when the
    next block starts, which is an L1 detail that does not change the event sequence.
    """
    kind = event["type"]
    if kind in ("message_start", "message_end"):
        return kind, event["message"]["role"]
    if kind == "response":
        return kind, event["command"]
    return (kind,)


def _update_kinds(events: list[dict]) -> list[list[str]]:
    groups: list[list[str]] = []
    for event in events:
        if event["type"] == "message_start":
            groups.append([])
        elif event["type"] == "message_update":
            groups[-1].append(event["assistantMessageEvent"]["type"])
    return [sorted(g) for g in groups]


def _keys(event: dict) -> set[str]:
    return set(event) - {"id"}


def _script_bash_ls(llm_server) -> None:
    """The scripted model of the pi fixtures, chunked the way that recording was."""
    llm_server.enqueue(
        text("Let me list the files.", chunks=2), tool_call("bash", {"command": "ls"}, id="call_0_0")
    )
    llm_server.enqueue(text("The directory contains a.txt and b.txt.", chunks=3))


def _without_settled(lines: list[dict]) -> list[dict]:
    """The stream minus 1.6.0's additions to 0.73.1's order: the closing ``agent_settled`` (right
    after ``agent_end``) and the ``system`` message announced after the first ``turn_start``."""
    kinds = [e["type"] for e in lines]
    assert kinds.count("agent_settled") == 1 and kinds[kinds.index("agent_settled") - 1] == "agent_end"
    assert next(e for e in lines if e["type"] == "agent_settled") == {
        "type": "agent_settled",
        "aborted": False,
    }
    first = kinds.index("turn_start") + 1
    assert [_shape(e) for e in lines[first : first + 2]] == [
        ("message_start", "system"),
        ("message_end", "system"),
    ]
    return [e for i, e in enumerate(lines) if e["type"] != "agent_settled" and i not in (first, first + 1)]


def _assert_same_fields(lines: list[dict], reference: list[dict]) -> None:
    """Same keys on every event (plus 1.6.0's changes); inner messages carry no key pi lacks."""
    update_keys = {
        e["assistantMessageEvent"]["type"]: set(e["assistantMessageEvent"]) - {"partial"}
        for e in reference
        if e["type"] == "message_update"
    }
    update_keys["toolcall_start"] = update_keys.get("toolcall_start", {"type", "contentIndex"}) | {
        "id",
        "toolName",
    }
    for ours, theirs in zip(lines, reference, strict=True):
        if ours["type"] == "message_update":
            assert list(ours) == ["type", "usage", "assistantMessageEvent"]
            inner = ours["assistantMessageEvent"]
            assert set(inner) == update_keys[inner["type"]], inner["type"]
            continue
        if ours["type"] == "agent_end":
            assert ours["willRetry"] is False
            ours = {k: v for k, v in ours.items() if k != "willRetry"}
        if ours["type"] == "tool_execution_end":
            assert isinstance(ours["durationMs"], int)
            ours = {k: v for k, v in ours.items() if k != "durationMs"}
        assert _keys(ours) == _keys(theirs), ours["type"]
        if ours["type"] == "message_update":
            pass
        elif isinstance(theirs.get("message"), dict):
            # usage arrives with the final chunk and responseId with the first: both are optional in pi
            allowed = set(theirs["message"]) | {
                "usage",
                "responseId",
                "durationMs",
                "thinkingLevel",
            }  # + 1.6.0's
            assert set(ours["message"]) <= allowed, ours["type"]
            assert set(theirs["message"]) - set(ours["message"]) <= {"responseId"}, ours["type"]


def _client(project: Path, *args: str) -> RpcClient:
    return RpcClient(cli_args=list(args), cwd=str(project), command=[PI])


async def test_bash_ls_stream_matches_pi(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    _script_bash_ls(llm_server)
    reference = [json.loads(x) for x in (FIXTURES / "rpc-bash_ls-0.73.1.jsonl").read_text().splitlines()]

    async with _client(project) as client:
        lines: list[dict] = []
        client.on_event(lines.append)
        response = await client.request({"type": "prompt", "message": "list the files"})
        lines.insert(0, response)
        await client.wait_for_idle()
        for command in ("get_state", "get_last_assistant_text", "get_session_stats"):
            lines.append(await client.request({"type": command}))
        await client.send_raw('{"type":"bogus_command"}')  # no id: it reaches the event listeners
        await client.wait_for_event("response")

    assert lines[0]["data"] == {"disposition": "started"}
    lines = _without_settled(lines)
    lines[0] = {k: v for k, v in lines[0].items() if k != "data"}  # 0.73.1's prompt response had none
    assert [_shape(e) for e in lines] == [_shape(e) for e in reference]
    assert _update_kinds(lines) == _update_kinds(reference)
    _assert_same_fields(lines, reference)
    assert set(lines[-4]["data"]) == set(reference[-4]["data"])  # get_state
    assert set(lines[-2]["data"]) == set(reference[-2]["data"])  # get_session_stats
    assert lines[-3]["data"] == {"text": "The directory contains a.txt and b.txt."}
    assert lines[-4]["data"]["messageCount"] == 4
    assert lines[-1]["error"] == "Unknown command: bogus_command"


async def test_json_mode_stream_matches_pi(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    _script_bash_ls(llm_server)
    reference = [json.loads(x) for x in (FIXTURES / "json-bash_ls-0.73.1.jsonl").read_text().splitlines()]

    proc = await asyncio.create_subprocess_exec(
        PI,
        "--mode",
        "json",
        "-p",
        "list the files",
        cwd=project,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    lines = _without_settled([json.loads(x) for x in out.decode().split("\n") if x])
    assert [_shape(e) for e in lines] == [_shape(e) for e in reference]
    assert _update_kinds(lines) == _update_kinds(reference)
    _assert_same_fields(lines, reference)


async def test_rpc_error_responses_and_busy_prompt(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(delay(1.0), text("slow"))
    async with _client(project, "--no-session") as client:
        await client.send_raw("this is not json")
        parse = await client.wait_for_event("response")
        assert parse["command"] == "parse" and parse["success"] is False
        unknown = await client.request({"type": "nope"})
        assert unknown["error"] == "Unknown command: nope" and unknown["id"].startswith("req_")
        missing = await client.request({"type": "switch_session"})
        assert missing["success"] is False and missing["error"].startswith("Invalid switch_session command")
        await client.prompt("first")
        with pytest.raises(RpcError, match="streamingBehavior"):
            await client.prompt("second")
        await client.wait_for_idle()
        assert await client.get_last_assistant_text() == "slow"


async def test_eof_and_sigterm_end_the_process_cleanly(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(delay(0.3), text("answered"))
    client = _client(project)
    await client.start()
    events: list[dict] = []
    client.on_event(events.append)
    await client.prompt("go")
    assert await asyncio.wait_for(client.close_stdin(), 20) == 0
    await client.stop()
    assert "agent_end" in [e["type"] for e in events]

    llm_server.enqueue(delay(30), text("never"))
    client = _client(project)
    await client.start()
    await client.prompt("go")
    await client.wait_for_event("message_start")
    assert client.process is not None
    client.process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(client.process.wait(), 10) == 0
    await client.stop()


def test_rpc_stdout_carries_only_protocol_lines(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    proc = subprocess.run(
        [PI, "--mode", "rpc"],
        cwd=project,
        input=b'{"id":"1","type":"get_state"}\r\n{"id":"2","type":"bash","command":"echo noise"}',
        capture_output=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr.decode()
    records = proc.stdout.split(b"\n")
    assert records[-1] == b""
    parsed = [json.loads(r) for r in records[:-1]]
    assert all(isinstance(p, dict) for p in parsed)
    assert parsed[0]["id"] == "1" and parsed[0]["success"] is True


def test_file_arguments_are_rejected_in_rpc_mode(project) -> None:
    (project / "x.md").write_text("x")
    proc = subprocess.run(
        [PI, "--mode", "rpc", "@x.md"], cwd=project, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "Error: @file arguments are not supported in RPC mode"
    assert proc.stdout == ""
