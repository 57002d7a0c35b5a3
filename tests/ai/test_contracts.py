"""Small L1 contracts: lazy loading, event stream, thinking levels, cost, overflow, utilities."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest
from pydantic import BaseModel, Field

from pi_app.ai import codec
from pi_app.ai import testing as T
from pi_app.ai.api.openai_completions import mistral_tool_id, normalize_tool_call_id
from pi_app.ai.auth import no_auth
from pi_app.ai.event_stream import AssistantMessageEventStream, StreamProtocolError
from pi_app.ai.models import create_models, create_provider, lazy_stream
from pi_app.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    DoneEvent,
    Model,
    ModelCost,
    StartEvent,
    Tool,
    ToolCall,
    Usage,
    UserMessage,
)
from pi_app.ai.util.cost import calculate_cost
from pi_app.ai.util.overflow import is_context_overflow
from pi_app.ai.util.partial_json import parse_streaming_json
from pi_app.ai.util.sanitize import sanitize_surrogates
from pi_app.ai.util.short_hash import short_hash
from pi_app.ai.util.validation import ToolValidationError, tool_parameters_schema, validate_tool_arguments


def test_import_is_cheap_and_builtins_load_nothing_until_used() -> None:
    """Issue acceptance 4: no adapter, OAuth module or httpx until a model of that API is used."""
    script = textwrap.dedent(
        """
        import sys, json
        import pi_app.ai
        before = sorted(m for m in sys.modules if m.startswith(("pi_app.ai.api", "pi_app.ai.auth.oauth", "pi_app.ai.providers")) or m == "httpx")
        from pi_app.ai.providers.all import builtin_models
        models = builtin_models()
        n = len(models.get_models())
        after = sorted(m for m in sys.modules if m.startswith(("pi_app.ai.api", "pi_app.ai.auth.oauth")) or m == "httpx")
        print(json.dumps([before, after, n]))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    before, after, count = json.loads(out)
    assert before == [] and after == [] and count > 50


async def test_lazy_adapter_import_failure_is_an_error_event() -> None:
    provider = create_provider(
        id="p", auth=no_auth(), api=lazy_stream("pi_app.ai.api.does_not_exist", "factory")
    )
    models = create_models()
    models.set_provider(provider)
    events = [e async for e in models.stream(Model(id="m", provider="p", api="x"), Context())]
    assert [e.type for e in events] == ["error"]
    assert "does_not_exist" in events[0].error.error_message


async def test_missing_api_in_provider_mapping() -> None:
    provider = create_provider(id="p", auth=no_auth(), api={})
    models = create_models()
    models.set_provider(provider)
    message = await models.complete(Model(id="m", provider="p", api="weird"), Context())
    assert message.error_message == "No API implementation for api 'weird' in provider 'p'"


def test_stream_function_outside_a_loop_is_a_programming_error() -> None:
    with pytest.raises(RuntimeError):
        create_models().stream(Model(id="m", provider="p"), Context())


async def test_event_stream_semantics() -> None:
    stream = AssistantMessageEventStream()
    message = AssistantMessage()
    stream.push(StartEvent(partial=message))
    stream.push(DoneEvent(reason="stop", message=message))
    stream.push(StartEvent(partial=message))  # after the terminal: dropped
    results = await asyncio.gather(stream.result(), stream.result())
    assert results[0] is message and results[1] is message
    assert [e.type async for e in stream] == ["start", "done"]
    assert [e.type async for e in stream] == []
    empty = AssistantMessageEventStream()
    empty.end()
    with pytest.raises(StreamProtocolError):
        await empty.result()


def test_thinking_levels() -> None:
    plain = Model(id="x", reasoning=False)
    assert supported_thinking_levels(plain) == ["off"]
    assert clamp_thinking_level(plain, "high") == "off"
    reasoning = Model(id="x", reasoning=True)
    assert supported_thinking_levels(reasoning) == ["off", "minimal", "low", "medium", "high"]
    assert clamp_thinking_level(reasoning, "xhigh") == "high"
    opus = Model(id="claude-opus-4-6", reasoning=True, thinking_level_map={"xhigh": "max", "minimal": None})
    assert supported_thinking_levels(opus) == ["off", "low", "medium", "high", "xhigh"]
    assert clamp_thinking_level(opus, "minimal") == "low"
    assert clamp_thinking_level(opus, "xhigh") == "xhigh"


