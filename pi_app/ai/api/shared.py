"""What every wire adapter shares: building the message and running one streaming request.

``MessageBuilder`` owns the live ``AssistantMessage`` and turns "open a text block", "append",
"close", "finish" into the 12-event protocol with its invariants (sequential blocks, one terminal
event, cost recomputed with usage, R-AI-90 ``toolUse`` promotion, R-AI-91 error stop reasons).

``WireApi`` is the base class of the four adapters: a subclass builds the request
(``build_request``) and parses SSE events (``create_parser``); ``stream``/``stream_simple`` run
the request in a producer task that never raises (spec 10 §2.10): pre-flight failures give a lone
``error``; after a 2xx the stream starts, the body is read in an inner task raced against the
abort signal, and any failure keeps the partial content.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.growing import GrowingText, GrowingThinking, GrowingToolCall, freeze_blocks
from pi_app.ai.http.sse import SseDecoder, SseEvent
from pi_app.ai.http.transport import (
    DEFAULT_TIMEOUT_MS,
    RequestAborted,
    TransportError,
    connection_error_text,
    open_stream,
    race_abort,
    timeout_text,
)
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    StopReason,
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
    ToolResultMessage,
    Usage,
    UserMessage,
    now_ms,
)
from pi_app.ai.util.cost import calculate_cost
from pi_app.ai.util.sanitize import loads_clean, sanitize_surrogates

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

ABORTED_TEXT = "Request was aborted"
ENDED_TEXT = "Stream ended unexpectedly"
IMAGE_PLACEHOLDER = "(see attached image)"


class StreamFailure(Exception):
    """The response body reported or caused a failure; ``str()`` is the ``errorMessage``."""


# ---------------------------------------------------------------------------------------------
# The message builder
# ---------------------------------------------------------------------------------------------


class MessageBuilder:
    def __init__(self, model: Model, stream: AssistantMessageEventStream) -> None:
        self.model = model
        self.stream = stream
        self.message = AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, timestamp=now_ms()
        )
        self.started = False
        self.stop_reason: StopReason = "stop"
        self.stop_error: str | None = None
        self.service_tier: str | None = None
        self._open: int | None = None

    # -- blocks ------------------------------------------------------------------------------

    @property
    def open_block(self) -> Any:
        return self.message.content[self._open] if self._open is not None else None

    @property
    def open_index(self) -> int | None:
        return self._open

    def start(self) -> None:
        if not self.started:
            self.started = True
            self.stream.push(StartEvent(partial=self.message))

    def _add(self, block: Any) -> int:
        self.close()
        self.message.content.append(block)
        self._open = len(self.message.content) - 1
        return self._open

    def open_text(self, signature: str | None = None) -> int:
        index = self._add(GrowingText(text="", text_signature=signature))
        self.stream.push(TextStartEvent(content_index=index, partial=self.message))
        return index

    def open_thinking(
        self, signature: str | None = None, text: str = "", redacted: bool | None = None
    ) -> int:
        index = self._add(GrowingThinking(thinking=text, thinking_signature=signature, redacted=redacted))
        self.stream.push(ThinkingStartEvent(content_index=index, partial=self.message))
        return index

    def open_tool_call(
        self, id: str, name: str, raw: str = "", arguments: dict[str, Any] | None = None
    ) -> int:
        call = GrowingToolCall(id=id, name=name)
        if arguments is not None:
            call.arguments = arguments
        else:
            call.set_raw(raw)
        index = self._add(call)
        self.stream.push(ToolCallStartEvent(content_index=index, partial=self.message))
        return index

    def append(self, delta: str) -> None:
        """Append to the open text or thinking block (emits the matching delta event); O(delta)."""
        block = self.open_block
        index = self._open
        assert index is not None
        if isinstance(block, GrowingText):
            block.append(delta)
            self.stream.push(TextDeltaEvent(content_index=index, delta=delta, partial=self.message))
        elif isinstance(block, GrowingThinking):
            block.append(delta)
            self.stream.push(ThinkingDeltaEvent(content_index=index, delta=delta, partial=self.message))

    def append_arguments(self, delta: str) -> None:
        """Append raw argument JSON to the open tool call; parsed only when read (issue 20)."""
        index = self._open
        block = self.open_block
        if index is None or not isinstance(block, GrowingToolCall):
            return
        block.append_raw(delta)
        self.stream.push(ToolCallDeltaEvent(content_index=index, delta=delta, partial=self.message))

    def set_raw_arguments(self, raw: str) -> None:
        if self._open is not None and isinstance(self.open_block, GrowingToolCall):
            self.open_block.set_raw(raw)

    def close(self) -> None:
        """Close the open block (if any) with its end event; the block becomes a plain one."""
        index = self._open
        if index is None:
            return
        self._open = None
        content = self.message.content
        block = content[index]
        if isinstance(block, GrowingText | GrowingThinking | GrowingToolCall):
            block = content[index] = block.frozen()
        if isinstance(block, TextContent):
            self.stream.push(TextEndEvent(content_index=index, content=block.text, partial=self.message))
        elif isinstance(block, ThinkingContent):
            self.stream.push(
                ThinkingEndEvent(content_index=index, content=block.thinking, partial=self.message)
            )
        elif isinstance(block, ToolCall):
            self.stream.push(ToolCallEndEvent(content_index=index, tool_call=block, partial=self.message))

    # -- usage and the end -------------------------------------------------------------------

    def set_usage(self, usage: Usage) -> None:
        self.message.usage = usage
        self.update_cost()

    def update_cost(self) -> None:
        calculate_cost(self.model, self.message.usage, self.service_tier)

    def set_stop(self, reason: StopReason, error: str | None = None) -> None:
        self.stop_reason = reason
        self.stop_error = error

    def finish(self) -> None:
        """Close the open block and push the terminal event for the recorded stop reason."""
        self.close()
        if self.stop_reason == "error":
            self.fail(self.stop_error or "Provider reported an error")
            return
        reason = self.stop_reason
        if reason == "stop" and any(isinstance(b, ToolCall) for b in self.message.content):
            reason = "toolUse"
        self.message.stop_reason = reason
        self.update_cost()
        self.stream.push(DoneEvent(reason=self.message.stop_reason, message=self.message))

    def fail(self, text: str, aborted: bool = False) -> None:
        """Push the ``error`` terminal; an open block stays without its end event."""
        self._open = None
        freeze_blocks(self.message.content)
        self.message.stop_reason = "aborted" if aborted else "error"
        self.message.error_message = (ABORTED_TEXT if aborted else text) or "Unknown error"
        self.update_cost()
        self.stream.push(ErrorEvent(reason=self.message.stop_reason, error=self.message))

    def note(self, entry: dict[str, Any]) -> None:
        if self.message.diagnostics is None:
            self.message.diagnostics = []
        self.message.diagnostics.append(entry)


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------


@dataclass
class WireRequest:
    """A request ready to send: URL, headers, JSON body and query parameters."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    params: dict[str, str] | None = None


