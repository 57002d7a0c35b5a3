"""Test support for every layer: the scripted provider (the "faux provider" of the specs).

``fake_provider(id, models, script)`` returns a real ``Provider`` whose streams replay scripted
turns without any network. A script is a list of turns; each turn is a list of steps built with
the helpers below (or parsed from short strings such as ``"text 'hi'"``, ``"tool read {"path":"a"}"``,
``"error 'boom'"``, ``"delay 0.05"``), or a callable ``(model, context, options) -> list[step]``
for replies that depend on the request. Every request is recorded in ``provider.calls``.

``gate(event)`` holds a turn until the test sets a ``threading.Event``: use it instead of a
``delay`` whenever a test must act while the model is still answering, so that a slow machine
cannot finish the answer first.

Abort is honoured at every step: the stream then ends with an ``error`` event whose message keeps
the content streamed so far (``stopReason "aborted"``).

SSE transcript builders for the four wire APIs also live here (00-index.md, decision D-9).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.auth.helpers import no_auth
from pi_app.ai.event_stream import AbortSignal, AssistantMessageEventStream
from pi_app.ai.growing import GrowingText, GrowingThinking, GrowingToolCall, freeze_blocks
from pi_app.ai.models import BasicProvider, create_provider
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
    now_ms,
)

# ---------------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------------


@dataclass
class Text:
    text: str
    chunks: int = 1


@dataclass
class Thinking:
    text: str
    signature: str | None = None
    chunks: int = 1


@dataclass
class ToolCallStep:
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None
    chunks: int = 1


@dataclass
class Error:
    message: str


@dataclass
class Delay:
    seconds: float


@dataclass
class UsageStep:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


@dataclass
class Stop:
    reason: str  # "stop" | "length" | "toolUse"


@dataclass
class Hang:
    """Wait until aborted (a stalled server)."""


@dataclass
class Gate:
    """Wait until the test opens ``event`` (or abort): a pause that depends on what the test has
    done, not on how fast a loaded machine runs it. Gives up after ``timeout`` seconds."""

    event: threading.Event
    timeout: float = 30.0


def text(value: str, chunks: int = 1) -> Text:
    return Text(value, chunks)


def thinking(value: str, signature: str | None = None, chunks: int = 1) -> Thinking:
    return Thinking(value, signature, chunks)


def tool_call(
    name: str, arguments: dict[str, Any] | str | None = None, id: str | None = None, chunks: int = 1
) -> ToolCallStep:
    return ToolCallStep(name, arguments if arguments is not None else {}, id, chunks)


def error(message: str) -> Error:
    return Error(message)


def delay(seconds: float) -> Delay:
    return Delay(seconds)


def usage(input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> UsageStep:
    return UsageStep(input, output, cache_read, cache_write)


def stop(reason: str) -> Stop:
    return Stop(reason)


def hang() -> Hang:
    return Hang()


def gate(event: threading.Event, timeout: float = 30.0) -> Gate:
    return Gate(event, timeout)


@dataclass
class HttpError:
    """Answer the request with this HTTP status instead of a stream (loopback server)."""

    status: int
    body: str = ""
    headers: dict[str, str] | None = None


@dataclass
class Cut:
    """Close the connection abruptly, mid-stream."""


@dataclass
class Garbage:
    """Send one malformed SSE data line (not JSON)."""


def http_error(
    status: int, body: str | dict[str, Any] = "", headers: dict[str, str] | None = None
) -> HttpError:
    text = body if isinstance(body, str) else json.dumps(body)
    return HttpError(status, text, headers)


def stall() -> Hang:
    """Keep the connection open and send nothing more (until the client gives up)."""
    return Hang()


def cut() -> Cut:
    return Cut()


def garbage() -> Garbage:
    return Garbage()


Step = (
    Text
    | Thinking
    | ToolCallStep
    | Error
    | Delay
    | Gate
    | UsageStep
    | Stop
    | Hang
    | HttpError
    | Cut
    | Garbage
)


def parse_step(spec: str | Step) -> Step:
    """Parse ``"text 'hi'"``, ``"thinking 'hmm'"``, ``"tool read {...}"``, ``"error 'boom'"``,
    ``"delay 0.05"``, ``"usage 10 5"``, ``"stop length"``, ``"hang"``."""
    if not isinstance(spec, str):
        return spec
    head, _, rest = spec.strip().partition(" ")
    rest = rest.strip()
    if head == "text":
        return Text(_unquote(rest))
    if head == "thinking":
        return Thinking(_unquote(rest))
    if head == "tool":
        name, _, args = rest.partition(" ")
        return ToolCallStep(name, json.loads(args) if args.strip() else {})
    if head == "error":
        return Error(_unquote(rest))
    if head == "delay":
        return Delay(float(rest))
    if head == "usage":
        parts = [int(p) for p in rest.split()]
        return UsageStep(*parts)
    if head == "stop":
        return Stop(rest)
    if head == "hang":
        return Hang()
    raise ValueError(f"Unknown fake step: {spec!r}")


def _unquote(value: str) -> str:
    try:
        parts = shlex.split(value)
    except ValueError:
        return value
    return " ".join(parts) if parts else ""


def _split(value: str, chunks: int) -> list[str]:
    if chunks <= 1 or len(value) <= 1:
        return [value]
    size = max(1, -(-len(value) // chunks))
    return [value[i : i + size] for i in range(0, len(value), size)]


# ---------------------------------------------------------------------------------------------
# The provider
# ---------------------------------------------------------------------------------------------

Turn = Sequence[Step | str] | Callable[[Model, Context, Any], Sequence[Step | str]]


@dataclass
class FakeCall:
    model: Model
    context: Context
    options: Any


class FakeApi:
    """The scripted ``ProviderStreams``."""

    def __init__(self, script: Sequence[Turn] | None = None, api: str = "fake-api") -> None:
        self.script: list[Turn] = list(script or [])
        self.calls: list[FakeCall] = []
        self.api = api
        self._counter = 0

    def enqueue(self, *turns: Turn) -> None:
        self.script.extend(turns)

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        self.calls.append(FakeCall(model, _snapshot_context(context), options))
        turn: Turn | None = self.script.pop(0) if self.script else None
        stream = AssistantMessageEventStream()
        stream.producer = asyncio.get_running_loop().create_task(
            self._run(stream, model, context, options, turn)
        )
        return stream

    stream_simple = stream

    async def _run(
        self,
        stream: AssistantMessageEventStream,
        model: Model,
        context: Context,
        options: Any,
        turn: Turn | None,
    ) -> None:
        signal = getattr(options, "signal", None)
        message = AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
        message.response_id = f"fake-{self._counter}"
        call_index = self._counter
        self._counter += 1

        def aborted() -> bool:
            return bool(signal is not None and signal.aborted)

        def finish_aborted() -> None:
            freeze_blocks(message.content)
            message.stop_reason = "aborted"
            message.error_message = "Request was aborted"
            stream.push(ErrorEvent(reason="aborted", error=message))

        try:
            if aborted():
                finish_aborted()
                return
            if turn is None:
                message.stop_reason = "error"
                message.error_message = "fake provider: no scripted turn left"
                stream.push(ErrorEvent(reason="error", error=message))
                return
            steps = turn(model, context, options) if callable(turn) else turn
            stream.push(StartEvent(partial=message))
            explicit_stop: str | None = None
            explicit_usage = False
            for raw in steps:
                step = parse_step(raw)
                await asyncio.sleep(0)
                if aborted():
                    finish_aborted()
                    return
                if isinstance(step, Text):
                    block = GrowingText(text="")
                    message.content.append(block)
                    idx = len(message.content) - 1
                    stream.push(TextStartEvent(content_index=idx, partial=message))
                    for piece in _split(step.text, step.chunks):
                        block.append(piece)
                        stream.push(TextDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    message.content[idx] = done = block.frozen()
                    stream.push(TextEndEvent(content_index=idx, content=done.text, partial=message))
                elif isinstance(step, Thinking):
                    tblock = GrowingThinking(thinking="", thinking_signature=step.signature)
                    message.content.append(tblock)
                    idx = len(message.content) - 1
                    stream.push(ThinkingStartEvent(content_index=idx, partial=message))
                    for piece in _split(step.text, step.chunks):
                        tblock.append(piece)
                        stream.push(ThinkingDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    message.content[idx] = tdone = tblock.frozen()
                    stream.push(ThinkingEndEvent(content_index=idx, content=tdone.thinking, partial=message))
                elif isinstance(step, ToolCallStep):
                    raw_args = (
                        step.arguments
                        if isinstance(step.arguments, str)
                        else json.dumps(step.arguments, separators=(",", ":"))
                    )
                    call = GrowingToolCall(
                        id=step.id or f"call_{call_index}_{len(message.content)}", name=step.name
                    )
                    message.content.append(call)
                    idx = len(message.content) - 1
                    stream.push(ToolCallStartEvent(content_index=idx, partial=message))
                    for piece in _split(raw_args, step.chunks):
                        call.append_raw(piece)
                        stream.push(ToolCallDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    message.content[idx] = finished = call.frozen()
                    stream.push(ToolCallEndEvent(content_index=idx, tool_call=finished, partial=message))
                elif isinstance(step, Error):
                    message.stop_reason = "error"
                    message.error_message = step.message
                    stream.push(ErrorEvent(reason="error", error=message))
                    return
                elif isinstance(step, Delay):
                    if await _sleep_or_abort(step.seconds, signal):
                        finish_aborted()
                        return
                elif isinstance(step, Hang):
                    if await _sleep_or_abort(None, signal):
                        finish_aborted()
                        return
                elif isinstance(step, Gate):
                    deadline = asyncio.get_running_loop().time() + step.timeout
                    while not step.event.is_set() and asyncio.get_running_loop().time() < deadline:
                        if await _sleep_or_abort(0.02, signal):
                            finish_aborted()
                            return
                elif isinstance(step, UsageStep):
                    explicit_usage = True
                    message.usage = Usage(
                        input=step.input,
                        output=step.output,
                        cache_read=step.cache_read,
                        cache_write=step.cache_write,
                        total_tokens=step.input + step.output + step.cache_read + step.cache_write,
                    )
                elif isinstance(step, Stop):
                    explicit_stop = step.reason
                elif isinstance(step, HttpError | Cut | Garbage):
                    message.stop_reason = "error"
                    message.error_message = _scripted_failure_text(step)
                    stream.push(ErrorEvent(reason="error", error=message))
                    return
            if not explicit_usage:
                message.usage = _estimate_usage(context, message)
            has_calls = any(isinstance(b, ToolCall) for b in message.content)
            reason = explicit_stop or ("toolUse" if has_calls else "stop")
            message.stop_reason = reason  # type: ignore[assignment]  # a script's Stop names a StopReason
            stream.push(DoneEvent(reason=message.stop_reason, message=message))
        except asyncio.CancelledError:
            finish_aborted()
            raise
        except Exception as exc:  # never raise from a stream
            freeze_blocks(message.content)
            message.stop_reason = "error"
            message.error_message = f"fake provider failed: {exc}"
            stream.push(ErrorEvent(reason="error", error=message))
        finally:
            stream.end()


def _scripted_failure_text(step: HttpError | Cut | Garbage) -> str:
    if isinstance(step, HttpError):
        from pi_app.ai.http.transport import format_http_error

        return format_http_error(step.status, step.body)
    if isinstance(step, Cut):
        return "Connection error: connection closed mid-stream"
    return "Invalid JSON in stream: {not json"


async def _sleep_or_abort(seconds: float | None, signal: AbortSignal | None) -> bool:
    """Sleep (forever if ``seconds`` is None); return True if the signal fired first."""
    if signal is None:
        if seconds is None:
            await asyncio.Event().wait()
        else:
            await asyncio.sleep(seconds)
        return False
    if signal.aborted:
        return True
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        if not waiter.done():
            waiter.cancel()
    return bool(signal.aborted)


def _estimate_usage(context: Context, message: AssistantMessage) -> Usage:
    from pi_app.ai import codec

    prompt_chars = len(context.system_prompt or "") + sum(len(codec.encode_json(m)) for m in context.messages)
    out_chars = len(codec.encode_json(message.content))
    inp, out = max(1, prompt_chars // 4), max(1, out_chars // 4)
    return Usage(input=inp, output=out, total_tokens=inp + out)


def _snapshot_context(context: Context) -> Context:
    return Context(
        system_prompt=context.system_prompt,
        messages=list(context.messages),
        tools=list(context.tools) if context.tools is not None else None,
    )


def fake_model(id: str = "fake-model", provider: str = "fake", **kwargs: Any) -> Model:
    kwargs.setdefault("api", "fake-api")
    kwargs.setdefault("base_url", "http://fake.invalid")
    return Model(id=id, provider=provider, **kwargs)


class FakeProvider(BasicProvider):
    """A ``Provider`` whose single API is a :class:`FakeApi`."""

    @property
    def fake(self) -> FakeApi:
        return self.api

    @property
    def calls(self) -> list[FakeCall]:
        return self.fake.calls

    def enqueue(self, *turns: Turn) -> None:
        self.fake.enqueue(*turns)


def fake_provider(
    id: str = "fake",
    models: Sequence[Model] | None = None,
    script: Sequence[Turn] | None = None,
) -> FakeProvider:
    models = list(models) if models is not None else [fake_model(provider=id)]
    api = FakeApi(script, api=models[0].api if models else "fake-api")
    base = create_provider(id=id, auth=no_auth(), api=api, models=models)
    return FakeProvider(
        **{f: getattr(base, f) for f in ("id", "auth", "api", "name", "base_url", "headers", "models")}
    )


# ---------------------------------------------------------------------------------------------
# SSE transcript builders (R-AI-100): steps -> the bytes a real server sends, per wire API
# ---------------------------------------------------------------------------------------------
#
# A rendered transcript is a list of parts: ``bytes`` (one SSE event each, written and flushed
# separately) or the control steps ``Delay``, ``Hang`` and ``Cut`` that a server or mock transport
# acts on. Without a ``usage`` step a turn reports 10 input and 5 output tokens.

Part = bytes | Delay | Hang | Cut

DEFAULT_USAGE = UsageStep(input=10, output=5)
GARBAGE_LINE = b"data: {not json\n\n"


def _steps(steps: Sequence[Step | str]) -> list[Step]:
    return [parse_step(s) for s in steps]


def _turn_usage(steps: list[Step]) -> UsageStep:
    found = [s for s in steps if isinstance(s, UsageStep)]
    return found[-1] if found else DEFAULT_USAGE


def _turn_stop(steps: list[Step]) -> str:
    stops = [s.reason for s in steps if isinstance(s, Stop)]
    if stops:
        return stops[-1]
    return "toolUse" if any(isinstance(s, ToolCallStep) for s in steps) else "stop"


def _raw_args(step: ToolCallStep) -> str:
    if isinstance(step.arguments, str):
        return step.arguments
    return json.dumps(step.arguments, separators=(",", ":"), ensure_ascii=False)


def _sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    try:
        return f"{head}data: {payload}\n\n".encode()
    except UnicodeEncodeError:
        # A lone surrogate cannot travel as UTF-8; real servers send it as a JSON \\uXXXX escape.
        payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        return f"{head}data: {payload}\n\n".encode(
            errors="surrogatepass" if isinstance(data, str) else "strict"
        )


def _control(step: Step) -> Part | None:
    if isinstance(step, Delay | Hang | Cut):
        return step
    if isinstance(step, Garbage):
        return GARBAGE_LINE
    return None


def anthropic_transcript(steps: Sequence[Step | str], model: str = "claude-fake") -> list[Part]:
    """An ``anthropic-messages`` SSE body (spec 10 §A.1.4/§A.1.6)."""
    items = _steps(steps)
    use = _turn_usage(items)
    parts: list[Part] = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": use.input,
                        "output_tokens": 1,
                        "cache_read_input_tokens": use.cache_read,
                        "cache_creation_input_tokens": use.cache_write,
                    },
                },
            },
        )
    ]
    index = 0
    for step in items:
        control = _control(step)
        if control is not None:
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            parts.append(
                _sse("error", {"type": "error", "error": {"type": "api_error", "message": step.message}})
            )
            return parts
        start: dict[str, Any]
        if isinstance(step, Text):
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in _split(step.text, step.chunks)]
        elif isinstance(step, Thinking):
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": piece} for piece in _split(step.text, step.chunks)
            ]
            if step.signature:
                deltas.append({"type": "signature_delta", "signature": step.signature})
        elif isinstance(step, ToolCallStep):
            start = {
                "type": "tool_use",
                "id": step.id or f"toolu_fake{index}",
                "name": step.name,
                "input": {},
            }
            deltas = [
                {"type": "input_json_delta", "partial_json": piece}
                for piece in _split(_raw_args(step), step.chunks)
            ]
        else:
            continue
        parts.append(
            _sse(
                "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
            )
        )
        for delta in deltas:
            parts.append(
                _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        parts.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}.get(
        _turn_stop(items), _turn_stop(items)
    )
    parts.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": use.output},
            },
        )
    )
    parts.append(_sse("message_stop", {"type": "message_stop"}))
    return parts


def openai_completions_transcript(steps: Sequence[Step | str], model: str = "gpt-fake") -> list[Part]:
    """An ``openai-completions`` SSE body (spec 10 §A.2.4/§A.2.7)."""
    items = _steps(steps)
    use = _turn_usage(items)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return _sse(None, body)

    parts: list[Part] = [chunk({"role": "assistant", "content": ""})]
    tool_index = 0
    for step in items:
        control = _control(step)
        if control is not None:
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            parts.append(_sse(None, {"error": {"type": "server_error", "message": step.message}}))
            return parts
        if isinstance(step, Text):
            parts.extend(chunk({"content": piece}) for piece in _split(step.text, step.chunks))
        elif isinstance(step, Thinking):
            parts.extend(chunk({"reasoning_content": piece}) for piece in _split(step.text, step.chunks))
        elif isinstance(step, ToolCallStep):
            call_id = step.id or f"call_fake{tool_index}"
            head = {
                "index": tool_index,
                "id": call_id,
                "type": "function",
                "function": {"name": step.name, "arguments": ""},
            }
            parts.append(chunk({"tool_calls": [head]}))
            for piece in _split(_raw_args(step), step.chunks):
                parts.append(chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]}))
            tool_index += 1
    finish = {"stop": "stop", "length": "length", "toolUse": "tool_calls"}.get(
        _turn_stop(items), _turn_stop(items)
    )
    parts.append(chunk({}, finish))
    usage = {
        "prompt_tokens": use.input + use.cache_read,
        "completion_tokens": use.output,
        "total_tokens": use.input + use.cache_read + use.output,
        "prompt_tokens_details": {"cached_tokens": use.cache_read},
    }
    parts.append(
        _sse(
            None,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [],
                "usage": usage,
            },
        )
    )
    parts.append(b"data: [DONE]\n\n")
    return parts


def openai_responses_transcript(steps: Sequence[Step | str], model: str = "gpt-fake") -> list[Part]:
    """An ``openai-responses`` SSE body (spec 10 §A.3.4/§A.3.7)."""
    items = _steps(steps)
    use = _turn_usage(items)
    seq = 0

    def event(kind: str, **data: Any) -> bytes:
        nonlocal seq
        seq += 1
        return _sse(kind, {"type": kind, "sequence_number": seq, **data})

    parts: list[Part] = [event("response.created", response={"id": "resp_fake", "status": "in_progress"})]
    out_index = 0
    for step in items:
        control = _control(step)
        if control is not None:
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            parts.append(event("error", code="server_error", message=step.message))
            return parts
        if isinstance(step, Thinking):
            item_id = f"rs_{out_index}"
            parts.append(
                event(
                    "response.output_item.added",
                    output_index=out_index,
                    item={"type": "reasoning", "id": item_id, "summary": []},
                )
            )
            parts.append(
                event(
                    "response.reasoning_summary_part.added",
                    item_id=item_id,
                    output_index=out_index,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                )
            )
            for piece in _split(step.text, step.chunks):
                parts.append(
                    event(
                        "response.reasoning_summary_text.delta",
                        item_id=item_id,
                        output_index=out_index,
                        summary_index=0,
                        delta=piece,
                    )
                )
            parts.append(
                event(
                    "response.reasoning_summary_part.done",
                    item_id=item_id,
                    output_index=out_index,
                    summary_index=0,
                    part={"type": "summary_text", "text": step.text},
                )
            )
            item = {
                "type": "reasoning",
                "id": item_id,
                "summary": [{"type": "summary_text", "text": step.text}],
            }
            if step.signature:
                item["encrypted_content"] = step.signature
            parts.append(event("response.output_item.done", output_index=out_index, item=item))
        elif isinstance(step, Text):
            item_id = f"msg_{out_index}"
            parts.append(
                event(
                    "response.output_item.added",
                    output_index=out_index,
                    item={
                        "type": "message",
                        "id": item_id,
                        "role": "assistant",
                        "status": "in_progress",
                        "content": [],
                    },
                )
            )
            parts.append(
                event(
                    "response.content_part.added",
                    item_id=item_id,
                    output_index=out_index,
                    content_index=0,
                    part={"type": "output_text", "text": "", "annotations": []},
                )
            )
            for piece in _split(step.text, step.chunks):
                parts.append(
                    event(
                        "response.output_text.delta",
                        item_id=item_id,
                        output_index=out_index,
                        content_index=0,
                        delta=piece,
                    )
                )
            done = {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}],
            }
            parts.append(event("response.output_item.done", output_index=out_index, item=done))
        elif isinstance(step, ToolCallStep):
            item_id = f"fc_{out_index}"
            call_id = step.id or f"call_{out_index}"
            raw = _raw_args(step)
            parts.append(
                event(
                    "response.output_item.added",
                    output_index=out_index,
                    item={
                        "type": "function_call",
                        "id": item_id,
                        "call_id": call_id,
                        "name": step.name,
                        "arguments": "",
                        "status": "in_progress",
                    },
                )
            )
            for piece in _split(raw, step.chunks):
                parts.append(
                    event(
                        "response.function_call_arguments.delta",
                        item_id=item_id,
                        output_index=out_index,
                        delta=piece,
                    )
                )
            parts.append(
                event(
                    "response.function_call_arguments.done",
                    item_id=item_id,
                    output_index=out_index,
                    arguments=raw,
                )
            )
            parts.append(
                event(
                    "response.output_item.done",
                    output_index=out_index,
                    item={
                        "type": "function_call",
                        "id": item_id,
                        "call_id": call_id,
                        "name": step.name,
                        "arguments": raw,
                        "status": "completed",
                    },
                )
            )
        else:
            continue
        out_index += 1
    stop = _turn_stop(items)
    status = "incomplete" if stop == "length" else "completed"
    usage = {
        "input_tokens": use.input + use.cache_read,
        "input_tokens_details": {"cached_tokens": use.cache_read},
        "output_tokens": use.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": use.input + use.cache_read + use.output,
    }
    final = {"id": "resp_fake", "status": status, "service_tier": "default", "usage": usage}
    if status == "incomplete":
        final["incomplete_details"] = {"reason": "max_output_tokens"}
    parts.append(
        event("response.incomplete" if status == "incomplete" else "response.completed", response=final)
    )
    return parts


def google_transcript(steps: Sequence[Step | str], model: str = "gemini-fake") -> list[Part]:
    """A ``google-generative-ai`` SSE body with ``\\r\\n`` line endings (spec 10 §A.4.4/§A.4.6)."""
    items = _steps(steps)
    use = _turn_usage(items)

    def chunk(
        parts_: list[dict[str, Any]], extra: dict[str, Any] | None = None, usage: dict[str, Any] | None = None
    ) -> bytes:
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": parts_},
            "index": 0,
            **(extra or {}),
        }
        body: dict[str, Any] = {"candidates": [candidate]}
        if usage:
            body["usageMetadata"] = usage
        body.update({"modelVersion": model, "responseId": "resp_fake"})
        return _sse(None, body).replace(b"\n", b"\r\n")

    parts: list[Part] = []
    for step in items:
        control = _control(step)
        if control is not None:
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            parts.append(
                _sse(None, {"error": {"code": 500, "message": step.message, "status": "INTERNAL"}}).replace(
                    b"\n", b"\r\n"
                )
            )
            return parts
        if isinstance(step, Text):
            parts.extend(chunk([{"text": piece}]) for piece in _split(step.text, step.chunks))
        elif isinstance(step, Thinking):
            pieces = _split(step.text, step.chunks)
            for i, piece in enumerate(pieces):
                part: dict[str, Any] = {"text": piece, "thought": True}
                if step.signature and i == len(pieces) - 1:
                    part["thoughtSignature"] = step.signature
                parts.append(chunk([part]))
        elif isinstance(step, ToolCallStep):
            args = step.arguments if isinstance(step.arguments, dict) else json.loads(step.arguments or "{}")
            call: dict[str, Any] = {"name": step.name, "args": args}
            if step.id:
                call["id"] = step.id
            parts.append(chunk([{"functionCall": call}]))
    stop = _turn_stop(items)
    finish = "MAX_TOKENS" if stop == "length" else "STOP"
    usage = {
        "promptTokenCount": use.input + use.cache_read,
        "candidatesTokenCount": use.output,
        "cachedContentTokenCount": use.cache_read,
        "totalTokenCount": use.input + use.cache_read + use.output,
    }
    parts.append(chunk([], {"finishReason": finish}, usage))
    return parts


def bedrock_transcript(steps: Sequence[Step | str], model: str = "bedrock-fake") -> list[Part]:
    """A ``bedrock-converse-stream`` body: AWS event-stream frames (``pi_app.ai.http.eventstream``)."""
    from pi_app.ai.http.eventstream import encode_event, encode_exception

    def frame(kind: str, data: dict[str, Any]) -> bytes:
        return encode_event(kind, json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())

    items = _steps(steps)
    use = _turn_usage(items)
    parts: list[Part] = [frame("messageStart", {"role": "assistant", "p": "abc"})]
    index = 0
    for step in items:
        control = _control(step)
        if control is not None:
            if isinstance(step, Garbage):  # a well-framed event whose payload is not JSON
                parts.append(encode_event("contentBlockDelta", GARBAGE_LINE[6:].strip()))
                continue
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            payload = json.dumps({"message": step.message}).encode()
            parts.append(encode_exception("internalServerException", payload))
            return parts
        if isinstance(step, Text):
            for piece in _split(step.text, step.chunks):
                parts.append(
                    frame("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}})
                )
        elif isinstance(step, Thinking):
            for piece in _split(step.text, step.chunks):
                delta = {"reasoningContent": {"text": piece}}
                parts.append(frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
            if step.signature:
                delta = {"reasoningContent": {"signature": step.signature}}
                parts.append(frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
        elif isinstance(step, ToolCallStep):
            start = {"toolUse": {"toolUseId": step.id or f"tooluse_fake{index}", "name": step.name}}
            parts.append(frame("contentBlockStart", {"contentBlockIndex": index, "start": start}))
            for piece in _split(_raw_args(step), step.chunks):
                delta = {"toolUse": {"input": piece}}
                parts.append(frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
        else:
            continue
        parts.append(frame("contentBlockStop", {"contentBlockIndex": index}))
        index += 1
    stop = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}.get(
        _turn_stop(items), "end_turn"
    )
    parts.append(frame("messageStop", {"stopReason": stop}))
    usage = {
        "inputTokens": use.input,
        "outputTokens": use.output,
        "totalTokens": use.input + use.output + use.cache_read + use.cache_write,
        "cacheReadInputTokens": use.cache_read,
        "cacheWriteInputTokens": use.cache_write,
    }
    parts.append(frame("metadata", {"usage": usage, "metrics": {"latencyMs": 1}}))
    return parts


def pi_messages_transcript(steps: Sequence[Step | str], model: str = "pi-fake") -> list[Part]:
    """A ``pi-messages`` SSE body: pi's own events without ``partial``, ended by ``done``."""
    items = _steps(steps)
    use = _turn_usage(items)
    parts: list[Part] = [_sse(None, {"type": "start"})]
    index = 0
    for step in items:
        control = _control(step)
        if control is not None:
            parts.append(control)
            if isinstance(step, Hang | Cut):
                return parts
            continue
        if isinstance(step, Error):
            parts.append(_sse(None, {"type": "error", "reason": "error", "errorMessage": step.message}))
            return parts
        if isinstance(step, Text | Thinking):
            kind = "text" if isinstance(step, Text) else "thinking"
            parts.append(_sse(None, {"type": f"{kind}_start", "contentIndex": index}))
            for piece in _split(step.text, step.chunks):
                parts.append(_sse(None, {"type": f"{kind}_delta", "contentIndex": index, "delta": piece}))
            end: dict[str, Any] = {"type": f"{kind}_end", "contentIndex": index, "content": step.text}
            if isinstance(step, Thinking) and step.signature:
                end["contentSignature"] = step.signature
            parts.append(_sse(None, end))
        elif isinstance(step, ToolCallStep):
            call_id = step.id or f"call_fake{index}"
            parts.append(
                _sse(
                    None,
                    {"type": "toolcall_start", "contentIndex": index, "id": call_id, "toolName": step.name},
                )
            )
            for piece in _split(_raw_args(step), step.chunks):
                parts.append(_sse(None, {"type": "toolcall_delta", "contentIndex": index, "delta": piece}))
            arguments = (
                step.arguments if isinstance(step.arguments, dict) else json.loads(step.arguments or "{}")
            )
            call = {"type": "toolCall", "id": call_id, "name": step.name, "arguments": arguments}
            parts.append(_sse(None, {"type": "toolcall_end", "contentIndex": index, "toolCall": call}))
        else:
            continue
        index += 1
    usage = {
        "input": use.input,
        "output": use.output,
        "cacheRead": use.cache_read,
        "cacheWrite": use.cache_write,
        "totalTokens": use.input + use.output + use.cache_read + use.cache_write,
    }
    parts.append(
        _sse(None, {"type": "done", "reason": _turn_stop(items), "usage": usage, "responseId": "pi_fake"})
    )
    return parts


