"""Request bodies per API: replay of provider metadata, thinking parameters, Azure, compat switches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from pi_app.ai import testing as T
from pi_app.ai.types import (
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.helpers import READ_TOOL, adapter, mock_client

TRANSCRIPTS = Path(__file__).parent / "transcripts"


async def _send(
    api: str, model: Model, context: Context, options: Any, body: bytes | None = None
) -> httpx.Request:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return T.mock_sse_response([body] if body else T.transcript(api, [T.text("ok")]))

    async with mock_client(handler) as client:
        options.http_client = client
        stream = (
            adapter(api).stream_simple(model, context, options)
            if isinstance(options, SimpleStreamOptions)
            else adapter(api).stream(model, context, options)
        )
        result = await stream.result()
        assert result.stop_reason in ("stop", "toolUse"), result.error_message
        context.messages.append(result)
    return seen[0]


async def test_responses_replay_keeps_reasoning_message_ids_and_call_ids() -> None:
    model = Model(
        id="gpt-5",
        api="openai-responses",
        provider="openai",
        base_url="https://api.openai.com/v1",
        reasoning=True,
    )
    context = Context(messages=[UserMessage(content="read a.txt", timestamp=1)], tools=[READ_TOOL])
    await _send(
        "openai-responses",
        model,
        context,
        StreamOptions(api_key="k"),
        (TRANSCRIPTS / "openai_responses.sse").read_bytes(),
    )
    context.messages.append(
        ToolResultMessage(
            tool_call_id="call_1|fc_1", tool_name="read", content=[TextContent(text="data")], timestamp=3
        )
    )
    request = await _send("openai-responses", model, context, StreamOptions(api_key="k"))
    items = json.loads(request.content)["input"]
    kinds = [i.get("type", i.get("role")) for i in items]
    assert kinds == ["user", "reasoning", "message", "function_call", "function_call_output"]
    assert items[1]["encrypted_content"] == "gAAAA" and items[1]["id"] == "rs_1"
    assert (items[2]["id"], items[2]["phase"]) == ("msg_1", "commentary")
    assert (items[3]["call_id"], items[3]["id"]) == ("call_1", "fc_1")
    assert items[4]["call_id"] == "call_1"


async def test_responses_reasoning_and_cache_fields() -> None:
    model = Model(
        id="gpt-5",
        api="openai-responses",
        provider="openai",
        base_url="https://api.openai.com/v1",
        reasoning=True,
    )
    options = SimpleStreamOptions(api_key="k", reasoning="high", session_id="s1", cache_retention="long")
    body = json.loads(
        (
            await _send(
                "openai-responses", model, Context(system_prompt="sys", messages=[UserMessage("x")]), options
            )
        ).content
    )
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == "s1" and body["prompt_cache_retention"] == "24h"
    assert body["input"][0] == {"role": "developer", "content": "sys"}


async def test_azure_request() -> None:
    model = Model(id="gpt-5", api="azure-openai-responses", provider="azure-openai-responses", base_url="")
    env = {
        "AZURE_OPENAI_RESOURCE_NAME": "acme",
        "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-4=x,gpt-5=prod-gpt5",
    }
    request = await _send(
        "azure-openai-responses",
        model,
        Context(messages=[UserMessage("x")]),
        StreamOptions(api_key="az", env=env),
    )
    assert str(request.url) == "https://acme.openai.azure.com/openai/v1/responses?api-version=v1"
    assert request.headers["api-key"] == "az"
    body = json.loads(request.content)
    assert body["model"] == "prod-gpt5" and "store" not in body


async def test_azure_without_base_url_is_a_clear_error() -> None:
    model = Model(id="gpt-5", api="azure-openai-responses", provider="azure-openai-responses", base_url="")
    message = (
        await adapter("azure-openai-responses")
        .stream(model, Context(), StreamOptions(api_key="k", env={}))
        .result()
    )
    assert message.error_message.startswith("Azure OpenAI base URL is required.")


async def test_google_thinking_config() -> None:
    flash = Model(
        id="gemini-2.5-flash",
        api="google-generative-ai",
        provider="google",
        base_url="https://g/v1beta",
        reasoning=True,
    )
    body = json.loads(
        (
            await _send(
                "google-generative-ai",
                flash,
                Context(messages=[UserMessage("x")], tools=[READ_TOOL]),
                SimpleStreamOptions(api_key="k", reasoning="medium"),
            )
        ).content
    )
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 8192}
    assert body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["required"] == ["path"]
    pro3 = Model(
        id="gemini-3-pro-preview",
        api="google-generative-ai",
        provider="google",
        base_url="https://g/v1beta",
        reasoning=True,
    )
    body = json.loads(
        (
            await _send(
                "google-generative-ai",
                pro3,
                Context(messages=[UserMessage("x")]),
                SimpleStreamOptions(api_key="k", reasoning="low"),
            )
        ).content
    )
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "LOW"}


async def test_completions_compat_switches() -> None:
    xai = Model(
        id="grok-4", api="openai-completions", provider="xai", base_url="https://api.x.ai/v1", reasoning=True
    )
    body = json.loads(
        (
            await _send(
                "openai-completions",
                xai,
                Context(system_prompt="s", messages=[UserMessage("x")]),
                SimpleStreamOptions(api_key="k", reasoning="high"),
            )
        ).content
    )
    assert "store" not in body and "reasoning_effort" not in body
    assert body["messages"][0]["role"] == "system"
    assert body["max_completion_tokens"] == min(xai.max_tokens, 32000)
    openai = Model(
        id="o3",
        api="openai-completions",
        provider="openai",
        base_url="https://api.openai.com/v1",
        reasoning=True,
    )
    body = json.loads(
        (
            await _send(
                "openai-completions",
                openai,
                Context(system_prompt="s", messages=[UserMessage("x")]),
                SimpleStreamOptions(api_key="k", reasoning="low"),
            )
        ).content
    )
    assert (
        body["store"] is False
        and body["reasoning_effort"] == "low"
        and body["messages"][0]["role"] == "developer"
    )
    assert body["stream_options"] == {"include_usage": True}


async def test_anthropic_cache_markers_and_tool_results_grouping() -> None:
    from pi_app.ai.types import AssistantMessage, ToolCall

    model = Model(
        id="claude-x", api="anthropic-messages", provider="anthropic", base_url="https://api.anthropic.com"
    )
    calls = AssistantMessage(
        content=[ToolCall(id="a", name="read", arguments={}), ToolCall(id="b", name="read", arguments={})],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="toolUse",
        timestamp=2,
    )
    context = Context(
        system_prompt="sys",
        messages=[
            UserMessage("go", timestamp=1),
            calls,
            ToolResultMessage(
                tool_call_id="a", tool_name="read", content=[TextContent(text="1")], timestamp=3
            ),
            ToolResultMessage(
                tool_call_id="b",
                tool_name="read",
                content=[TextContent(text="2")],
                is_error=True,
                timestamp=4,
            ),
        ],
    )
    body = json.loads(
        (
            await _send(
                "anthropic-messages", model, context, StreamOptions(api_key="k", cache_retention="long")
            )
        ).content
    )
    assert body["system"] == [
        {"type": "text", "text": "sys", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    last = body["messages"][-1]
    assert [b["tool_use_id"] for b in last["content"]] == ["a", "b"]
    assert last["content"][1]["is_error"] is True
    assert last["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert body["max_tokens"] == model.max_tokens // 3
