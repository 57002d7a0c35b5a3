"""Cross-model history transforms (spec 10 §3.8; scenarios 6–10) and cross-provider replay."""

from __future__ import annotations

import json
import re

import pytest

from pi_app.ai import testing as T
from pi_app.ai.api.transform_messages import transform_messages
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tests.ai.helpers import READ_TOOL, adapter, wire_model
from tests.fakes.llm_server import FakeLLMServer

CLAUDE = dict(api="anthropic-messages", provider="anthropic", model="claude-sonnet-4-5")


def assistant(*content: object, stop: str = "toolUse", ts: int = 10, **who: str) -> AssistantMessage:
    origin = {**CLAUDE, **who}
    return AssistantMessage(content=list(content), stop_reason=stop, timestamp=ts, usage=Usage(), **origin)  # type: ignore[arg-type]


def result(call_id: str, text: str = "ok", name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)], timestamp=20
    )


def claude_history() -> list[object]:
    return [
        UserMessage(content="Read the config", timestamp=1),
        assistant(
            ThinkingContent(thinking="I should read it.", thinking_signature="EqQBsig"),
            TextContent(text="Reading.", text_signature="sig-text"),
            ToolCall(id="toolu_01ABC", name="read", arguments={"path": "config.json"}),
        ),
        result("toolu_01ABC", '{"debug": true}'),
    ]


async def test_claude_to_completions_hand_off(llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("done"))
    model = wire_model("openai-completions", llm_server.base_url)
    context = Context(messages=claude_history(), tools=[READ_TOOL])  # type: ignore[arg-type]
    message = await adapter("openai-completions").stream(model, context, StreamOptions(api_key="k")).result()
    assert message.stop_reason == "stop"
    sent = llm_server.requests[0].body["messages"]
    turn = [m for m in sent if m["role"] == "assistant"][0]
    assert isinstance(turn["content"], str)
    assert turn["content"] == "I should read it.Reading."
    assert turn["tool_calls"][0]["id"] == "toolu_01ABC"
    assert [m for m in sent if m["role"] == "tool"][0]["tool_call_id"] == "toolu_01ABC"
    assert "EqQBsig" not in json.dumps(sent) and "sig-text" not in json.dumps(sent)


async def test_responses_id_to_anthropic(llm_server: FakeLLMServer) -> None:
    long_id = "call_RJx|fc_68+/=" + "x" * 433
    history = [
        UserMessage(content="go", timestamp=1),
        assistant(
            ToolCall(id=long_id, name="read", arguments={}),
            api="openai-responses",
            provider="openai",
            model="gpt-5",
        ),
        result(long_id),
    ]
    llm_server.enqueue(T.text("ok"))
    model = wire_model("anthropic-messages", llm_server.base_url)
    await (
        adapter("anthropic-messages")
        .stream(model, Context(messages=history), StreamOptions(api_key="k"))
        .result()
    )
    messages = llm_server.requests[0].body["messages"]
    use_id = messages[1]["content"][0]["id"]
    result_id = messages[2]["content"][0]["tool_use_id"]
    assert use_id == result_id
    assert re.fullmatch(r"[A-Za-z0-9_-]+", use_id) and len(use_id) <= 64


