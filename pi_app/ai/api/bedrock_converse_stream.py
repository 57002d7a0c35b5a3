"""The ``bedrock-converse-stream`` wire adapter: Amazon Bedrock's Converse stream API (issue 23).

POST ``<base>/model/<model id>/converse-stream`` with the Converse body (``messages``, ``system``,
``inferenceConfig``, ``toolConfig``, ``additionalModelRequestFields`` for thinking); the reply is
AWS event-stream framing (``pi_app.ai.http.eventstream``) carrying ``messageStart``,
``contentBlockStart/Delta/Stop``, ``messageStop`` and ``metadata`` (usage) events, or an
exception message.

Auth: a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``, or one saved with ``/login``) is sent as a
bearer token; otherwise the request is SigV4-signed with ``botocore`` over the exact body bytes,
credentials from the standard AWS chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``[/
``AWS_SESSION_TOKEN``], ``AWS_PROFILE`` and the shared config/credentials files, SSO cache,
container and web-identity roles). ``botocore`` is imported here only, on the first request; without
it the request fails with one line saying what to install. The region is ``AWS_REGION`` /
``AWS_DEFAULT_REGION``, else the profile's, else the one in the catalogue's base URL; a standard
``bedrock-runtime.<region>.amazonaws.com`` base URL follows the region, any other (a proxy, a VPC
endpoint, models.json) is used as given and signed for the region.

Thinking: Claude models get ``thinking`` (adaptive with ``output_config.effort`` where the
catalogue says ``forceAdaptiveThinking``, else a token budget); GPT models ``reasoning.effort``
(gpt-oss ``reasoning_effort``).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

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
    env_value,
    merge_headers,
    result_images,
    result_texts,
    sanitize_id,
    tool_call_arguments,
    user_blocks,
)
from pi_app.ai.api.simple_options import build_base_options, requested_level, thinking_budget
from pi_app.ai.api.transform_messages import transform_messages
from pi_app.ai.http.eventstream import EventStreamDecoder
from pi_app.ai.http.sse import SseEvent
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


API = "bedrock-converse-stream"
INSTALL_HINT = "Amazon Bedrock needs botocore: pip install 'pi-app[bedrock]'"
STANDARD_HOST = re.compile(r"^https://bedrock-runtime\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?/?$")
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}
IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
GPT_OSS_EFFORT = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}
GPT_EFFORT = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
    "max": "max",
}
CLAUDE_EFFORT = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
    "max": "max",
}


@dataclass
class BedrockOptions(StreamOptions):
    reasoning: str | None = None  # the clamped thinking level, or None
    thinking_budgets: dict[str, int] | None = None


# ---------------------------------------------------------------------------------------------
# Request body
# ---------------------------------------------------------------------------------------------


def normalize_tool_call_id(id: str, model: Model, source: AssistantMessage) -> str:
    return sanitize_id(id, 64)


def _image(image: ImageContent) -> dict[str, Any]:
    fmt = IMAGE_FORMATS.get(image.mime_type.lower(), "png")
    return {"image": {"format": fmt, "source": {"bytes": image.data}}}


def _user(message: UserMessage, model: Model) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in user_blocks(message):
        if isinstance(block, TextContent) and block.text.strip():
            out.append({"text": clean(block.text)})
        elif isinstance(block, ImageContent) and accepts_images(model):
            out.append(_image(block))
    return out


def _assistant(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    same = message.provider == model.provider and message.model == model.id
    out: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                out.append({"text": clean(block.text)})
        elif isinstance(block, ThinkingContent):
            if block.redacted and same and block.thinking_signature:
                out.append({"reasoningContent": {"redactedContent": block.thinking_signature}})
            elif same and block.thinking.strip():
                text: dict[str, Any] = {"text": clean(block.thinking)}
                if block.thinking_signature:
                    text["signature"] = block.thinking_signature
                out.append({"reasoningContent": {"reasoningText": text}})
            elif block.thinking.strip():
                out.append({"text": clean(block.thinking)})
        elif isinstance(block, ToolCall):
            out.append(
                {"toolUse": {"toolUseId": block.id, "name": block.name, "input": tool_call_arguments(block)}}
            )
    return out


def _tool_result(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    text = result_texts(message)
    images = result_images(message)
    if text or not images:
        content.append({"text": text or ("" if images else "(no output)")})
    if images and accepts_images(model):
        content.extend(_image(image) for image in images)
    elif images and not text:
        content = [{"text": IMAGE_PLACEHOLDER}]
    return {
        "toolResult": {
            "toolUseId": message.tool_call_id,
            "content": content,
            "status": "error" if message.is_error else "success",
        }
    }


def convert_messages(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, UserMessage):
            content = _user(message, model)
            role = "user"
        elif isinstance(message, AssistantMessage):
            content = _assistant(message, model)
            role = "assistant"
        elif isinstance(message, ToolResultMessage):
            content = [_tool_result(message, model)]
            role = "user"
        else:
            continue
        if not content:
            continue
        if out and out[-1]["role"] == role:  # Converse wants alternating roles
            out[-1]["content"].extend(content)
        else:
            out.append({"role": role, "content": content})
    return out


def _is_claude(model: Model) -> bool:
    return "anthropic." in model.id or "claude" in model.id.lower()


def additional_fields(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    level = getattr(options, "reasoning", None)
    if not level or not model.reasoning:
        return None
    lowered = model.id.lower()
    if _is_claude(model):
        if (model.compat or {}).get("forceAdaptiveThinking"):
            mapped = (model.thinking_level_map or {}).get(level)
            effort = mapped if isinstance(mapped, str) else CLAUDE_EFFORT.get(level, "high")
            return {
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": effort},
            }
        budget = thinking_budget(level, options)
        return {
            "thinking": {"type": "enabled", "budget_tokens": budget, "display": "summarized"},
            "anthropic_beta": ["interleaved-thinking-2025-05-14"],
        }
    if "gpt-oss" in lowered:
        return {"reasoning_effort": GPT_OSS_EFFORT.get(level, "medium")}
    if "gpt-" in lowered:
        mapped = (model.thinking_level_map or {}).get(level)
        return {
            "reasoning": {"effort": mapped if isinstance(mapped, str) else GPT_EFFORT.get(level, "medium")}
        }
    return None


def request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": convert_messages(list(context.messages), model)}
    if context.system_prompt:
        body["system"] = [{"text": clean(context.system_prompt)}]
    config: dict[str, Any] = {}
    if options.max_tokens:
        config["maxTokens"] = options.max_tokens
    if options.temperature is not None and not getattr(options, "reasoning", None):
        config["temperature"] = options.temperature
    if config:
        body["inferenceConfig"] = config
    if context.tools:
        body["toolConfig"] = {
            "tools": [
                {
                    "toolSpec": {
                        "name": t.name,
                        "description": t.description,
                        "inputSchema": {"json": t.parameters},
                    }
                }
                for t in context.tools
            ]
        }
    extra = additional_fields(model, options)
    if extra:
        body["additionalModelRequestFields"] = extra
    return body


# ---------------------------------------------------------------------------------------------
# Region, URL, credentials, signing
# ---------------------------------------------------------------------------------------------


def region_for(model: Model, options: StreamOptions, profile_region: str | None = None) -> str:
    for var in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = env_value(options, var)
        if value:
            return value
    if profile_region:
        return profile_region
    match = STANDARD_HOST.match(model.base_url or "")
    return match.group(1) if match else "us-east-1"


def base_url_for(model: Model, region: str) -> str:
    match = STANDARD_HOST.match(model.base_url or "")
    if match or not model.base_url:
        suffix = match.group(2) if match and match.group(2) else ""
        return f"https://bedrock-runtime.{region}.amazonaws.com{suffix}"
    return model.base_url.rstrip("/")


_SESSIONS: dict[str | None, Any] = {}


def _botocore() -> Any:
    try:
        import botocore.session
    except ImportError:
        raise StreamFailure(INSTALL_HINT) from None
    return botocore


def aws_credentials(options: StreamOptions) -> tuple[Any, str | None]:
    """(frozen credentials, the profile's region) from the AWS chain; blocking (files, SSO, IMDS)."""
    botocore = _botocore()
    from botocore.credentials import Credentials

    key, secret = env_value(options, "AWS_ACCESS_KEY_ID"), env_value(options, "AWS_SECRET_ACCESS_KEY")
    profile = env_value(options, "AWS_PROFILE")
    if key and secret and not profile:
        return Credentials(key, secret, env_value(options, "AWS_SESSION_TOKEN")), None
    session = _SESSIONS.get(profile)
    if session is None:
        session = _SESSIONS[profile] = botocore.session.Session(profile=profile)
    try:
        credentials = session.get_credentials()
    except Exception as exc:  # an unknown profile, an expired SSO session, ...
        raise StreamFailure(f"AWS credentials: {exc}") from None
    if credentials is None:
        raise StreamFailure(
            "No AWS credentials found: set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "or AWS_BEARER_TOKEN_BEDROCK, or use /login"
        )
    return credentials.get_frozen_credentials(), session.get_config_variable("region")


def sign_request(
    method: str, url: str, headers: dict[str, str], body: bytes, credentials: Any, region: str
) -> dict[str, str]:
    """``headers`` plus SigV4's ``X-Amz-Date``, ``X-Amz-Security-Token`` and ``Authorization``."""
    _botocore()
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest

    request = AWSRequest(method=method, url=url, data=body, headers=dict(headers))
    SigV4Auth(credentials, "bedrock", region).add_auth(request)
    return dict(request.headers.items())


# ---------------------------------------------------------------------------------------------
# The stream
# ---------------------------------------------------------------------------------------------


class _Parser(SseParser):
    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.blocks: dict[int, int] = {}
        self.stopped = False
        self.finished = False

    def _ensure(self, wire: int, kind: str) -> None:
        index = self.blocks.get(wire)
        block = self.b.open_block if index is not None and index == self.b.open_index else None
        if kind == "text" and not isinstance(block, TextContent):
            self.blocks[wire] = self.b.open_text()
        elif kind == "thinking" and not isinstance(block, ThinkingContent):
            self.blocks[wire] = self.b.open_thinking(signature="")

    def feed(self, event: SseEvent) -> bool:
        if event.event.startswith("exception:"):
            kind = event.event.partition(":")[2]
            try:
                message = json.loads(event.data).get("message") or event.data
            except (ValueError, AttributeError):
                message = event.data
            raise StreamFailure(f"{kind}: {message}")
        try:
            data = json.loads(event.data) if event.data else {}
        except ValueError:
            raise StreamFailure(f"Invalid JSON in stream: {event.data[:200]}") from None
        b = self.b
        kind = event.event
        if kind == "contentBlockStart":
            start = (data.get("start") or {}).get("toolUse")
            if isinstance(start, dict):
                wire = int(data.get("contentBlockIndex", len(self.blocks)))
                self.blocks[wire] = b.open_tool_call(start.get("toolUseId", ""), start.get("name", ""))
        elif kind == "contentBlockDelta":
            wire = int(data.get("contentBlockIndex", 0))
            delta = data.get("delta") or {}
            if "text" in delta:
                self._ensure(wire, "text")
                b.append(delta["text"])
            elif "toolUse" in delta:
                if self.blocks.get(wire) == b.open_index:
                    b.append_arguments((delta["toolUse"] or {}).get("input", ""))
            elif "reasoningContent" in delta:
                reasoning = delta["reasoningContent"] or {}
                self._ensure(wire, "thinking")
                block = b.open_block
                if reasoning.get("text"):
                    b.append(reasoning["text"])
                if reasoning.get("signature") and isinstance(block, ThinkingContent):
                    block.thinking_signature = (block.thinking_signature or "") + reasoning["signature"]
                if reasoning.get("redactedContent") and isinstance(block, ThinkingContent):
                    block.redacted = True
                    block.thinking_signature = reasoning["redactedContent"]
        elif kind == "contentBlockStop":
            index = self.blocks.pop(int(data.get("contentBlockIndex", -1)), None)
            if index is not None and index == b.open_index:
                b.close()
        elif kind == "messageStop":
            self.stopped = True
            raw = data.get("stopReason")
            mapped = STOP_REASONS.get(raw or "")
            if mapped is None:
                b.set_stop("error", f"Provider stopped with: {raw}" if raw else None)
            else:
                b.set_stop(mapped)
        elif kind == "metadata":
            raw_usage = data.get("usage") or {}
            usage = Usage(
                input=int(raw_usage.get("inputTokens") or 0),
                output=int(raw_usage.get("outputTokens") or 0),
                cache_read=int(raw_usage.get("cacheReadInputTokens") or 0),
                cache_write=int(raw_usage.get("cacheWriteInputTokens") or 0),
            )
            usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
            b.set_usage(usage)
            self.finished = True
            return self.stopped
        return False

    def end_of_stream(self) -> None:
        if not self.stopped:
            raise StreamFailure(ENDED_TEXT)


class BedrockConverseStreamApi(WireApi):
    api = API
    options_class = BedrockOptions

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        headers = merge_headers(
            {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"},
            model.headers,
            options.headers,
        )
        return WireRequest(url="", headers=headers, body=request_body(model, context, options))

    async def authorize(
        self, request: WireRequest, body: bytes, model: Model, options: StreamOptions
    ) -> WireRequest:
        path = f"/model/{quote(model.id, safe='')}/converse-stream"
        if options.api_key:  # a Bedrock API key: bearer, no signing, no botocore
            region = region_for(model, options)
            headers = {**request.headers, "Authorization": f"Bearer {options.api_key}"}
            return replace(request, url=base_url_for(model, region) + path, headers=headers)
        credentials, profile_region = await asyncio.to_thread(aws_credentials, options)
        region = region_for(model, options, profile_region)
        url = base_url_for(model, region) + path
        headers = await asyncio.to_thread(
            sign_request, "POST", url, request.headers, body, credentials, region
        )
        return replace(request, url=url, headers=headers)

    def create_decoder(self) -> EventStreamDecoder:
        return EventStreamDecoder()

    def create_parser(
        self, builder: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> _Parser:
        return _Parser(builder)

    def simple_options(self, model: Model, options: SimpleStreamOptions | None) -> BedrockOptions:
        budgets = getattr(options, "thinking_budgets", None) if options is not None else None
        return build_base_options(
            model,
            options,
            BedrockOptions,
            reasoning=requested_level(model, options),
            thinking_budgets=budgets,
        )


def bedrock_converse_stream_api() -> BedrockConverseStreamApi:
    return BedrockConverseStreamApi()