def test_cost_rule() -> None:
    model = Model(id="m", cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    usage = Usage(input=1000, output=500, cache_read=2000, cache_write=100)
    cost = calculate_cost(model, usage)
    assert (cost.input, cost.output, cost.cache_read, cost.cache_write) == pytest.approx(
        (0.003, 0.0075, 0.0006, 0.000375)
    )
    assert cost.total == pytest.approx(0.011475)
    assert calculate_cost(model, Usage(input=1000), "flex").input == pytest.approx(0.0015)
    one_hour = Model(id="m", cost=ModelCost(cache_write=3.75, cache_write_1h=6))
    assert calculate_cost(one_hour, Usage(cache_write=100, cache_write_1h=40)).cache_write == pytest.approx(
        (60 * 3.75 + 40 * 6) / 1e6
    )


@pytest.mark.parametrize(
    ("text", "overflow"),
    [
        ("400 invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum", True),
        ("400 This model's maximum context length is 128000 tokens", True),
        ("400 status code (no body)", True),
        ("429 too many tokens per minute", False),
        ("500 internal error", False),
    ],
)
def test_overflow_detection(text: str, overflow: bool) -> None:
    assert is_context_overflow(AssistantMessage(stop_reason="error", error_message=text)) is overflow


def test_silent_overflow() -> None:
    message = AssistantMessage(stop_reason="stop", usage=Usage(input=90_000, cache_read=20_000))
    assert is_context_overflow(message, 100_000) and not is_context_overflow(message)


def test_partial_json() -> None:
    assert parse_streaming_json('{"path":"/src/ma') == {"path": "/src/ma"}
    assert parse_streaming_json('{"a":1,"b":') == {"a": 1}
    assert parse_streaming_json('{"a":[1,2') == {"a": [1, 2]}
    assert parse_streaming_json('{"a":tr') == {}
    assert (
        parse_streaming_json("[1]") == {}
        and parse_streaming_json("  ") == {}
        and parse_streaming_json(None) == {}
    )


async def test_partial_arguments_while_streaming() -> None:
    provider = T.fake_provider(
        script=[[T.tool_call("write", {"path": "a.txt", "content": "hello"}, chunks=3)]]
    )
    models = create_models()
    models.set_provider(provider)
    seen = []
    async for event in models.stream(provider.models[0], Context()):
        if event.type == "toolcall_delta":
            seen.append(dict(event.partial.content[event.content_index].arguments))
        if event.type == "toolcall_end":
            final = event.tool_call.arguments
    assert all(isinstance(s, dict) for s in seen) and len(seen) == 3
    assert final == {"path": "a.txt", "content": "hello"}


def test_sanitize_and_short_hash() -> None:
    assert sanitize_surrogates("Hello 🙈") == "Hello 🙈"
    assert sanitize_surrogates("a\ud83db") == "ab"
    h = short_hash("some id")
    assert h == short_hash("some id") and h.isalnum() and h == h.lower() and len(h) <= 16


def test_tool_ids_for_completions_servers() -> None:
    model = Model(id="m", provider="mistral", base_url="https://api.mistral.ai/v1")
    source = AssistantMessage()
    ids = {normalize_tool_call_id(i, model, source) for i in ("toolu_01ABC", "call_1|fc_2", "x")}
    assert all(len(i) == 9 and i.isalnum() for i in ids)
    assert mistral_tool_id("abcdefghi") == "abcdefghi"
    openai = Model(id="m", provider="openai")
    assert normalize_tool_call_id("call_1|fc+2", openai, source) == "call_1"
    assert normalize_tool_call_id("x" * 50, openai, source) == "x" * 40


class ReadArgs(BaseModel):
    path: str
    max_lines: int = Field(default=100, alias="maxLines")


def test_pydantic_tool_schema_and_lax_validation() -> None:
    schema = tool_parameters_schema(ReadArgs)
    assert schema["type"] == "object" and set(schema["properties"]) == {"path", "maxLines"}
    tool = Tool(name="read", parameters=ReadArgs)  # type: ignore[arg-type]
    assert validate_tool_arguments(tool, {"path": "a", "maxLines": "42"}) == {"path": "a", "maxLines": 42}
    with pytest.raises(ToolValidationError) as info:
        validate_tool_arguments(tool, {"maxLines": 1})
    assert str(info.value).startswith('Validation failed for tool "read":\n  - path:')
    raw = Tool(
        name="raw", parameters={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    )
    assert validate_tool_arguments(raw, {"n": "5"}) == {"n": 5}


def test_codec_round_trip_of_a_tool_call_message() -> None:
    message = AssistantMessage(
        content=[ToolCall(id="c", name="read", arguments={"path": "a"}, thought_signature="s")],
        api="a",
        provider="p",
        model="m",
        stop_reason="toolUse",
        timestamp=5,
        diagnostics=[{"type": "retry", "attempt": 1}],
    )
    data = json.loads(json.dumps(codec.to_dict(message)))
    assert data["stopReason"] == "toolUse" and data["content"][0]["thoughtSignature"] == "s"
    assert codec.from_dict(data) == message
    assert codec.from_dict({"role": "user", "content": None, "timestamp": 1}) == UserMessage(
        content=[], timestamp=1
    )


def test_thinking_level_max_follows_pi_16() -> None:
    mapped = Model(id="m", reasoning=True, thinking_level_map={"xhigh": "xhigh", "max": "max"})
    assert supported_thinking_levels(mapped) == ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
    assert clamp_thinking_level(mapped, "max") == "max"
    plain = Model(id="m", reasoning=True)
    assert clamp_thinking_level(plain, "max") == "high"  # nothing higher: the nearest lower level
    gap = Model(id="m", reasoning=True, thinking_level_map={"high": None, "max": "max"})
    assert clamp_thinking_level(gap, "high") == "max"  # 1.6.0 clamps up first
    assert clamp_thinking_level(mapped, "bogus") == "off"
