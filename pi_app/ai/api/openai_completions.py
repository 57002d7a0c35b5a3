"""The ``openai-completions`` wire adapter: Chat Completions and compatible servers (Appendix A.2).

``openai_completions_api()`` serves OpenRouter, xAI, Groq, Cerebras, z.ai, Hugging Face, DeepSeek,
Mistral, local servers and any ``models.json`` provider with this API. Differences between servers
are ``model.compat`` switches (A.2.6), auto-detected from the provider and base URL when absent.
Mistral needs tool-call ids of exactly nine alphanumeric characters; that normaliser lives here
too (A.7.4).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.ai.api.shared import (
    ENDED_TEXT,
    IMAGE_PLACEHOLDER,
    MessageBuilder,
    SseParser,
    StreamFailure,
    WireApi,
    WireRequest,
    accepts_images,
    clean,
    data_url,
    has_header,
    join_url,
    merge_headers,
    parse_json_data,
    result_images,
    result_texts,
    sampling_fields,
    sanitize_id,
    tool_call_arguments,
    user_blocks,
)
from pi_app.ai.api.simple_options import build_base_options, mapped_effort, requested_level
from pi_app.ai.api.transform_messages import transform_messages
from pi_app.ai.http.sse import SseEvent
from pi_app.ai.http.transport import format_error_object
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StopReason,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_app.ai.util.short_hash import short_hash

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

API = "openai-completions"
ASSISTANT_AFTER_TOOLS = "I have processed the tool results."
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}

_NO_STORE_PROVIDERS = ("cerebras", "xai", "zai", "opencode", "opencode-go")
_NO_STORE_HOSTS = ("cerebras.ai", "api.x.ai", "chutes.ai", "deepseek.com", "api.z.ai", "opencode.ai")


@dataclass
class OpenAICompletionsOptions(StreamOptions):
    """Stream options plus Chat Completions' tool choice and reasoning effort."""

    tool_choice: Any = None  # "auto" | "none" | "required" | {"type": "function", "function": {...}}
    reasoning_effort: str | None = None
    # the pi thinking level behind ``reasoning_effort`` (picks samplingParamsByThinkingLevel)
    thinking_level: str | None = None


def resolve_compat(model: Model) -> dict[str, Any]:
    """``model.compat`` with A.2.6's defaults filled in (explicit values win)."""
    url = model.base_url or ""
    provider = model.provider
    limited = provider in _NO_STORE_PROVIDERS or any(host in url for host in _NO_STORE_HOSTS)
    is_xai = provider == "xai" or "api.x.ai" in url
    is_zai = provider == "zai" or "api.z.ai" in url
    effort_map: dict[str, str] = {}
    if provider == "groq" and model.id == "qwen/qwen3-32b":
        effort_map = {lvl: "default" for lvl in ("minimal", "low", "medium", "high", "xhigh", "max")}
    defaults: dict[str, Any] = {
        "supportsStore": not limited,
        # pi 1.6.0: the developer role only for api.openai.com unless compat says so
        "supportsDeveloperRole": "api.openai.com" in url,
        "supportsReasoningEffort": not (is_xai or is_zai),
        "reasoningEffortMap": effort_map,
        "supportsUsageInStreaming": True,
        "maxTokensField": "max_tokens" if "chutes.ai" in url else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "requiresMistralToolIds": provider == "mistral" or "api.mistral.ai" in url,
        "thinkingFormat": "zai" if is_zai else "openai",
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        "supportsStrictMode": True,
    }
    return {**defaults, **{k: v for k, v in (model.compat or {}).items() if v is not None}}


def mistral_tool_id(id: str) -> str:
    """Nine alphanumeric characters, derived deterministically from ``id`` (A.7.4)."""
    alnum = "".join(ch for ch in id if ch.isalnum())
    if len(alnum) == 9:
        return alnum
    return (alnum[:4] + short_hash(id, 16))[:9].ljust(9, "0")


def normalize_tool_call_id(id: str, model: Model, source: AssistantMessage) -> str:
    if resolve_compat(model)["requiresMistralToolIds"]:
        return mistral_tool_id(id)
    if "|" in id:
        return sanitize_id(id.split("|", 1)[0], 40)
    if model.provider == "openai":
        return id[:40]
    return id


