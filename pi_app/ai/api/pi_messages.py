"""The ``pi-messages`` wire adapter: pi's own message protocol, as the Radius gateway speaks it.

One POST of ``{"model", "context", "options"}`` (the context in pi's JSON shape; options
``temperature``, ``maxTokens``, ``reasoning``, ``cacheRetention``, ``sessionId``) to
``<baseUrl>/messages`` with ``Authorization: Bearer <key>``; the reply is SSE whose events are
pi's assistant-message events without their ``partial`` (``text_start`` … ``toolcall_end``), ended
by ``done`` (stop reason and usage) or ``error`` (its ``errorMessage``). Any backend implementing
it works, e.g. a models.json provider with ``"api": "pi-messages"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_app.ai.api.shared import (
    ENDED_TEXT,
    MessageBuilder,
    SseParser,
    StreamFailure,
    WireApi,
    WireRequest,
    env_value,
    has_header,
    join_url,
    merge_headers,
    parse_json_data,
)
from pi_app.ai.api.simple_options import build_base_options, requested_level
from pi_app.ai.codec import to_dict, usage_from_dict
from pi_app.ai.http.sse import SseEvent
from pi_app.ai.types import Context, Model, SimpleStreamOptions, StreamOptions, TextContent, ThinkingContent

API = "pi-messages"
STOP_REASONS = ("stop", "length", "toolUse")


@dataclass
class PiMessagesOptions(StreamOptions):
    reasoning: str | None = None


def context_to_dict(context: Context) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": [to_dict(m) for m in context.messages]}
    if context.system_prompt:
        out["systemPrompt"] = context.system_prompt
    if context.tools:
        out["tools"] = [
            {"name": t.name, "description": t.description, "parameters": t.parameters} for t in context.tools
        ]
    return out


class _Parser(SseParser):
    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.ended = False

    def feed(self, event: SseEvent) -> bool:
        data = parse_json_data(event)
        if not isinstance(data, dict):
            return False
        b = self.b
        kind = data.get("type") or event.event
        if kind == "text_start":
            b.open_text()
        elif kind == "thinking_start":
            b.open_thinking(signature="")
        elif kind == "toolcall_start":
            b.open_tool_call(str(data.get("id") or ""), str(data.get("toolName") or ""))
        elif kind in ("text_delta", "thinking_delta"):
            b.append(str(data.get("delta") or ""))
        elif kind == "toolcall_delta":
            b.append_arguments(str(data.get("delta") or ""))
        elif kind in ("text_end", "thinking_end"):
            block = b.open_block
            if isinstance(block, TextContent) and data.get("contentSignature"):
                block.text_signature = data["contentSignature"]
            if isinstance(block, ThinkingContent):
                block.thinking_signature = data.get("contentSignature") or block.thinking_signature
                if data.get("redacted"):
                    block.redacted = True
            b.close()
        elif kind == "toolcall_end":
            call = data.get("toolCall") or {}
            if isinstance(call.get("arguments"), dict):
                b.set_raw_arguments(_json(call["arguments"]))
            b.close()
        elif kind in ("done", "error"):
            self.ended = True
            if isinstance(data.get("usage"), dict):
                b.set_usage(usage_from_dict(data["usage"]))
            if data.get("responseId"):
                b.message.response_id = data["responseId"]
            if kind == "error":
                raise StreamFailure(
                    str(data.get("errorMessage") or "Unknown error (no error details in stream)")
                )
            reason = data.get("reason")
            b.set_stop(reason if reason in STOP_REASONS else "stop")
            return True
        return False

    def end_of_stream(self) -> None:
        if not self.ended:
            raise StreamFailure(ENDED_TEXT)


def _json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class PiMessagesApi(WireApi):
    api = API
    options_class = PiMessagesOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        if not options.api_key:
            raise ValueError(f'No API key provided for provider "{model.provider}"')
        supplied = merge_headers(model.headers, options.headers)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if not has_header(supplied, "authorization"):
            headers["authorization"] = f"Bearer {options.api_key}"
        retention = getattr(options, "cache_retention", None) or (
            "long" if env_value(options, "PI_CACHE_RETENTION") == "long" else None
        )
        settings = {
            "temperature": options.temperature,
            "maxTokens": options.max_tokens,
            "reasoning": options.reasoning if isinstance(options, PiMessagesOptions) else None,
            "cacheRetention": retention,
            "sessionId": options.session_id,
        }
        body = {
            "model": model.id,
            "context": context_to_dict(context),
            "options": {k: v for k, v in settings.items() if v is not None},
        }
        return WireRequest(
            url=join_url(model.base_url, "/messages"), headers=merge_headers(headers, supplied), body=body
        )

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> _Parser:
        return _Parser(builder)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> PiMessagesOptions:
        return build_base_options(
            model, options, PiMessagesOptions, reasoning=requested_level(model, options)
        )


def pi_messages_api() -> PiMessagesApi:
    return PiMessagesApi()
