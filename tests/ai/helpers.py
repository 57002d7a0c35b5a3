"""Shared helpers for the L1 tests: models pointed at the loopback server, event recording."""

from __future__ import annotations

from typing import Any

import httpx

from pi_app.ai.types import Context, Model, ModelCost, Tool, UserMessage

READ_TOOL = Tool(
    name="read",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)

from pi_app.ai.providers.base import ADAPTERS as API_FACTORIES  # noqa: E402

MODEL_IDS = {
    "anthropic-messages": "claude-test",
    "openai-completions": "gpt-test",
    "openai-responses": "gpt-test",
    "google-generative-ai": "gemini-test",
    "bedrock-converse-stream": "anthropic.claude-test-v1:0",
    "google-vertex": "gemini-test",
    "pi-messages": "balanced",
}


def base_url_for(api: str, server_url: str) -> str:
    if api in ("openai-completions", "openai-responses"):
        return server_url + "/v1"
    if api == "google-generative-ai":
        return server_url + "/v1beta"
    return server_url


def wire_model(api: str, server_url: str, **kwargs: Any) -> Model:
    kwargs.setdefault("provider", "test")
    kwargs.setdefault("reasoning", True)
    kwargs.setdefault("input", ["text", "image"])
    kwargs.setdefault("cost", ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    kwargs.setdefault("max_tokens", 8192)
    return Model(id=MODEL_IDS[api], api=api, base_url=base_url_for(api, server_url), **kwargs)


def adapter(api: str) -> Any:
    import importlib

    module, factory = API_FACTORIES[api]
    return getattr(importlib.import_module(module), factory)()


def simple_context(text: str = "hi", tools: bool = True) -> Context:
    return Context(
        system_prompt="You are a test.",
        messages=[UserMessage(content=text, timestamp=1)],
        tools=[READ_TOOL] if tools else None,
    )


async def collect(stream: Any) -> list[Any]:
    return [event async for event in stream]


def shape(events: list[Any]) -> list[tuple[Any, ...]]:
    """Events as comparable tuples: (type, contentIndex?, delta/content?)."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if e.type in ("done", "error"):
            out.append((e.type, e.reason))
        elif e.type == "start":
            out.append(("start",))
        elif e.type.endswith("_delta"):
            out.append((e.type, e.content_index, e.delta))
        elif e.type in ("text_end", "thinking_end"):
            out.append((e.type, e.content_index, e.content))
        else:
            out.append((e.type, e.content_index))
    return out


def mock_client(handler: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))
