"""The ``anthropic-messages`` wire adapter (spec 10 Appendix A.1).

``anthropic_messages_api()`` returns the ``ProviderStreams`` used by the ``anthropic``, MiniMax,
Kimi, Vercel gateway and Copilot (Claude) providers. ``AnthropicOptions`` carries the API's own
knobs for ``stream()``; ``stream_simple()`` maps a thinking level to budget or adaptive thinking
(R-AI-81).

Keys: a key containing ``sk-ant-oat`` is a Claude subscription token, sent as a bearer token with
the Claude Code identity (``claude_code_identity``); a caller-supplied ``Authorization`` header
(e.g. from ``ANTHROPIC_AUTH_TOKEN`` or Copilot) is used as is; anything else goes in ``x-api-key``.
"""

from __future__ import annotations

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
    cache_retention,
    clean,
    has_header,
    join_url,
    merge_headers,
    parse_json_data,
    result_images,
    result_texts,
    sanitize_id,
    tool_call_arguments,
    user_blocks,
)
from pi_app.ai.api.simple_options import base_max_tokens, build_base_options, requested_level, thinking_budget
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

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions


API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"
FINE_GRAINED_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"
OAUTH_BETAS = "claude-code-20250219,oauth-2025-04-20"
CLAUDE_CODE_VERSION = "2.1.2"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
CLAUDE_CODE_TOOLS = (
    "Read Write Edit Bash Grep Glob AskUserQuestion EnterPlanMode ExitPlanMode KillShell NotebookEdit "
    "Skill Task TaskOutput TodoWrite WebFetch WebSearch"
).split()
_CANONICAL_TOOLS = {name.lower(): name for name in CLAUDE_CODE_TOOLS}

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "refusal": "error",
    "sensitive": "error",
}


@dataclass
class AnthropicOptions(StreamOptions):
    thinking_enabled: bool | None = None
    thinking_budget_tokens: int | None = None
    effort: str | None = None  # "low" | "medium" | "high" | "max" (adaptive models)
    interleaved_thinking: bool = True
    tool_choice: Any = None  # "auto" | "any" | "none" | {"type": "tool", "name": ...}


def is_oauth_token(key: str | None) -> bool:
    return key is not None and "sk-ant-oat" in key