def _user_message(message: UserMessage, model: Model) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": clean(message.content)}
    parts: list[dict[str, Any]] = []
    for block in user_blocks(message):
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": clean(block.text)})
        elif isinstance(block, ImageContent) and accepts_images(model):
            parts.append({"type": "image_url", "image_url": {"url": data_url(block)}})
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(message: AssistantMessage, compat: dict[str, Any]) -> dict[str, Any] | None:
    texts = [clean(b.text) for b in message.content if isinstance(b, TextContent) and b.text.strip()]
    thinking = [b for b in message.content if isinstance(b, ThinkingContent) and b.thinking.strip()]
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    content: str | None = "".join(texts) if texts else None
    out: dict[str, Any] = {"role": "assistant"}
    if thinking:
        thought = [clean(b.thinking) for b in thinking]
        if compat["requiresThinkingAsText"]:
            joined = "\n\n".join(thought)
            content = f"{joined}\n\n{content}" if content else joined
        else:
            field = thinking[0].thinking_signature
            if field and field in REASONING_FIELDS:
                out[field] = "\n".join(thought)
    if content is None and compat["requiresAssistantAfterToolResult"]:
        content = ""
    out["content"] = content
    if calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(tool_call_arguments(call), ensure_ascii=False),
                },
            }
            for call in calls
        ]
        details = []
        for call in calls:
            if call.thought_signature:
                try:
                    details.append(json.loads(call.thought_signature))
                except ValueError:
                    pass
        if details:
            out["reasoning_details"] = details
    if not content and not calls:
        return None
    return out


def convert_messages(
    system_prompt: str | None, messages: list[Any], model: Model, compat: dict[str, Any]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system_prompt:
        role = "developer" if model.reasoning and compat["supportsDeveloperRole"] else "system"
        out.append({"role": role, "content": clean(system_prompt)})
    pending_images: list[ImageContent] = []
    last_was_result = False

    def flush_images() -> None:
        if not pending_images:
            return
        if compat["requiresAssistantAfterToolResult"]:
            out.append({"role": "assistant", "content": ASSISTANT_AFTER_TOOLS})
        parts: list[dict[str, Any]] = [{"type": "text", "text": "Attached image(s) from tool result:"}]
        parts.extend({"type": "image_url", "image_url": {"url": data_url(img)}} for img in pending_images)
        out.append({"role": "user", "content": parts})
        pending_images.clear()

    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, ToolResultMessage):
            text = result_texts(message)
            images = result_images(message)
            if not text and images:
                text = IMAGE_PLACEHOLDER
            entry: dict[str, Any] = {"role": "tool", "content": text, "tool_call_id": message.tool_call_id}
            if compat["requiresToolResultName"]:
                entry["name"] = message.tool_name
            out.append(entry)
            if images and accepts_images(model):
                pending_images.extend(images)
            last_was_result = True
            continue
        had_images = bool(pending_images)
        flush_images()
        if isinstance(message, UserMessage):
            converted = _user_message(message, model)
            if converted is None:
                continue
            if last_was_result and not had_images and compat["requiresAssistantAfterToolResult"]:
                out.append({"role": "assistant", "content": ASSISTANT_AFTER_TOOLS})
            out.append(converted)
        elif isinstance(message, AssistantMessage):
            converted = _assistant_message(message, compat)
            if converted is not None:
                out.append(converted)
        last_was_result = False
    flush_images()
    return out


def _has_tool_history(messages: list[Any]) -> bool:
    for message in messages:
        if isinstance(message, ToolResultMessage):
            return True
        if isinstance(message, AssistantMessage) and any(isinstance(b, ToolCall) for b in message.content):
            return True
    return False


def _mark_openrouter_cache(messages: list[dict[str, Any]]) -> None:
    for message in reversed(messages):
        if message["role"] not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            message["content"] = content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            for part in reversed(content):
                if part.get("type") == "text":
                    part["cache_control"] = {"type": "ephemeral"}
                    return
        return


class OpenAICompletionsApi(WireApi):
    api = API
    options_class = OpenAICompletionsOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        compat = resolve_compat(model)
        supplied = merge_headers(model.headers, options.headers)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if options.api_key and not has_header(supplied, "authorization"):
            headers["authorization"] = f"Bearer {options.api_key}"
        headers = merge_headers(headers, supplied)

        messages = convert_messages(context.system_prompt, list(context.messages), model, compat)
        if "openrouter.ai" in model.base_url and model.id.startswith("anthropic/"):
            _mark_openrouter_cache(messages)
        body: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
        if compat["supportsUsageInStreaming"]:
            body["stream_options"] = {"include_usage": True}
        if compat["supportsStore"]:
            body["store"] = False
        if options.max_tokens:
            body[compat["maxTokensField"]] = options.max_tokens
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if context.tools:
            body["tools"] = [self._tool(t, compat) for t in context.tools]
        elif _has_tool_history(list(context.messages)):
            body["tools"] = []
        tool_choice = getattr(options, "tool_choice", None)
        if tool_choice:
            body["tool_choice"] = tool_choice
        effort = getattr(options, "reasoning_effort", None)
        if model.reasoning:
            fmt = compat["thinkingFormat"]
            if fmt in ("zai", "qwen"):
                body["enable_thinking"] = bool(effort)
            elif fmt == "qwen-chat-template":
                # preserve_thinking keeps earlier reasoning in the template, as pi 1.6.0 sends it
                body["chat_template_kwargs"] = {"enable_thinking": bool(effort), "preserve_thinking": True}
            elif effort and compat["supportsReasoningEffort"]:
                body["reasoning_effort"] = compat["reasoningEffortMap"].get(effort, effort)
        if "openrouter.ai" in model.base_url and compat["openRouterRouting"]:
            body["provider"] = compat["openRouterRouting"]
        routing = compat["vercelGatewayRouting"] or {}
        if "ai-gateway.vercel.sh" in model.base_url and (routing.get("only") or routing.get("order")):
            gateway = {k: routing[k] for k in ("only", "order") if routing.get(k)}
            body["providerOptions"] = {"gateway": gateway}
        body.update(sampling_fields(model, options))
        return WireRequest(url=join_url(model.base_url, "/chat/completions"), headers=headers, body=body)

    @staticmethod
    def _tool(tool: Any, compat: dict[str, Any]) -> dict[str, Any]:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if compat["supportsStrictMode"]:
            function["strict"] = False
        return {"type": "function", "function": function}

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> SseParser:
        return _Parser(builder)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> OpenAICompletionsOptions:
        return build_base_options(
            model,
            options,
            OpenAICompletionsOptions,
            reasoning_effort=mapped_effort(model, options),
            thinking_level=requested_level(model, options),
        )


