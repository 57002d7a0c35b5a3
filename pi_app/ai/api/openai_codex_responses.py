"""The ``openai-codex-responses`` wire adapter: ChatGPT's Codex backend (spec 10 §A.7.2).

Responses events and conversion, with Codex's request shape: ``instructions`` carries the system
prompt, tools are sent without ``strict``, reasoning effort is clamped per model, and the bearer
token travels with the ChatGPT account id header (added by the OAuth ``to_auth``). SSE only; the
WebSocket transports are not implemented (``transport`` is accepted and ignored).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_app.ai.api.openai_responses import OpenAIResponsesApi
from pi_app.ai.api.openai_responses_shared import convert_input, tool_definitions
from pi_app.ai.api.shared import WireRequest, has_header, merge_headers
from pi_app.ai.types import Context, Model

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

API = "openai-codex-responses"


def codex_url(base_url: str) -> str:
    base = (base_url or "https://chatgpt.com/backend-api").rstrip("/")
    if base.endswith("/codex/responses"):
        return base
    if base.endswith("/codex"):
        return base + "/responses"
    return base + "/codex/responses"


def clamp_codex_effort(model_id: str, effort: str) -> str:
    if any(tag in model_id for tag in ("gpt-5.2", "gpt-5.3", "gpt-5.4")) and effort == "minimal":
        return "low"
    if "gpt-5.1-codex-mini" in model_id:
        return "high" if effort in ("high", "xhigh", "max") else "medium"
    if "gpt-5.1" in model_id and effort in ("xhigh", "max"):
        return "high"
    return effort


class OpenAICodexResponsesApi(OpenAIResponsesApi):
    api = API

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        supplied = merge_headers(model.headers, options.headers)
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "OpenAI-Beta": "responses=experimental",
            "originator": "pi",
        }
        if options.api_key and not has_header(supplied, "authorization"):
            headers["authorization"] = f"Bearer {options.api_key}"
        if options.session_id:
            headers["session_id"] = options.session_id
        headers = merge_headers(headers, supplied)
        body: dict[str, Any] = {
            "model": model.id,
            "store": False,
            "stream": True,
            "instructions": context.system_prompt or "",
            "input": convert_input(None, list(context.messages), model),
            "text": {"verbosity": "medium"},
            "include": ["reasoning.encrypted_content"],
            "tool_choice": "auto",
            "parallel_tool_calls": True,
        }
        if options.session_id:
            body["prompt_cache_key"] = options.session_id
        if context.tools:
            body["tools"] = tool_definitions(list(context.tools), strict=False)
        effort = getattr(options, "reasoning_effort", None)
        if effort:
            body["reasoning"] = {"effort": clamp_codex_effort(model.id, effort), "summary": "auto"}
        return WireRequest(url=codex_url(model.base_url), headers=headers, body=body)


def openai_codex_responses_api() -> OpenAICodexResponsesApi:
    return OpenAICodexResponsesApi()
