"""JSON mode's stream of a tool turn has pi 1.6.0's event types and fields (issue 18 acceptance 1),
compared line by line with 1.6.0's own output for the same scripted turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_app.ai.testing import text, thinking, tool_call
from tests.e2e.helpers import run_pi, write_models_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference-1.6" / "json-bash_ls-1.6.0.jsonl"
# Fields 1.6.0 writes that this pi leaves out: the OpenAI adapter's raw finish reason, and usage
# accounting details a provider may omit.
OPTIONAL_MESSAGE_KEYS = {"rawStopReason"}


def _shape(event: dict[str, Any]) -> tuple[str, ...]:
    kind = event["type"]
    if kind in ("message_start", "message_end"):
        return kind, event["message"]["role"]
    if kind == "message_update":
        return kind, event["assistantMessageEvent"]["type"]
    return (kind,)


def _run(llm_server, project: Path, agent_dir: Path) -> list[dict[str, Any]]:
    write_models_json(agent_dir, llm_server.base_url, reasoning=True)
    llm_server.enqueue(
        thinking("Let me list the files."),
        text("Running ls."),
        tool_call("bash", {"command": "ls"}, id="call_0_0"),
    )
    llm_server.enqueue(text("There are **two** files.", chunks=2))
    result = run_pi("--mode", "json", "--thinking", "off", "List the files", cwd=project)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_json_stream_of_a_tool_turn_has_16s_events_and_fields(llm_server, project, agent_dir) -> None:
    ours = _run(llm_server, project, agent_dir)
    theirs = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    # the system message events (1.6.0 records the prompt and tools as a message) are compared
    # separately below; the rest must match event for event, delta kinds included
    ours_main = [e for e in ours if _shape(e)[1:] != ("system",)]
    theirs_main = [e for e in theirs if _shape(e)[1:] != ("system",)]
    ours_kinds = [_shape(e) for e in ours_main]
    theirs_kinds = [_shape(e) for e in theirs_main]
    # 1.6.0's OpenAI adapter closes blocks at the end of the message, ours as the next one starts,
    # and chunking differs: compare the update kinds of each message as multisets of kinds
    assert [k for k in ours_kinds if k[0] != "message_update"] == [
        k for k in theirs_kinds if k[0] != "message_update"
    ]
    assert {k for k in ours_kinds if k[0] == "message_update"} == {
        k for k in theirs_kinds if k[0] == "message_update"
    }

    by_kind = {_shape(e): e for e in theirs_main}
    for event in ours_main:
        reference = by_kind[_shape(event)]
        assert list(event) == list(reference), _shape(event)  # same keys in the same order
        if event["type"] == "message_update":
            inner, ref_inner = event["assistantMessageEvent"], reference["assistantMessageEvent"]
            assert set(inner) == set(ref_inner), inner["type"]
            assert set(event["usage"]) >= {
                "input",
                "output",
                "cacheRead",
                "cacheWrite",
                "totalTokens",
                "cost",
            }
        message = event.get("message")
        if isinstance(message, dict):
            ref_message = reference["message"]
            missing = set(ref_message) - set(message) - OPTIONAL_MESSAGE_KEYS
            assert not missing, (_shape(event), missing)
            # our OpenAI adapter knows the response id from the first chunk, 1.6.0's only at the end
            early = {"responseId"} if event["type"] == "message_start" else set()
            assert set(message) <= set(ref_message) | early, (_shape(event), set(message) - set(ref_message))

    start = next(e for e in ours if _shape(e) == ("message_update", "toolcall_start"))
    assert start["assistantMessageEvent"] == {
        "type": "toolcall_start",
        "contentIndex": 2,
        "id": "call_0_0",
        "toolName": "bash",
    }
    end = next(e for e in ours if e["type"] == "tool_execution_end")
    assert set(end["result"]["structuredContent"]) == {
        "output",
        "truncated",
        "exit_code",
        "wall_time_seconds",
    }
    assert end["result"]["structuredContent"]["exit_code"] == 0 and isinstance(end["durationMs"], int)
    final = [e for e in ours if _shape(e) == ("message_end", "assistant")][-1]["message"]
    assert final["thinkingLevel"] == "off" and isinstance(final["durationMs"], int)
    tool_message = next(e for e in ours if _shape(e) == ("message_end", "toolResult"))["message"]
    assert list(tool_message)[-2:] == ["durationMs", "timestamp"]
    assert ours[-2]["willRetry"] is False and ours[-1] == {"type": "agent_settled", "aborted": False}

    # the system message: announced once, right after the first turn_start, as 1.6.0 does
    assert [_shape(e) for e in ours[1:5]] == [_shape(e) for e in theirs[1:5]]
    system = ours[3]["message"]
    assert set(system) <= set(theirs[3]["message"]) and "You are" in system["content"]
    assert [t["name"] for t in system["toolsAdded"]] == ["read", "bash", "edit", "write"]
    assert set(system["toolsAdded"][0]) <= set(theirs[3]["message"]["toolsAdded"][0])
    assert sum(1 for e in ours if _shape(e)[1:] == ("system",)) == 2
