"""Agent events in pi's JSON shape (R-AG-MSG-01, R-PHIL-10), checked against the 0.73.1 reference
stream; what 1.6.0 changed (delta-only ``message_update``, ``agent_end.willRetry``) is checked
against the 1.6.0 fixture in tests/e2e/test_json_stream_16.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.agent import AGENT_EVENT_TYPES, AgentToolResult, agent_event_to_dict
from pi_app.agent.events import AgentEndEvent, ToolExecutionEndEvent
from pi_app.agent.testing import FakeTool
from pi_app.ai import codec
from pi_app.ai.testing import fake_model, fake_provider, text, tool_call
from pi_app.ai.types import TextContent

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference" / "json-bash_ls-0.73.1.jsonl"


def _normalise(value: Any) -> Any:
    """Blank out what differs between two runs or two providers (times, token counts, response ids:
    the scripted provider knows its id at ``start``, pi's OpenAI adapter only after the first chunk)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("responseId", "durationMs", "thinkingLevel"):  # the last two: 1.6.0's additions
                continue
            if key == "timestamp":
                out[key] = "*"
            elif key == "usage":
                out[key] = sorted(item)
            else:
                out[key] = _normalise(item)
        return out
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


async def _bash_ls_run(harness) -> list[dict[str, Any]]:
    async def bash(params, signal, on_update):
        on_update(AgentToolResult(content=[]))
        on_update(AgentToolResult(content=[TextContent(text="a.txt\nb.txt\n")], details={}))
        return AgentToolResult(content=[TextContent(text="a.txt\nb.txt\n")])

    h = harness(
        [text("Let me list the files."), tool_call("bash", {"command": "ls"}, id="call_0_0")],
        [text("The directory contains a.txt and b.txt.")],
        tools=[FakeTool("bash", bash)],
    )
    await h.agent.prompt("list the files")
    return [agent_event_to_dict(e) for e in h.recorder.events]


@pytest.fixture
def provider():
    return fake_provider(models=[fake_model(api="openai-completions")])


async def test_event_stream_matches_pi_reference(harness):
    ours = [e for e in await _bash_ls_run(harness) if e["type"] != "message_update"]
    for event in ours:
        if event["type"] == "agent_end":
            assert event.pop("willRetry") is False  # 1.6.0's addition; 0.73.1 had none
    reference = [
        json.loads(line)
        for line in FIXTURE.read_text().splitlines()
        if line.strip() and '"session"' not in line[:20]
    ]
    reference = [e for e in reference if e["type"] != "message_update"]
    assert [e["type"] for e in ours] == [e["type"] for e in reference]
    for mine, theirs in zip(ours, reference, strict=True):
        assert _normalise(mine) == _normalise(theirs)
        assert [k for k in mine if k != "durationMs"] == list(theirs)  # same key order at the top level


async def test_every_event_survives_json_and_uses_the_declared_vocabulary(harness):
    events = await _bash_ls_run(harness)
    assert {e["type"] for e in events} <= set(AGENT_EVENT_TYPES)
    assert {e["type"] for e in events} == set(AGENT_EVENT_TYPES)  # this run covers every kind
    for event in events:
        line = codec.encode_line(event)
        assert json.loads(line) == event
    update = next(e for e in events if e["type"] == "message_update")
    assert list(update) == ["type", "usage", "assistantMessageEvent"]
    assert update["assistantMessageEvent"]["type"] in (
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
    )


def test_tool_execution_end_carries_terminate():
    result = AgentToolResult(content=[TextContent(text="ok")], terminate=True, added_tool_names=["grep"])
    event = agent_event_to_dict(ToolExecutionEndEvent("c1", "finish", result, False))
    assert event["result"] == {
        "content": [{"type": "text", "text": "ok"}],
        "addedToolNames": ["grep"],
        "terminate": True,
    }


def test_custom_messages_are_encoded_by_the_caller():
    class Note:
        role = "notification"

    encoded = agent_event_to_dict(AgentEndEvent([Note()]), lambda m: {"role": m.role, "custom": True})
    assert encoded == {
        "type": "agent_end",
        "messages": [{"role": "notification", "custom": True}],
        "willRetry": False,
    }
    with pytest.raises(ValueError, match="Unknown agent event type"):
        agent_event_to_dict(type("Bogus", (), {"type": "bogus"})())
