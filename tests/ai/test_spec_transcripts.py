"""The example transcripts of spec 10 Appendix A, replayed through httpx.MockTransport.

Each transcript must give exactly the events the spec lists (scenarios 1, 3, 4, 5), and the same
events again when the body arrives in 1-byte chunks with ``\\r\\n`` line endings (scenario 2).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from pi_app.ai import codec
from pi_app.ai.testing import mock_sse_response
from pi_app.ai.types import Context, Model, ModelCost, StreamOptions, ToolCall, UserMessage
from tests.ai.helpers import READ_TOOL, adapter, collect, mock_client, shape

TRANSCRIPTS = Path(__file__).parent / "transcripts"

CASES: dict[str, dict[str, Any]] = {
    "anthropic-messages": {
        "file": "anthropic.sse",
        "base": "https://api.anthropic.com",
        "path": "/v1/messages",
        "model": "claude-sonnet-4-5",
        "events": [
            ("start",),
            ("thinking_start", 0),
            ("thinking_delta", 0, "Need the file."),
            ("thinking_end", 0, "Need the file."),
            ("text_start", 1),
            ("text_delta", 1, "Reading it."),
            ("text_end", 1, "Reading it."),
            ("toolcall_start", 2),
            ("toolcall_delta", 2, '{"path":"src/'),
            ("toolcall_delta", 2, 'main.rs"}'),
            ("toolcall_end", 2),
            ("done", "toolUse"),
        ],
    },
    "openai-completions": {
        "file": "openai_completions.sse",
        "base": "https://api.openai.com/v1",
        "path": "/v1/chat/completions",
        "model": "gpt-4o-mini",
        "events": [
            ("start",),
            ("text_start", 0),
            ("text_delta", 0, "Let me look."),
            ("text_end", 0, "Let me look."),
            ("toolcall_start", 1),
            ("toolcall_delta", 1, ""),
            ("toolcall_delta", 1, '{"path":"a.txt"}'),
            ("toolcall_end", 1),
            ("done", "toolUse"),
        ],
    },
    "openai-responses": {
        "file": "openai_responses.sse",
        "base": "https://api.openai.com/v1",
        "path": "/v1/responses",
        "model": "gpt-5",
        "events": [
            ("start",),
            ("thinking_start", 0),
            ("thinking_delta", 0, "Plan: read file."),
            ("thinking_delta", 0, "\n\n"),
            ("thinking_end", 0, "Plan: read file."),
            ("text_start", 1),
            ("text_delta", 1, "Reading."),
            ("text_end", 1, "Reading."),
            ("toolcall_start", 2),
            ("toolcall_delta", 2, '{"path":"a.txt"}'),
            ("toolcall_end", 2),
            ("done", "toolUse"),
        ],
    },
    "google-generative-ai": {
        "file": "google.sse",
        "base": "https://generativelanguage.googleapis.com/v1beta",
        "path": "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        "model": "gemini-2.5-flash",
        "events": [
            ("start",),
            ("thinking_start", 0),
            ("thinking_delta", 0, "Check the file"),
            ("thinking_end", 0, "Check the file"),
            ("text_start", 1),
            ("text_delta", 1, "I'll read it."),
            ("text_end", 1, "I'll read it."),
            ("toolcall_start", 2),
            ("toolcall_delta", 2, '{"path":"a.txt"}'),
            ("toolcall_end", 2),
            ("done", "toolUse"),
        ],
    },
}


def _chunks(body: bytes, one_byte: bool) -> list[bytes]:
    if one_byte:
        body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        return [body[i : i + 1] for i in range(len(body))]
    return [body]


async def _run(api: str, one_byte: bool = False) -> tuple[list[Any], list[httpx.Request]]:
    case = CASES[api]
    body = (TRANSCRIPTS / case["file"]).read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return mock_sse_response(_chunks(body, one_byte))

    model = Model(
        id=case["model"],
        api=api,
        provider="test",
        base_url=case["base"],
        reasoning=True,
        cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
    )
    context = Context(messages=[UserMessage(content="read it", timestamp=1)], tools=[READ_TOOL])
    async with mock_client(handler) as client:
        stream = adapter(api).stream(model, context, StreamOptions(api_key="k", http_client=client))
        events = await collect(stream)
        assert await stream.result() is events[-1].message
    return events, seen


@pytest.mark.parametrize("api", sorted(CASES))
async def test_transcript_gives_the_specified_events(api: str) -> None:
    events, requests = await _run(api)
    assert shape(events) == CASES[api]["events"]
    assert requests[0].url.path == CASES[api]["path"]


@pytest.mark.parametrize("api", sorted(CASES))
async def test_one_byte_chunks_and_crlf_give_identical_events(api: str) -> None:
    whole, _ = await _run(api)
    split, _ = await _run(api, one_byte=True)
    assert shape(split) == shape(whole)
    final_split, final_whole = codec.to_dict(split[-1].message), codec.to_dict(whole[-1].message)
    final_split.pop("timestamp"), final_whole.pop("timestamp")
    # Google ids carry the wall clock ("read_<ms>_<n>"); everything else must match exactly.
    unclock = re.compile(r"_\d{13}_")
    assert unclock.sub("_", json.dumps(final_split)) == unclock.sub("_", json.dumps(final_whole))


async def test_anthropic_final_message() -> None:
    events, requests = await _run("anthropic-messages")
    message = events[-1].message
    assert requests[0].headers["x-api-key"] == "k"
    assert requests[0].headers["anthropic-version"] == "2023-06-01"
    assert message.content[0].thinking_signature == "EqQBsig"
    assert message.content[2] == ToolCall(id="toolu_01A", name="read", arguments={"path": "src/main.rs"})
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (120, 58, 178)
    assert message.response_id == "msg_01"
    assert message.usage.cost.total == pytest.approx((120 * 3 + 58 * 15) / 1e6)
    # R-AI-27/27: the JSON form uses pi's keys and round-trips.
    as_json = json.loads(json.dumps(codec.to_dict(events[-1])))
    assert as_json["message"]["stopReason"] == "toolUse" and as_json["message"]["usage"]["totalTokens"] == 178
    assert codec.from_dict(as_json) == events[-1]


async def test_completions_final_message() -> None:
    events, requests = await _run("openai-completions")
    message = events[-1].message
    assert requests[0].headers["authorization"] == "Bearer k"
    end = [e for e in events if e.type == "toolcall_end"][0]
    assert end.tool_call == ToolCall(id="call_1", name="read", arguments={"path": "a.txt"})
    assert message.stop_reason == "toolUse"
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (40, 10, 12)
    assert message.usage.total_tokens == 62


async def test_responses_final_message() -> None:
    events, requests = await _run("openai-responses")
    message = events[-1].message
    assert requests[0].headers["authorization"] == "Bearer k"
    text = message.content[1]
    assert json.loads(text.text_signature) == {"v": 1, "id": "msg_1", "phase": "commentary"}
    assert message.content[2].id == "call_1|fc_1"
    assert json.loads(message.content[0].thinking_signature)["encrypted_content"] == "gAAAA"
    usage = message.usage
    assert (usage.input, usage.cache_read, usage.output, usage.reasoning, usage.total_tokens) == (
        80,
        20,
        30,
        10,
        130,
    )
    assert message.response_id == "resp_1"


async def test_google_final_message() -> None:
    events, requests = await _run("google-generative-ai")
    message = events[-1].message
    assert requests[0].headers["x-goog-api-key"] == "k"
    assert requests[0].url.params["alt"] == "sse"
    call = message.content[2]
    assert re.match(r"^read_\d+_\d+$", call.id)
    assert call.arguments == {"path": "a.txt"} and call.thought_signature == "CiQBsig="
    assert [e.type for e in events].count("toolcall_delta") == 1
    usage = message.usage
    assert (usage.input, usage.output, usage.reasoning, usage.total_tokens) == (40, 20, 8, 60)