def is_adaptive(model: Model) -> bool:
    compat = model.compat or {}
    if "adaptiveThinking" in compat:
        return bool(compat["adaptiveThinking"])
    return any(tag in model.id for tag in ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6"))


def normalize_tool_call_id(id: str, model: Model, source: AssistantMessage) -> str:
    return sanitize_id(id, 64)


def claude_code_identity(headers: dict[str, str]) -> dict[str, str]:
    """Headers a subscription (OAuth) token must send; isolated so it can change in one place."""
    return {
        **headers,
        "user-agent": f"claude-cli/{CLAUDE_CODE_VERSION}",
        "x-app": "cli",
    }


def _cache_control(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    retention = cache_retention(options)
    if retention == "none":
        return None
    if retention == "long" and "api.anthropic.com" in model.base_url:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


def _image_block(image: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}


def _user_message(message: UserMessage, model: Model) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        text = clean(message.content)
        return {"role": "user", "content": text} if text.strip() else None
    blocks: list[dict[str, Any]] = []
    for block in user_blocks(message):
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": clean(block.text)})
        elif isinstance(block, ImageContent):
            if accepts_images(model):
                blocks.append(_image_block(block))
    return {"role": "user", "content": blocks} if blocks else None


def _assistant_message(message: AssistantMessage, oauth: bool) -> dict[str, Any] | None:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": clean(block.text)})
        elif isinstance(block, ThinkingContent):
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature or ""})
            elif not block.thinking.strip():
                continue
            elif not (block.thinking_signature or "").strip():
                blocks.append({"type": "text", "text": clean(block.thinking)})
            else:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": clean(block.thinking),
                        "signature": block.thinking_signature,
                    }
                )
        elif isinstance(block, ToolCall):
            name = _CANONICAL_TOOLS.get(block.name.lower(), block.name) if oauth else block.name
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": name, "input": tool_call_arguments(block)}
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def _tool_result(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    images = result_images(message) if accepts_images(model) else []
    text = result_texts(message)
    content: Any
    if images:
        content = []
        texts = [b for b in message.content if isinstance(b, TextContent)]
        if not texts:
            content.append({"type": "text", "text": IMAGE_PLACEHOLDER})
        for block in message.content:
            if isinstance(block, TextContent):
                content.append({"type": "text", "text": clean(block.text)})
            elif isinstance(block, ImageContent):
                content.append(_image_block(block))
    else:
        if not text and result_images(message):
            text = IMAGE_PLACEHOLDER
        content = text
    return {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": content,
        "is_error": message.is_error,
    }


def convert_messages(messages: list[Any], model: Model, oauth: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def flush_results() -> None:
        if results:
            out.append({"role": "user", "content": list(results)})
            results.clear()

    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, ToolResultMessage):
            results.append(_tool_result(message, model))
            continue
        flush_results()
        if isinstance(message, UserMessage):
            converted = _user_message(message, model)
        elif isinstance(message, AssistantMessage):
            converted = _assistant_message(message, oauth)
        else:
            converted = None
        if converted is not None:
            out.append(converted)
    flush_results()
    return out


def _mark_last_user_message(messages: list[dict[str, Any]], marker: dict[str, Any]) -> None:
    if not messages or messages[-1]["role"] != "user":
        return
    last = messages[-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    if last["content"] and last["content"][-1].get("type") in ("text", "image", "tool_result"):
        last["content"][-1]["cache_control"] = marker


def _tool_definition(tool: Any, oauth: bool) -> dict[str, Any]:
    schema = tool.parameters or {}
    name = _CANONICAL_TOOLS.get(tool.name.lower(), tool.name) if oauth else tool.name
    return {
        "name": name,
        "description": tool.description,
        "input_schema": {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        },
    }


class AnthropicMessagesApi(WireApi):
    api = API
    options_class = AnthropicOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        key = options.api_key or ""
        supplied = merge_headers(model.headers, options.headers)
        oauth = is_oauth_token(key) and not has_header(supplied, "authorization")
        copilot = model.provider == "github-copilot"
        thinking_on = bool(getattr(options, "thinking_enabled", False)) and model.reasoning
        adaptive = is_adaptive(model)

        betas: list[str] = []
        if not copilot:
            betas.append(FINE_GRAINED_BETA)
        if getattr(options, "interleaved_thinking", True) and not adaptive:
            betas.append(INTERLEAVED_BETA)
        beta = ",".join(betas)
        if oauth:
            beta = f"{OAUTH_BETAS},{beta}" if beta else OAUTH_BETAS

        headers: dict[str, str] = {
            "content-type": "application/json",
            "accept": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if beta:
            headers["anthropic-beta"] = beta
        if not has_header(supplied, "authorization"):
            if oauth or copilot:
                headers["authorization"] = f"Bearer {key}"
            elif key:
                headers["x-api-key"] = key
        if oauth:
            headers = claude_code_identity(headers)
        headers = merge_headers(headers, supplied)

        marker = _cache_control(model, options)
        body: dict[str, Any] = {
            "model": model.id,
            "max_tokens": options.max_tokens or max(1, model.max_tokens // 3),
            "stream": True,
        }
        system_texts = []
        if oauth:
            system_texts.append(CLAUDE_CODE_IDENTITY)
        if context.system_prompt:
            system_texts.append(clean(context.system_prompt))
        if system_texts:
            body["system"] = [
                {"type": "text", "text": text, **({"cache_control": marker} if marker else {})}
                for text in system_texts
            ]
        messages = convert_messages(list(context.messages), model, oauth)
        if marker:
            _mark_last_user_message(messages, marker)
        body["messages"] = messages
        if context.tools:
            body["tools"] = [_tool_definition(t, oauth) for t in context.tools]
        if thinking_on:
            if adaptive:
                body["thinking"] = {"type": "adaptive"}
                if effort := getattr(options, "effort", None):
                    body["output_config"] = {"effort": effort}
            else:
                budget = getattr(options, "thinking_budget_tokens", None) or 1024
                body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif options.temperature is not None:
            body["temperature"] = options.temperature
        metadata = options.metadata or {}
        if isinstance(metadata.get("user_id"), str):
            body["metadata"] = {"user_id": metadata["user_id"]}
        tool_choice = getattr(options, "tool_choice", None)
        if tool_choice:
            body["tool_choice"] = {"type": tool_choice} if isinstance(tool_choice, str) else tool_choice
        return WireRequest(url=join_url(model.base_url, "/v1/messages"), headers=headers, body=body)

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> SseParser:
        tool_names = {t.name.lower(): t.name for t in (context.tools or [])}
        oauth = is_oauth_token(options.api_key) and not has_header(options.headers, "authorization")
        return _Parser(builder, tool_names if oauth else None)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> AnthropicOptions:
        level = requested_level(model, options)
        if level is None:
            return build_base_options(model, options, AnthropicOptions, thinking_enabled=False)
        if is_adaptive(model):
            level_map = model.thinking_level_map or {}
            effort = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level)
            if isinstance(level_map.get(level), str):
                effort = level_map[level]
            elif level == "xhigh":
                effort = "max" if "opus" in model.id else "high"
            elif level == "max":
                effort = "max"
            return build_base_options(model, options, AnthropicOptions, thinking_enabled=True, effort=effort)
        budget = thinking_budget(level, options)
        max_tokens = min(base_max_tokens(model, options) + budget, model.max_tokens)
        if max_tokens <= budget:
            budget = max(0, max_tokens - 1024)
        return build_base_options(
            model,
            options,
            AnthropicOptions,
            thinking_enabled=True,
            thinking_budget_tokens=budget,
            max_tokens=max_tokens,
        )


class _Parser(SseParser):
    def __init__(self, builder: MessageBuilder, tool_names: dict[str, str] | None) -> None:
        self.b = builder
        self.tool_names = tool_names
        self.blocks: dict[int, int] = {}  # wire index -> content index
        self.started = False
        self.stopped = False

    def feed(self, event: SseEvent) -> bool:
        data = parse_json_data(event)
        if not isinstance(data, dict):
            return False
        kind = data.get("type") or event.event
        b = self.b
        if kind == "message_start":
            self.started = True
            message = data.get("message") or {}
            if message.get("id"):
                b.message.response_id = message["id"]
            if message.get("model") and message["model"] != b.model.id:
                b.message.response_model = message["model"]
            b.set_usage(_usage(message.get("usage") or {}, Usage()))
        elif kind == "content_block_start":
            self._block_start(data)
        elif kind == "content_block_delta":
            self._block_delta(data)
        elif kind == "content_block_stop":
            index = self.blocks.pop(data.get("index", -1), None)
            if index is not None and index == b.open_index:
                b.close()
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            raw = delta.get("stop_reason")
            if raw:
                mapped = STOP_REASONS.get(raw)
                if mapped is None:
                    b.set_stop("error", f"Unhandled stop reason: {raw}")
                elif mapped == "error":
                    b.set_stop("error", f"Provider stopped with reason: {raw}")
                else:
                    b.set_stop(mapped)
            if isinstance(data.get("usage"), dict):
                b.set_usage(_usage(data["usage"], b.message.usage))
        elif kind == "message_stop":
            self.stopped = True
            return True
        elif kind == "error":
            text = (
                format_error_object(data.get("error") or {}) or "Unknown error (no error details in stream)"
            )
            raise StreamFailure(text)
        return False

    def _block_start(self, data: dict[str, Any]) -> None:
        block = data.get("content_block") or {}
        wire = data.get("index", len(self.blocks))
        kind = block.get("type")
        if kind == "text":
            self.blocks[wire] = self.b.open_text()
            if block.get("text"):
                self.b.append(block["text"])
        elif kind == "thinking":
            self.blocks[wire] = self.b.open_thinking(signature="")
            if block.get("thinking"):
                self.b.append(block["thinking"])
        elif kind == "redacted_thinking":
            self.blocks[wire] = self.b.open_thinking(
                signature=block.get("data", ""), text="[Reasoning redacted]", redacted=True
            )
        elif kind == "tool_use":
            name = block.get("name", "")
            if self.tool_names is not None:
                name = self.tool_names.get(name.lower(), name)
            arguments = block.get("input") if isinstance(block.get("input"), dict) else {}
            self.blocks[wire] = self.b.open_tool_call(block.get("id", ""), name, arguments=arguments)

    def _block_delta(self, data: dict[str, Any]) -> None:
        index = self.blocks.get(data.get("index", -1))
        if index is None or index != self.b.open_index:
            return
        delta = data.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta":
            self.b.append(delta.get("text", ""))
        elif kind == "thinking_delta":
            self.b.append(delta.get("thinking", ""))
        elif kind == "input_json_delta":
            self.b.append_arguments(delta.get("partial_json", ""))
        elif kind == "signature_delta":
            block = self.b.open_block
            if isinstance(block, ThinkingContent):
                block.thinking_signature = (block.thinking_signature or "") + delta.get("signature", "")

    def end_of_stream(self) -> None:
        if not self.stopped:
            raise StreamFailure(ENDED_TEXT)


def _usage(raw: dict[str, Any], previous: Usage) -> Usage:
    """Overwrite only the fields present and non-null (proxies may omit input on message_delta)."""
    usage = Usage(
        input=previous.input,
        output=previous.output,
        cache_read=previous.cache_read,
        cache_write=previous.cache_write,
        cache_write_1h=previous.cache_write_1h,
    )
    if raw.get("input_tokens") is not None:
        usage.input = int(raw["input_tokens"])
    if raw.get("output_tokens") is not None:
        usage.output = int(raw["output_tokens"])
    if raw.get("cache_read_input_tokens") is not None:
        usage.cache_read = int(raw["cache_read_input_tokens"])
    if raw.get("cache_creation_input_tokens") is not None:
        usage.cache_write = int(raw["cache_creation_input_tokens"])
    creation = raw.get("cache_creation")
    if isinstance(creation, dict) and creation.get("ephemeral_1h_input_tokens") is not None:
        usage.cache_write_1h = int(creation["ephemeral_1h_input_tokens"])
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    return usage


def anthropic_messages_api() -> AnthropicMessagesApi:
    return AnthropicMessagesApi()
