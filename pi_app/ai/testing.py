"""Test support for every layer: the scripted provider (the "faux provider" of the specs).

``fake_provider(id, models, script)`` returns a real ``Provider`` whose streams replay scripted
turns without any network. A script is a list of turns; each turn is a list of steps built with
the helpers below (or parsed from short strings such as ``"text 'hi'"``, ``"tool read {"path":"a"}"``,
``"error 'boom'"``, ``"delay 0.05"``), or a callable ``(model, context, options) -> list[step]``
for replies that depend on the request. Every request is recorded in ``provider.calls``.

Abort is honoured at every step: the stream then ends with an ``error`` event whose message keeps
the content streamed so far (``stopReason "aborted"``).

SSE transcript builders for the four wire APIs also live here (00-index.md, decision D-9).
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.auth.helpers import no_auth
from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.models import BasicProvider, create_provider
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
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


Step = Text | Thinking | ToolCallStep | Error | Delay | UsageStep | Stop | Hang


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
                    block = TextContent(text="")
                    message.content.append(block)
                    idx = len(message.content) - 1
                    stream.push(TextStartEvent(content_index=idx, partial=message))
                    for piece in _split(step.text, step.chunks):
                        block.text += piece
                        stream.push(TextDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    stream.push(TextEndEvent(content_index=idx, content=block.text, partial=message))
                elif isinstance(step, Thinking):
                    tblock = ThinkingContent(thinking="", thinking_signature=step.signature)
                    message.content.append(tblock)
                    idx = len(message.content) - 1
                    stream.push(ThinkingStartEvent(content_index=idx, partial=message))
                    for piece in _split(step.text, step.chunks):
                        tblock.thinking += piece
                        stream.push(ThinkingDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    stream.push(ThinkingEndEvent(content_index=idx, content=tblock.thinking, partial=message))
                elif isinstance(step, ToolCallStep):
                    from pi_app.ai.util.partial_json import parse_streaming_json

                    raw_args = (
                        step.arguments
                        if isinstance(step.arguments, str)
                        else json.dumps(step.arguments, separators=(",", ":"))
                    )
                    call = ToolCall(id=step.id or f"call_{call_index}_{len(message.content)}", name=step.name)
                    message.content.append(call)
                    idx = len(message.content) - 1
                    stream.push(ToolCallStartEvent(content_index=idx, partial=message))
                    acc = ""
                    for piece in _split(raw_args, step.chunks):
                        acc += piece
                        call.arguments = parse_streaming_json(acc)
                        stream.push(ToolCallDeltaEvent(content_index=idx, delta=piece, partial=message))
                        await asyncio.sleep(0)
                    call.arguments = parse_streaming_json(acc)
                    stream.push(ToolCallEndEvent(content_index=idx, tool_call=call, partial=message))
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
            if not explicit_usage:
                message.usage = _estimate_usage(context, message)
            has_calls = any(isinstance(b, ToolCall) for b in message.content)
            reason = explicit_stop or ("toolUse" if has_calls else "stop")
            message.stop_reason = reason  # type: ignore[assignment]
            stream.push(DoneEvent(reason=message.stop_reason, message=message))
        except asyncio.CancelledError:
            finish_aborted()
            raise
        except Exception as exc:  # never raise from a stream
            message.stop_reason = "error"
            message.error_message = f"fake provider failed: {exc}"
            stream.push(ErrorEvent(reason="error", error=message))
        finally:
            stream.end()


async def _sleep_or_abort(seconds: float | None, signal: Any) -> bool:
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
        return self.api  # type: ignore[no-any-return]

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