TRANSCRIPT_BUILDERS: dict[str, Callable[..., list[Part]]] = {
    "anthropic-messages": anthropic_transcript,
    "openai-completions": openai_completions_transcript,
    "openai-responses": openai_responses_transcript,
    "azure-openai-responses": openai_responses_transcript,
    "openai-codex-responses": openai_responses_transcript,
    "google-generative-ai": google_transcript,
    "google-vertex": google_transcript,
    "bedrock-converse-stream": bedrock_transcript,
    "pi-messages": pi_messages_transcript,
}


def transcript(api: str, steps: Sequence[Step | str], model: str = "fake-model") -> list[Part]:
    return TRANSCRIPT_BUILDERS[api](steps, model=model)


def transcript_bytes(parts: Sequence[Part]) -> bytes:
    """The body as one byte string (control parts dropped)."""
    return b"".join(p for p in parts if isinstance(p, bytes))


def mock_sse_response(parts: Sequence[Part], status: int = 200, chunk_size: int | None = None) -> Any:
    """An ``httpx.Response`` streaming ``parts`` (for ``httpx.MockTransport`` handlers).

    ``Delay`` sleeps, ``Hang`` waits forever (until the reader is cancelled), ``Cut`` raises the
    error httpx raises when a peer drops the connection. ``chunk_size`` re-splits the bytes.
    """
    import httpx

    async def body() -> Any:
        for part in parts:
            if isinstance(part, Delay):
                await asyncio.sleep(part.seconds)
            elif isinstance(part, Hang):
                await asyncio.Event().wait()
            elif isinstance(part, Cut):
                raise httpx.RemoteProtocolError(
                    "peer closed connection without sending complete message body"
                )
            elif chunk_size:
                for i in range(0, len(part), chunk_size):
                    yield part[i : i + chunk_size]
            else:
                yield part

    return httpx.Response(status, headers={"content-type": "text/event-stream"}, content=body())