class _Parser(SseParser):
    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.finish_seen = False
        self.content_seen = False

    def feed(self, event: SseEvent) -> bool:
        chunk = parse_json_data(event)
        if not isinstance(chunk, dict):
            return False
        b = self.b
        if chunk.get("error"):
            raise StreamFailure(
                format_error_object(chunk["error"], _code_prefix(chunk["error"])) or str(chunk["error"])
            )
        if chunk.get("id") and not b.message.response_id:
            b.message.response_id = str(chunk["id"])
        if chunk.get("model") and chunk["model"] != b.model.id and not b.message.response_model:
            b.message.response_model = str(chunk["model"])
        choices = chunk.get("choices") or []
        usage = chunk.get("usage") or (
            choices[0].get("usage") if choices and isinstance(choices[0], dict) else None
        )
        if isinstance(usage, dict):
            b.set_usage(_usage(usage))
        if not choices or not isinstance(choices[0], dict):
            return False
        choice = choices[0]
        reason = choice.get("finish_reason")
        if reason:
            self.finish_seen = True
            mapped = STOP_REASONS.get(reason)
            if mapped is not None:
                b.set_stop(mapped)
            elif reason == "content_filter":
                b.set_stop("error", "Provider stopped with reason: content_filter")
            else:
                b.set_stop("error", f"Unhandled stop reason: {reason}")
        delta = choice.get("delta") or {}
        text = delta.get("content")
        if isinstance(text, str) and text:
            self.content_seen = True
            if not isinstance(b.open_block, TextContent):
                b.open_text()
            b.append(text)
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                self.content_seen = True
                block = b.open_block
                if not isinstance(block, ThinkingContent):
                    b.open_thinking(signature=field)
                b.append(value)
                break
        for item in delta.get("tool_calls") or []:
            self.content_seen = True
            function = item.get("function") or {}
            block = b.open_block
            if not isinstance(block, ToolCall) or (item.get("id") and item["id"] != block.id):
                b.open_tool_call(item.get("id") or "", function.get("name") or "")
                block = b.open_block
            if item.get("id"):
                block.id = item["id"]
            if function.get("name"):
                block.name = function["name"]
            b.append_arguments(function.get("arguments") or "")
        for detail in delta.get("reasoning_details") or []:
            if isinstance(detail, dict) and detail.get("type") == "reasoning.encrypted" and detail.get("id"):
                for block in b.message.content:
                    if isinstance(block, ToolCall) and block.id == detail["id"] and detail.get("data"):
                        block.thought_signature = json.dumps(detail, ensure_ascii=False)
        return False

    def end_of_stream(self) -> None:
        if not self.finish_seen and not self.content_seen:
            raise StreamFailure(ENDED_TEXT)


def _code_prefix(error: Any) -> str:
    code = error.get("code") if isinstance(error, dict) else None
    return str(code) if isinstance(code, int) else ""


def _usage(raw: dict[str, Any]) -> Usage:
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or raw.get("cached_tokens") or 0)
    prompt = int(raw.get("prompt_tokens") or 0)
    output = int(raw.get("completion_tokens") or 0)
    usage = Usage(input=max(0, prompt - cached), output=output, cache_read=cached)
    reasoning = (raw.get("completion_tokens_details") or {}).get("reasoning_tokens")
    if reasoning is not None:
        usage.reasoning = int(reasoning)
    usage.total_tokens = usage.input + usage.output + usage.cache_read
    return usage


def openai_completions_api() -> OpenAICompletionsApi:
    return OpenAICompletionsApi()
