"""The ``google-generative-ai`` wire adapter: the Gemini API (spec 10 Appendix A.4).

Gemini streams whole parts rather than token deltas for tool calls: a ``functionCall`` part
becomes ``toolcall_start``, one ``toolcall_delta`` with the full JSON and ``toolcall_end`` at once.
Calls without an id get ``"<name>_<unix ms>_<counter>"``. Thought signatures are kept on the block
they arrived with and replayed only to the same model, and only when they are valid base64.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
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
    has_header,
    is_base64,
    join_url,
    merge_headers,
    parse_json_data,
    result_images,
    result_texts,
    sanitize_id,
    tool_call_arguments,
    user_blocks,
)
from pi_app.ai.api.simple_options import build_base_options, requested_level, thinking_budget
from pi_app.ai.api.transform_messages import transform_messages
from pi_app.ai.http.sse import SseEvent
from pi_app.ai.http.transport import format_error_object
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions


API = "google-generative-ai"
SKIP_SIGNATURE = "skip_thought_signature_validator"
TOOL_CHOICE = {"auto": "AUTO", "none": "NONE", "any": "ANY"}
_GEMINI3_PRO = re.compile(r"gemini-3(\.\d+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(\.\d+)?-flash")


@dataclass
class GoogleOptions(StreamOptions):
    tool_choice: str | None = None  # "auto" | "none" | "any"
    # {"enabled": bool, "budget_tokens": int | None (-1 dynamic, 0 off), "level": "LOW" | ... | None}
    thinking: dict[str, Any] = field(default_factory=dict)


def needs_explicit_ids(model: Model) -> bool:
    return model.id.startswith(("claude-", "gpt-oss-"))


def normalize_tool_call_id(id: str, model: Model, source: AssistantMessage) -> str:
    return sanitize_id(id, 64) if needs_explicit_ids(model) else id


def _signature(value: str | None, same: bool) -> dict[str, str]:
    return {"thoughtSignature": value} if same and value and is_base64(value) else {}


def _inline(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _user_content(message: UserMessage, model: Model) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    for block in user_blocks(message):
        if isinstance(block, TextContent):
            parts.append({"text": clean(block.text)})
        elif isinstance(block, ImageContent) and accepts_images(model):
            parts.append(_inline(block))
    return {"role": "user", "parts": parts} if parts else None


def _model_content(message: AssistantMessage, model: Model) -> dict[str, Any] | None:
    same = message.provider == model.provider and message.model == model.id
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append({"text": clean(block.text), **_signature(block.text_signature, same)})
        elif isinstance(block, ThinkingContent):
            if not block.thinking.strip():
                continue
            if same:
                parts.append(
                    {
                        "thought": True,
                        "text": clean(block.thinking),
                        **_signature(block.thinking_signature, same),
                    }
                )
            else:
                parts.append({"text": clean(block.thinking)})
        elif isinstance(block, ToolCall):
            call: dict[str, Any] = {"name": block.name, "args": tool_call_arguments(block)}
            if needs_explicit_ids(model):
                call["id"] = block.id
            part: dict[str, Any] = {"functionCall": call, **_signature(block.thought_signature, same)}
            if "thoughtSignature" not in part and "gemini-3" in model.id:
                part["thoughtSignature"] = SKIP_SIGNATURE
            parts.append(part)
    return {"role": "model", "parts": parts} if parts else None


def convert_contents(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    gemini3 = "gemini-3" in model.id
    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, UserMessage):
            converted = _user_content(message, model)
            if converted is not None:
                contents.append(converted)
        elif isinstance(message, AssistantMessage):
            converted = _model_content(message, model)
            if converted is not None:
                contents.append(converted)
        elif isinstance(message, ToolResultMessage):
            text = result_texts(message)
            images = result_images(message) if accepts_images(model) else []
            if not text and result_images(message):
                text = IMAGE_PLACEHOLDER
            response = {"error": text} if message.is_error else {"output": text}
            function_response: dict[str, Any] = {"name": message.tool_name, "response": response}
            if needs_explicit_ids(model):
                function_response["id"] = message.tool_call_id
            if images and gemini3:
                function_response["parts"] = [_inline(img) for img in images]
            part = {"functionResponse": function_response}
            last = contents[-1] if contents else None
            if last and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            if images and not gemini3:
                contents.append(
                    {"role": "user", "parts": [{"text": "Tool result image:"}, *(_inline(i) for i in images)]}
                )
    return contents


class GoogleGenerativeAiApi(WireApi):
    api = API
    options_class = GoogleOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        supplied = merge_headers(model.headers, options.headers)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if options.api_key and not has_header(supplied, "authorization"):
            headers["x-goog-api-key"] = options.api_key
        headers = merge_headers(headers, supplied)
        body: dict[str, Any] = {"contents": convert_contents(list(context.messages), model)}
        if context.system_prompt:
            body["systemInstruction"] = {"parts": [{"text": clean(context.system_prompt)}]}
        config: dict[str, Any] = {}
        if options.temperature is not None:
            config["temperature"] = options.temperature
        if options.max_tokens:
            config["maxOutputTokens"] = options.max_tokens
        thinking = getattr(options, "thinking", None) or {}
        if thinking.get("enabled") and model.reasoning:
            thinking_config: dict[str, Any] = {"includeThoughts": True}
            if thinking.get("level"):
                thinking_config["thinkingLevel"] = thinking["level"]
            elif thinking.get("budget_tokens") is not None:
                thinking_config["thinkingBudget"] = thinking["budget_tokens"]
            config["thinkingConfig"] = thinking_config
        if config:
            body["generationConfig"] = config
        if context.tools:
            declarations = [
                {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
                for t in context.tools
            ]
            body["tools"] = [{"functionDeclarations": declarations}]
            choice = getattr(options, "tool_choice", None)
            if choice:
                body["toolConfig"] = {"functionCallingConfig": {"mode": TOOL_CHOICE.get(choice, choice)}}
        url = join_url(model.base_url, f"/models/{model.id}:streamGenerateContent")
        return WireRequest(url=url, headers=headers, body=body, params={"alt": "sse"})

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> SseParser:
        return _Parser(builder)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> GoogleOptions:
        level = requested_level(model, options)
        if level is None:
            return build_base_options(model, options, GoogleOptions, thinking={"enabled": False})
        if _GEMINI3_PRO.search(model.id):
            mapped = "LOW" if level in ("minimal", "low") else "HIGH"
            thinking = {"enabled": True, "level": mapped}
        elif _GEMINI3_FLASH.search(model.id):
            mapped = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM"}.get(level, "HIGH")
            thinking = {"enabled": True, "level": mapped}
        else:
            thinking = {"enabled": True, "budget_tokens": _budget(model, level, options)}
        return build_base_options(model, options, GoogleOptions, thinking=thinking)


def _budget(model: Model, level: str, options: SimpleStreamOptions | None) -> int:
    key = "high" if level in ("xhigh", "max") else level
    if options is not None and options.thinking_budgets and key in options.thinking_budgets:
        return thinking_budget(level, options)
    if "2.5-pro" in model.id:
        return {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}[key]
    if "2.5-flash" in model.id:
        return {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}[key]
    return -1


class _Parser(SseParser):
    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.finish_seen = False
        self.content_seen = False
        self.counter = 0
        self.used_ids: set[str] = set()

    def feed(self, event: SseEvent) -> bool:
        chunk = parse_json_data(event)
        if isinstance(chunk, list):
            chunk = chunk[0] if chunk and isinstance(chunk[0], dict) else {}
        if not isinstance(chunk, dict):
            return False
        b = self.b
        if chunk.get("error"):
            error = chunk["error"]
            code = error.get("code") if isinstance(error, dict) else None
            raise StreamFailure(format_error_object(error, str(code) if code else "") or json.dumps(error))
        if chunk.get("responseId") and not b.message.response_id:
            b.message.response_id = chunk["responseId"]
        version = chunk.get("modelVersion")
        if version and version != b.model.id and not b.message.response_model:
            b.message.response_model = version
        candidates = chunk.get("candidates") or []
        candidate = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
        for part in (candidate.get("content") or {}).get("parts") or []:
            self._part(part)
        if isinstance(chunk.get("usageMetadata"), dict):
            b.set_usage(_usage(chunk["usageMetadata"]))
        reason = candidate.get("finishReason")
        if reason:
            self.finish_seen = True
            if reason == "STOP":
                b.set_stop("stop")
            elif reason == "MAX_TOKENS":
                b.set_stop("length")
            else:
                b.set_stop("error", f"Provider stopped with reason: {reason}")
        return False

    def _part(self, part: dict[str, Any]) -> None:
        b = self.b
        signature = part.get("thoughtSignature")
        if "text" in part:
            self.content_seen = True
            thought = part.get("thought") is True
            block = b.open_block
            wanted = ThinkingContent if thought else TextContent
            if not isinstance(block, wanted):
                b.open_thinking() if thought else b.open_text()
                block = b.open_block
            b.append(part.get("text") or "")
            if signature:
                if thought:
                    block.thinking_signature = signature
                else:
                    block.text_signature = signature
        elif isinstance(part.get("functionCall"), dict):
            self.content_seen = True
            call = part["functionCall"]
            name = call.get("name", "")
            call_id = call.get("id")
            if not call_id or call_id in self.used_ids:
                self.counter += 1
                call_id = f"{name}_{int(time.time() * 1000)}_{self.counter}"
            self.used_ids.add(call_id)
            args = call.get("args") if isinstance(call.get("args"), dict) else {}
            b.open_tool_call(call_id, name, arguments=args)
            if signature:
                b.open_block.thought_signature = signature
            b.append_arguments(json.dumps(args, ensure_ascii=False, separators=(",", ":")))
            b.close()

    def end_of_stream(self) -> None:
        if not self.finish_seen and not self.content_seen:
            raise StreamFailure(ENDED_TEXT)


def _usage(raw: dict[str, Any]) -> Usage:
    cached = int(raw.get("cachedContentTokenCount") or 0)
    thoughts = raw.get("thoughtsTokenCount")
    usage = Usage(
        input=max(0, int(raw.get("promptTokenCount") or 0) - cached),
        output=int(raw.get("candidatesTokenCount") or 0) + int(thoughts or 0),
        cache_read=cached,
        reasoning=int(thoughts) if thoughts is not None else None,
    )
    total = raw.get("totalTokenCount")
    usage.total_tokens = int(total) if total is not None else usage.input + usage.output + usage.cache_read
    return usage


def google_generative_ai_api() -> GoogleGenerativeAiApi:
    return GoogleGenerativeAiApi()