class SseParser:
    """Per-request SSE state machine of one adapter."""

    def feed(self, event: SseEvent) -> bool:
        """Handle one event; True when the stream is complete (nothing more to read)."""
        raise NotImplementedError

    def end_of_stream(self) -> None:
        """EOF (or ``[DONE]``) reached: record the stop reason, or raise ``StreamFailure``."""
        raise NotImplementedError


def parse_json_data(event: SseEvent) -> Any:
    try:
        return loads_clean(event.data)
    except ValueError:
        snippet = event.data[:200]
        raise StreamFailure(f"Invalid JSON in stream: {snippet}") from None


def encode_body(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def merge_headers(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """Later layers win on case-insensitive name collisions (R-AI-29)."""
    merged: dict[str, tuple[str, str]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            merged[name.lower()] = (name, value)
    return {name: value for name, value in merged.values()}


def has_header(headers: Mapping[str, str] | None, name: str) -> bool:
    return any(k.lower() == name.lower() for k in (headers or {}))


def env_value(options: StreamOptions | None, name: str) -> str | None:
    """A per-request ``options.env`` entry, else the process environment."""
    env = getattr(options, "env", None) or {}
    return env.get(name) if name in env else os.environ.get(name)


def cache_retention(options: StreamOptions | None) -> str:
    value = getattr(options, "cache_retention", None)
    if value:
        return value
    return "long" if env_value(options, "PI_CACHE_RETENTION") == "long" else "short"


def join_url(base: str, path: str) -> str:
    return base.rstrip("/") + path


class WireApi:
    """Base class of a wire adapter; subclasses implement the request and the parser."""

    api: str = ""
    options_class: type[StreamOptions] = StreamOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        raise NotImplementedError

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> SseParser:
        raise NotImplementedError

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> StreamOptions:
        raise NotImplementedError

    async def authorize(
        self, request: WireRequest, body: bytes, model: Model, options: StreamOptions
    ) -> WireRequest:
        """Last step before sending, over the exact body bytes (Bedrock signs them; Vertex fetches
        an access token). May block in a thread; raising fails the request with the message."""
        return request

    def create_decoder(self) -> Any:
        """What turns body chunks into events (``feed(bytes) -> list[SseEvent]``, ``flush()``)."""
        return SseDecoder()

    # -- ProviderStreams ---------------------------------------------------------------------

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessageEventStream:
        loop = asyncio.get_running_loop()  # R-AI-18: outside a loop is a programming error
        stream = AssistantMessageEventStream()
        builder = MessageBuilder(model, stream)
        opts = options if options is not None else self.options_class()
        stream.producer = loop.create_task(self._produce(builder, model, context, opts))
        return stream

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessageEventStream:
        asyncio.get_running_loop()
        try:
            opts = self.simple_options(model, options)
        except Exception as exc:
            from pi_app.ai.models import error_stream

            return error_stream(model, f"Invalid options: {exc}")
        return self.stream(model, context, opts)

    # -- the producer ------------------------------------------------------------------------

    async def _produce(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> None:
        signal = getattr(options, "signal", None)
        handle = None
        diagnostics: list[dict[str, Any]] = []
        try:
            if signal is not None and signal.aborted:
                raise RequestAborted()
            request = self.build_request(model, context, options)
            body: Any = request.body
            on_payload = getattr(options, "on_payload", None)
            if on_payload is not None:
                replaced = await _maybe_await(on_payload(body, model))
                if replaced is not None:
                    body = replaced
            encoded = encode_body(body)
            request = await self.authorize(request, encoded, model, options)
            handle = await open_stream(
                url=request.url,
                headers=request.headers,
                body=encoded,
                options=options,
                signal=signal,
                diagnostics=diagnostics,
                params=request.params,
            )
            for entry in diagnostics:
                builder.note(entry)
            diagnostics = []
            builder.start()
            parser = self.create_parser(builder, model, context, options)
            timeout_ms = getattr(options, "timeout_ms", None)
            timeout_ms = DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
            await race_abort(_read_body(handle.response, parser, timeout_ms, self.create_decoder()), signal)
            builder.finish()
        except RequestAborted:
            builder.fail(ABORTED_TEXT, aborted=True)
        except (TransportError, StreamFailure) as exc:
            builder.fail(str(exc), aborted=bool(signal is not None and signal.aborted))
        except asyncio.CancelledError:
            if not builder.stream.done:
                builder.fail(ABORTED_TEXT, aborted=True)
            raise
        except Exception as exc:  # rule 2 of spec 10 §2.10: a stream function never raises
            builder.fail(str(exc) or type(exc).__name__, aborted=bool(signal is not None and signal.aborted))
        finally:
            for entry in diagnostics:
                builder.note(entry)
            if handle is not None:
                await handle.aclose()
            builder.stream.end()


async def _read_body(
    response: httpx.Response, parser: SseParser, timeout_ms: int, decoder: Any = None
) -> None:
    """Feed the SSE body to ``parser``. ``timeout_ms`` bounds each read and also the time between
    two events, so a server that trickles a byte now and then without ever finishing an event
    cannot hold the request open for ever (issue 19 item 10)."""
    decoder = decoder if decoder is not None else SseDecoder()
    loop = asyncio.get_running_loop()
    idle_s = timeout_ms / 1000 if timeout_ms > 0 else None
    last_event = loop.time()
    try:
        async for chunk in response.aiter_raw():
            events = decoder.feed(chunk)
            if events:
                last_event = loop.time()
            elif idle_s is not None and loop.time() - last_event > idle_s:
                raise StreamFailure(timeout_text(timeout_ms))
            for event in events:
                if event.data.strip() == "[DONE]":
                    parser.end_of_stream()
                    return
                if parser.feed(event):
                    return
    except httpx.ReadTimeout:
        raise StreamFailure(timeout_text(timeout_ms)) from None
    except httpx.TransportError as exc:
        raise StreamFailure(connection_error_text(exc)) from None
    for event in decoder.flush():
        if event.data.strip() == "[DONE]":
            break
        if parser.feed(event):
            return
    parser.end_of_stream()


# ---------------------------------------------------------------------------------------------
# Conversion helpers
# ---------------------------------------------------------------------------------------------

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def sanitize_id(value: str, limit: int) -> str:
    return _ID_UNSAFE.sub("_", value)[:limit]


def is_base64(value: str | None) -> bool:
    return value is not None and value != "" and len(value) % 4 == 0 and bool(_BASE64.match(value))


def accepts_images(model: Model) -> bool:
    return "image" in (model.input or [])


def clean(text: str | None) -> str:
    return sanitize_surrogates(text or "")


def user_blocks(message: UserMessage) -> list[Any]:
    """User content as a block list (a string becomes one text block)."""
    if isinstance(message.content, str):
        return [TextContent(text=message.content)]
    return list(message.content or [])


def result_texts(message: ToolResultMessage) -> str:
    return "\n".join(clean(b.text) for b in message.content if isinstance(b, TextContent))


def result_images(message: ToolResultMessage) -> list[ImageContent]:
    return [b for b in message.content if isinstance(b, ImageContent)]


def data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"


def tool_call_arguments(call: ToolCall) -> dict[str, Any]:
    return call.arguments if isinstance(call.arguments, dict) else {}


def sampling_fields(model: Model, options: StreamOptions) -> dict[str, Any]:
    """pi 1.6.0's ``samplingParams`` merged with the override of the effective thinking level.

    The level is the options' already-clamped pi ``thinking_level`` (else their
    ``reasoning_effort``; "off" when thinking is off or the model cannot reason); keys of the
    level's entry win. Only the OpenAI-compatible adapters call this (other APIs ignore the fields).
    """
    level = getattr(options, "thinking_level", None) or getattr(options, "reasoning_effort", None)
    if not model.reasoning:
        level = None
    merged: dict[str, Any] = dict(model.sampling_params or {})
    by_level = model.sampling_params_by_thinking_level or {}
    merged.update(by_level.get(level or "off") or {})
    return merged
