"""Every wire adapter against the loopback fake server: the happy path and every failure shape.

Issue acceptance 1 (text + thinking + tool call: exact events, final message, usage, cost) and
acceptance 2 (HTTP 400/401/429/500 with and without body, malformed SSE, dropped connection,
stall then abort: exactly one ``error`` event with the spec's text, nothing raised, partial
content kept).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from pi_app.ai import testing as T
from pi_app.ai.event_stream import AbortController
from pi_app.ai.types import StreamOptions, TextContent, ThinkingContent, ToolCall
from tests.ai.helpers import adapter, collect, shape, simple_context, wire_model
from tests.fakes.llm_server import FakeLLMServer

WIRE_APIS = [
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
    "bedrock-converse-stream",
    "google-vertex",
    "pi-messages",
]

EXPECTED_EVENTS = [
    ("start",),
    ("thinking_start", 0),
    ("thinking_delta", 0, "Let me "),
    ("thinking_delta", 0, "think."),
    ("thinking_end", 0, "Let me think."),
    ("text_start", 1),
    ("text_delta", 1, "Hello "),
    ("text_delta", 1, "world"),
    ("text_end", 1, "Hello world"),
    ("toolcall_start", 2),
]


def _options(**kwargs: object) -> StreamOptions:
    kwargs.setdefault("api_key", "test-key")
    kwargs.setdefault("max_retries", 0)
    return StreamOptions(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_text_thinking_and_tool_call(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(
        T.thinking("Let me think.", signature="c2lnbmF0dXJl", chunks=2),
        T.text("Hello world", chunks=2),
        T.tool_call("read", {"path": "a.txt"}, id="call_abc", chunks=2),
        T.usage(input=100, output=40, cache_read=20),
    )
    model = wire_model(api, llm_server.base_url)
    stream = adapter(api).stream(model, simple_context(), _options())
    events = await collect(stream)
    got = shape(events)
    expected = list(EXPECTED_EVENTS)
    if api == "openai-responses":  # a finished reasoning summary part appends a paragraph break
        expected.insert(4, ("thinking_delta", 0, "\n\n"))

    assert got[: len(expected)] == expected
    deltas = [e for e in got[len(expected) :] if e[0] == "toolcall_delta"]
    assert "".join(d[2] for d in deltas) == '{"path":"a.txt"}'
    assert got[-2:] == [("toolcall_end", 2), ("done", "toolUse")]

    message = await stream.result()
    assert message is events[-1].message
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me think."
    assert isinstance(text, TextContent) and text.text == "Hello world"
    assert isinstance(call, ToolCall) and (call.name, call.arguments) == ("read", {"path": "a.txt"})
    assert call.id.startswith("call_abc")
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read) == (100, 40, 20)
    assert usage.total_tokens == 160
    assert usage.cost.input == pytest.approx(100 * 3 / 1e6)
    assert usage.cost.output == pytest.approx(40 * 15 / 1e6)
    assert usage.cost.cache_read == pytest.approx(20 * 0.3 / 1e6)
    assert usage.cost.total == pytest.approx((300 + 600 + 6) / 1e6)
    assert llm_server.requests[-1].headers.get("x-api-key", "") + llm_server.requests[-1].headers.get(
        "authorization", ""
    ) + llm_server.requests[-1].headers.get("x-goog-api-key", "") in ("test-key", "Bearer test-key")


ANTHROPIC_BODY = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad input"}}


@pytest.mark.parametrize("api", WIRE_APIS)
@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, ANTHROPIC_BODY, "400 invalid_request_error: bad input"),
        (400, "", "400 status code (no body)"),
        (
            401,
            {"error": {"type": "authentication_error", "message": "invalid x-api-key"}},
            "401 authentication_error: invalid x-api-key",
        ),
        (401, "", "401 status code (no body)"),
        (
            429,
            {"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}},
            "429 RESOURCE_EXHAUSTED: Quota",
        ),
        (429, "", "429 status code (no body)"),
        (500, {"error": {"message": "boom"}}, "500 boom"),
        (
            400,
            {
                "error": {
                    "message": "Unsupported parameter: 'temperature' is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": "temperature",
                    "code": "unsupported_parameter",
                }
            },
            "400 invalid_request_error: Unsupported parameter: 'temperature' is not supported with this model.",
        ),
        (
            400,
            {
                "error": {
                    "message": "Invalid value.",
                    "type": "invalid_request_error",
                    "param": "reasoning.effort",
                }
            },
            "400 invalid_request_error: Invalid value. (parameter: reasoning.effort)",
        ),
        (500, "<html>oops</html>", "500 <html>oops</html>"),
    ],
)
async def test_http_errors(
    api: str, status: int, body: object, expected: str, llm_server: FakeLLMServer
) -> None:
    llm_server.enqueue(T.http_error(status, body))  # type: ignore[arg-type]
    stream = adapter(api).stream(wire_model(api, llm_server.base_url), simple_context(), _options())
    events = await collect(stream)
    assert [e.type for e in events] == ["error"]
    assert events[0].error.error_message == expected
    assert events[0].error.stop_reason == "error"


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_in_stream_error_keeps_partial_text(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("partial answer"), T.error("Overloaded"))
    stream = adapter(api).stream(wire_model(api, llm_server.base_url), simple_context(), _options())
    events = await collect(stream)
    assert [e.type for e in events][:3] == ["start", "text_start", "text_delta"]
    assert [e.type for e in events].count("error") == 1 and events[-1].type == "error"
    message = events[-1].error
    assert "Overloaded" in message.error_message
    assert message.content[0].text == "partial answer"


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_malformed_sse_line(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("before"), T.garbage(), T.text("after"))
    stream = adapter(api).stream(wire_model(api, llm_server.base_url), simple_context(), _options())
    events = await collect(stream)
    assert [e.type for e in events].count("error") == 1 and events[-1].type == "error"
    message = events[-1].error
    assert message.error_message.startswith("Invalid JSON in stream: {not json")
    assert message.content[0].text == "before"


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_connection_dropped_mid_stream(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("half"), T.cut())
    stream = adapter(api).stream(wire_model(api, llm_server.base_url), simple_context(), _options())
    events = await collect(stream)
    assert events[0].type == "start" and events[-1].type == "error"
    assert [e.type for e in events].count("error") == 1
    message = events[-1].error
    assert message.error_message.startswith("Connection error: ")
    assert message.content[0].text == "half"


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_stall_then_abort(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("so far"), T.stall())
    controller = AbortController()
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), _options(signal=controller.signal)
    )
    events = []
    aborted_at = 0.0
    async for event in stream:
        events.append(event)
        if event.type == "text_delta":
            asyncio.get_running_loop().call_later(0.05, controller.abort)
            aborted_at = time.monotonic() + 0.05
    ended = time.monotonic()
    assert ended - aborted_at < 2.0  # generous liveness bound (spec: 200 ms; D-45)
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    message = events[-1].error
    assert message.error_message == "Request was aborted"
    assert message.content[0].text == "so far"


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_pre_aborted_signal_sends_nothing(api: str, llm_server: FakeLLMServer) -> None:
    controller = AbortController()
    controller.abort()
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), _options(signal=controller.signal)
    )
    events = await collect(stream)
    assert [(e.type, e.reason) for e in events] == [("error", "aborted")]
    assert llm_server.requests == []


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_retry_after_then_success(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.http_error(429, {"error": {"message": "slow down"}}, {"retry-after": "0"}))
    llm_server.enqueue(T.text("ok"))
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), _options(max_retries=2)
    )
    message = await stream.result()
    assert message.stop_reason == "stop" and message.content[0].text == "ok"
    assert len(llm_server.requests) == 2
    assert message.diagnostics is not None and len(message.diagnostics) == 1
    assert message.diagnostics[0]["type"] == "retry" and message.diagnostics[0]["status"] == 429


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_retry_delay_above_cap_fails_at_once(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.http_error(429, {"error": {"message": "slow down"}}, {"retry-after": "120"}))
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), _options(max_retries=2)
    )
    message = await stream.result()
    assert len(llm_server.requests) == 1
    assert message.error_message.startswith("Server requested 120s retry delay (max: 60s).")


async def test_unreachable_server_is_a_connection_error() -> None:
    server = FakeLLMServer().start()
    url = server.base_url
    server.stop()
    model = wire_model("openai-completions", url)
    message = await adapter("openai-completions").stream(model, simple_context(), _options()).result()
    assert message.stop_reason == "error"
    assert message.error_message.startswith("Connection error: ")


async def test_no_turn_queued_is_a_clear_500(llm_server: FakeLLMServer) -> None:
    model = wire_model("anthropic-messages", llm_server.base_url)
    message = await adapter("anthropic-messages").stream(model, simple_context(), _options()).result()
    assert message.error_message.startswith("500 fake_server_error: FakeLLMServer: no turn queued")


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_idle_timeout_keeps_partial_content(api: str, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("slow"), T.stall())
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), _options(timeout_ms=200)
    )
    message = await asyncio.wait_for(stream.result(), 10)
    assert message.stop_reason == "error"
    assert message.error_message == "Request timed out after 0.2s"
    assert message.content[0].text == "slow"
