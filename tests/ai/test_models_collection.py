"""``builtin_models()`` end to end over httpx.MockTransport: routing, auth, hooks (spec 10 §6)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from pi_app.ai import testing as T
from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore
from pi_app.ai.providers.all import builtin_models, builtin_providers
from pi_app.ai.types import (
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_app.ai.util.overflow import is_context_overflow
from tests.ai.helpers import READ_TOOL, collect

ANTHROPIC_TRANSCRIPT = T.anthropic_transcript([T.text("hi")], model="claude-sonnet-4-5")


class Server:
    """A MockTransport handler that records requests and answers from a queue."""

    def __init__(self, *responses: Any) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.responses.pop(0) if self.responses else T.anthropic_transcript([T.text("ok")])
        return item if isinstance(item, httpx.Response) else T.mock_sse_response(item)

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)


def make_models(server: Server, env: dict[str, str] | None = None, store: Any = None) -> Any:
    return builtin_models(
        credentials=store if store is not None else InMemoryCredentialStore(),
        auth_context=DictAuthContext(env or {}),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(server)),
    )


def ctx(text: str = "hello") -> Context:
    return Context(system_prompt="sys", messages=[UserMessage(content=text, timestamp=1)], tools=[READ_TOOL])


async def test_anthropic_happy_path_through_the_collection() -> None:
    server = Server(T.anthropic_transcript([T.text("hi")], model="claude-sonnet-4-5"))
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    model = models.get_model("anthropic", "claude-sonnet-4-5")
    stream = models.stream(model, ctx())
    events = await collect(stream)
    assert [e.type for e in events] == ["start", "text_start", "text_delta", "text_end", "done"]
    request = server.requests[0]
    assert request.url.path == "/v1/messages" and request.url.host == "api.anthropic.com"
    assert request.headers["x-api-key"] == "k"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert await stream.result() is events[-1].message


async def test_no_key_means_no_request() -> None:
    server = Server()
    models = make_models(server)
    events = await collect(models.stream(models.get_model("openai", "gpt-5"), ctx()))
    assert [e.type for e in events] == ["error"]
    assert events[0].error.error_message == (
        "No API key for openai: set OPENAI_API_KEY, or use /login (or pi auth login openai)"
    )
    assert server.requests == []


async def test_unknown_provider() -> None:
    models = make_models(Server())
    events = await collect(models.stream(Model(id="x", provider="nope", api="openai-completions"), ctx()))
    assert [(e.type, e.error.error_message) for e in events] == [("error", "Unknown provider: nope")]


async def test_overflow_error_without_start() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 213462 tokens > 200000 maximum",
        },
    }
    server = Server(httpx.Response(400, json=body))
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    stream = models.stream(models.get_model("anthropic", "claude-sonnet-4-5"), ctx())
    events = await collect(stream)
    assert [e.type for e in events] == ["error"]
    result = await stream.result()
    assert result.error_message.startswith("400 invalid_request_error: prompt is too long")
    assert is_context_overflow(result)


async def test_529_is_retried_then_reported() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server = Server(*(httpx.Response(529, json=overloaded, headers={"retry-after": "0"}) for _ in range(3)))
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    result = await models.complete(models.get_model("anthropic", "claude-sonnet-4-5"), ctx())
    assert len(server.requests) == 3
    assert result.error_message == "529 overloaded_error: Overloaded"
    assert [d["status"] for d in result.diagnostics if d["type"] == "retry"] == [529, 529]
    # retries spent: the server's last retry-after is handed on to a caller that retries itself
    assert result.diagnostics[-1] == {"type": "retryAfter", "status": 529, "delayMs": 0}


async def test_hooks_payload_and_transform_headers() -> None:
    server = Server(ANTHROPIC_TRANSCRIPT)
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    seen: list[Any] = []

    def on_payload(body: dict[str, Any], model: Model) -> dict[str, Any]:
        return {**body, "max_tokens": 7}

    def transform(headers: dict[str, str]) -> dict[str, str]:
        return {**headers, "x-trace": "1"}

    def on_response(status: int, headers: Any) -> None:
        seen.append(status)

    options = StreamOptions(on_payload=on_payload, on_response=on_response)
    await models.stream(
        models.get_model("anthropic", "claude-sonnet-4-5"), ctx(), options, transform_headers=transform
    ).result()
    assert server.body()["max_tokens"] == 7
    assert server.requests[0].headers["x-trace"] == "1"
    assert seen == [200]
    assert not hasattr(options, "transform_headers")


async def test_isolation_between_collections() -> None:
    store_a, store_b = InMemoryCredentialStore(), InMemoryCredentialStore()
    a = builtin_models(credentials=store_a, auth_context=DictAuthContext({}))
    b = builtin_models(credentials=store_b, auth_context=DictAuthContext({}))
    a.delete_provider("groq")
    await store_b.modify("openai", _set({"type": "api_key", "key": "sk-b"}))
    assert a.get_provider("groq") is None and b.get_provider("groq") is not None
    assert [p.id for p in a.get_providers()] == [p.id for p in b.get_providers() if p.id != "groq"]
    assert await a.get_auth("openai") is None
    assert (await b.get_auth("openai")).auth["apiKey"] == "sk-b"


def _set(value: Any) -> Any:
    async def fn(_: Any) -> Any:
        return value

    return fn


async def test_logout_falls_back_to_env() -> None:
    store = InMemoryCredentialStore({"openai": {"type": "api_key", "key": "stored"}})
    models = builtin_models(credentials=store, auth_context=DictAuthContext({"OPENAI_API_KEY": "env"}))
    assert (await models.get_auth("openai")).source == "stored"
    await models.logout("openai")
    result = await models.get_auth("openai")
    assert (result.auth["apiKey"], result.source) == ("env", "OPENAI_API_KEY")


async def test_override_key_wins() -> None:
    models = builtin_models(
        credentials=InMemoryCredentialStore(), auth_context=DictAuthContext({"OPENAI_API_KEY": "env"})
    )
    result = await models.get_auth("openai", {"api_key": "cli"})
    assert (result.auth["apiKey"], result.source) == ("cli", "override")


def test_builtins_are_fresh_and_cheap() -> None:
    first, second = builtin_providers(), builtin_providers()
    assert first[0] is not second[0]
    ids = [p.id for p in first]
    for required in (
        "anthropic",
        "openai",
        "google",
        "openrouter",
        "xai",
        "groq",
        "cerebras",
        "zai",
        "huggingface",
        "deepseek",
        "minimax",
        "minimax-cn",
        "kimi-coding",
        "vercel-ai-gateway",
        "opencode",
        "opencode-go",
        "github-copilot",
        "mistral",
        "azure",
        "openai-codex",
        "amazon-bedrock",
        "google-vertex",
        "cloudflare-ai-gateway",
        "together",
    ):
        assert required in ids
    models = builtin_models()
    for provider in models.get_providers():
        assert provider.get_models(), provider.id
        for model in provider.get_models():
            assert model.provider == provider.id and model.context_window > 0 and model.max_tokens > 0


async def test_anthropic_auth_token_is_a_plain_bearer() -> None:
    server = Server(ANTHROPIC_TRANSCRIPT)
    models = make_models(server, {"ANTHROPIC_AUTH_TOKEN": "gw-token"})
    await models.complete(models.get_model("anthropic", "claude-sonnet-4-5"), ctx())
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer gw-token"
    assert "x-api-key" not in headers and headers.get("x-app") is None


async def test_subscription_token_sends_claude_code_identity() -> None:
    server = Server(T.anthropic_transcript([T.tool_call("Read", {"path": "a"})]))
    models = make_models(server, {"ANTHROPIC_OAUTH_TOKEN": "sk-ant-oat01-abc"})
    result = await models.complete(models.get_model("anthropic", "claude-sonnet-4-5"), ctx())
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-ant-oat01-abc"
    assert headers["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20,")
    assert headers["x-app"] == "cli" and headers["user-agent"].startswith("claude-cli/")
    body = server.body()
    assert body["system"][0]["text"] == "You are Claude Code, Anthropic's official CLI for Claude."
    assert body["system"][1]["text"] == "sys"
    assert body["tools"][0]["name"] == "Read"
    assert result.content[0].name == "read"  # mapped back to the context's tool name


async def test_simple_options_budget_and_adaptive() -> None:
    server = Server(ANTHROPIC_TRANSCRIPT, ANTHROPIC_TRANSCRIPT)
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    sonnet = models.get_model("anthropic", "claude-sonnet-4-5")
    await models.complete_simple(sonnet, ctx(), SimpleStreamOptions(reasoning="medium", temperature=0.5))
    body = server.body(0)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert "temperature" not in body
    assert body["max_tokens"] == min(min(sonnet.max_tokens, 32000) + 8192, sonnet.max_tokens)
    opus = models.get_model("anthropic", "claude-opus-4-6")
    await models.complete_simple(opus, ctx(), SimpleStreamOptions(reasoning="xhigh"))
    body = server.body(1)
    assert body["thinking"] == {"type": "adaptive"} and body["output_config"] == {"effort": "max"}
    assert "interleaved-thinking" not in server.requests[1].headers["anthropic-beta"]


@pytest.mark.parametrize(
    ("provider", "model_id", "transcript"),
    [
        ("anthropic", "claude-haiku-4-5", T.anthropic_transcript),
        ("deepseek", "deepseek-v4-pro", T.openai_completions_transcript),
        ("openai", "gpt-4.1", T.openai_responses_transcript),
        ("google", "gemini-2.5-flash", T.google_transcript),
    ],
)
async def test_images_to_a_text_only_model(provider: str, model_id: str, transcript: Any) -> None:
    server = Server(transcript([T.text("ok")]))
    env = {"ANTHROPIC_API_KEY": "k", "DEEPSEEK_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}
    models = make_models(server, env)
    model = models.get_model(provider, model_id)
    model.input = ["text"]
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    from pi_app.ai.types import AssistantMessage, ToolCall

    call = AssistantMessage(
        content=[ToolCall(id="call_1", name="read", arguments={"path": "a.png"})],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="toolUse",
        timestamp=2,
    )
    context = Context(
        messages=[
            UserMessage(content=[TextContent(text="look at this"), image], timestamp=1),
            call,
            ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[image], timestamp=3),
        ],
        tools=[READ_TOOL],
    )
    result = await models.complete(model, context)
    assert result.stop_reason == "stop", result.error_message
    raw = server.requests[0].content.decode()
    assert "look at this" in raw
    assert "iVBORw0KGgo=" not in raw
    assert "(see attached image)" in raw


async def test_abort_then_follow_up_succeeds() -> None:
    from pi_app.ai.event_stream import AbortController

    server = Server(T.anthropic_transcript([T.text("partial"), T.stall()]), ANTHROPIC_TRANSCRIPT)
    models = make_models(server, {"ANTHROPIC_API_KEY": "k"})
    model = models.get_model("anthropic", "claude-sonnet-4-5")
    controller = AbortController()
    stream = models.stream(model, ctx(), StreamOptions(signal=controller.signal))
    async for event in stream:
        if event.type == "text_delta":
            controller.abort()
    aborted = await stream.result()
    assert aborted.stop_reason == "aborted" and aborted.content[0].text == "partial"
    history = Context(messages=[*ctx().messages, aborted, UserMessage(content="again", timestamp=3)])
    follow = await asyncio.wait_for(models.complete(model, history), 5)
    assert follow.stop_reason == "stop"
    sent = server.body(1)["messages"]
    assert [m["role"] for m in sent] == ["user", "user"]
    assert "partial" not in json.dumps(sent)