def test_orphaned_call_before_user_message() -> None:
    call_a = ToolCall(id="A", name="read", arguments={})
    call_b = ToolCall(id="B", name="read", arguments={})
    history = [assistant(call_a, call_b), result("A"), UserMessage(content="next", timestamp=30)]
    out = transform_messages(history, wire_model("anthropic-messages", "http://x", provider="anthropic"))
    assert [type(m).__name__ for m in out] == [
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    assert out[1].tool_call_id == "A" and out[2].tool_call_id == "B"
    assert out[2].is_error and out[2].content[0].text == "No result provided"
    assert out[2].timestamp == 10  # the originating assistant message's timestamp (R-AI-72)


def test_trailing_orphan_gets_a_synthetic_result() -> None:
    out = transform_messages(
        [UserMessage(content="x"), assistant(ToolCall(id="C", name="bash"))],
        wire_model("openai-completions", "http://x"),
    )
    assert isinstance(out[-1], ToolResultMessage) and out[-1].tool_call_id == "C" and out[-1].is_error


def test_errored_turns_are_not_replayed() -> None:
    aborted = assistant(TextContent(text="half"), ToolCall(id="D", name="read"), stop="aborted")
    out = transform_messages(
        [UserMessage(content="x"), aborted, result("D")], wire_model("openai-completions", "http://x")
    )
    assert len(out) == 1 and isinstance(out[0], UserMessage)


def test_thinking_rules_and_purity() -> None:
    target = wire_model("openai-completions", "http://x")
    message = assistant(
        ThinkingContent(thinking="secret", thinking_signature="s", redacted=True),
        ThinkingContent(thinking="   "),
        ThinkingContent(thinking="visible"),
        TextContent(text="t", text_signature="sig"),
        ToolCall(id="E", name="read", thought_signature="ts"),
        stop="stop",
    )
    before = repr(message)
    out = transform_messages([message], target)
    assert repr(message) == before
    converted = out[0]
    assert converted.content == [
        TextContent(text="visible"),
        TextContent(text="t"),
        ToolCall(id="E", name="read"),
    ]
    assert transform_messages([message], target) == out


def test_same_model_keeps_everything() -> None:
    message = assistant(
        ThinkingContent(thinking="", thinking_signature="sig"),
        TextContent(text="a", text_signature="s"),
        stop="stop",
    )
    model = wire_model("anthropic-messages", "http://x", provider="anthropic")
    model.id = "claude-sonnet-4-5"
    assert transform_messages([message], model)[0] is message


def test_normalised_id_collisions_are_disambiguated() -> None:
    target = wire_model("anthropic-messages", "http://x", provider="anthropic")
    a, b = "call+1", "call/1"  # both sanitise to "call_1"
    history = [
        assistant(
            ToolCall(id=a, name="read"),
            ToolCall(id=b, name="read"),
            provider="openai",
            api="openai-responses",
        ),
        result(a),
        result(b),
    ]
    from pi_app.ai.api.anthropic_messages import normalize_tool_call_id

    out = transform_messages(history, target, normalize_tool_call_id)
    ids = [c.id for c in out[0].content]
    assert len(set(ids)) == 2 and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    assert [r.tool_call_id for r in out[1:]] == ids


IMAGE = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


@pytest.mark.parametrize(
    "start_api", ["anthropic-messages", "openai-responses", "google-generative-ai", "openai-completions"]
)
async def test_session_continues_on_every_other_provider(start_api: str, llm_server: FakeLLMServer) -> None:
    """Issue acceptance 3: thinking, tool calls and images replay without a wire error."""
    first = wire_model(start_api, llm_server.base_url, provider=f"p-{start_api}")
    llm_server.enqueue(
        T.thinking("think", signature="c2ln"), T.text("Let me read."), T.tool_call("read", {"path": "a.png"})
    )
    context = Context(
        system_prompt="sys",
        messages=[UserMessage(content=[TextContent(text="look"), IMAGE], timestamp=1)],
        tools=[READ_TOOL],
    )
    reply = await adapter(start_api).stream(first, context, StreamOptions(api_key="k")).result()
    assert reply.stop_reason == "toolUse", reply.error_message
    call = reply.content[-1]
    context.messages.append(reply)
    context.messages.append(
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name="read",
            content=[TextContent(text="a picture"), IMAGE],
            timestamp=5,
        )
    )
    for target_api in [
        "anthropic-messages",
        "openai-completions",
        "openai-responses",
        "google-generative-ai",
    ]:
        if target_api == start_api:
            continue
        llm_server.enqueue(T.text("continued"))
        target = wire_model(target_api, llm_server.base_url, provider=f"p-{target_api}")
        follow = await adapter(target_api).stream(target, context, StreamOptions(api_key="k")).result()
        assert follow.stop_reason == "stop", (target_api, follow.error_message)
        body = json.dumps(llm_server.requests[-1].body)
        assert "think" in body  # foreign thinking survives as plain text
        assert "c2ln" not in body or target_api == "openai-responses" and start_api == "openai-responses"
        assert "iVBORw0KGgo=" in body
        _assert_tool_pairing(target_api, llm_server.requests[-1].body)


def _assert_tool_pairing(api: str, body: dict) -> None:
    """Every tool result in the request answers a call made just before it (what servers check)."""
    if api == "anthropic-messages":
        msgs = body["messages"]
        uses = [
            b["id"] for m in msgs if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"
        ]
        results = [
            b["tool_use_id"]
            for m in msgs
            if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"]
            if b["type"] == "tool_result"
        ]
        assert uses == results and uses
        assert all(m["role"] != msgs[i + 1]["role"] for i, m in enumerate(msgs[:-1]))
    elif api == "openai-completions":
        msgs = body["messages"]
        calls = [c["id"] for m in msgs if m.get("tool_calls") for c in m["tool_calls"]]
        assert calls == [m["tool_call_id"] for m in msgs if m["role"] == "tool"] and calls
    elif api == "openai-responses":
        items = body["input"]
        calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
        assert calls == [i["call_id"] for i in items if i.get("type") == "function_call_output"] and calls
    else:
        parts = [p for c in body["contents"] for p in c["parts"]]
        calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
        assert calls == [p["functionResponse"]["name"] for p in parts if "functionResponse" in p] and calls
