"""The ``openai-responses`` wire adapter (spec 10 Appendix A.3): OpenAI's Responses API.

Conversion and parsing live in ``openai_responses_shared``; this module builds the request
(endpoint, headers, body) and maps ``stream_simple`` levels to ``reasoning.effort`` (R-AI-82).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_app.ai.api.openai_responses_shared import ResponsesParser, convert_input, tool_definitions
from pi_app.ai.api.shared import (
    MessageBuilder,
    SseParser,
    WireApi,
    WireRequest,
    cache_retention,
    has_header,
    join_url,
    merge_headers,
    sampling_fields,
)
from pi_app.ai.api.simple_options import build_base_options, mapped_effort, requested_level
from pi_app.ai.types import Context, Model, SimpleStreamOptions, StreamOptions

API = "openai-responses"


@dataclass
class OpenAIResponsesOptions(StreamOptions):
    reasoning_effort: str | None = None
    reasoning_summary: str | None = None  # "auto" | "detailed" | "concise"
    service_tier: str | None = None
    # the pi thinking level behind ``reasoning_effort`` (picks samplingParamsByThinkingLevel)
    thinking_level: str | None = None


def responses_body(
    model: Model, context: Context, options: StreamOptions, *, caching: bool = True
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(context.system_prompt, list(context.messages), model),
        "stream": True,
        "store": False,
    }
    retention = cache_retention(options)
    if caching and options.session_id and retention != "none":
        body["prompt_cache_key"] = options.session_id
    if caching and retention == "long" and "api.openai.com" in model.base_url:
        body["prompt_cache_retention"] = "24h"
    if options.max_tokens:
        body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if service_tier := getattr(options, "service_tier", None):
        body["service_tier"] = service_tier
    if context.tools:
        body["tools"] = tool_definitions(list(context.tools))
    effort = getattr(options, "reasoning_effort", None)
    summary = getattr(options, "reasoning_summary", None)
    if model.reasoning and (effort or summary):
        body["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    body.update(sampling_fields(model, options))
    return body


class OpenAIResponsesApi(WireApi):
    api = API
    options_class = OpenAIResponsesOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        supplied = merge_headers(model.headers, options.headers)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if options.api_key and not has_header(supplied, "authorization"):
            headers["authorization"] = f"Bearer {options.api_key}"
        headers = merge_headers(headers, supplied)
        body = responses_body(model, context, options)
        return WireRequest(url=join_url(model.base_url, "/responses"), headers=headers, body=body)

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> SseParser:
        builder.service_tier = getattr(options, "service_tier", None)
        return ResponsesParser(builder)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> OpenAIResponsesOptions:
        return build_base_options(
            model,
            options,
            OpenAIResponsesOptions,
            reasoning_effort=mapped_effort(model, options),
            thinking_level=requested_level(model, options),
        )


def openai_responses_api() -> OpenAIResponsesApi:
    return OpenAIResponsesApi()
