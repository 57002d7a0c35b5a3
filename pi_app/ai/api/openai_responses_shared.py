"""Request conversion and SSE parsing shared by the Responses-style APIs (spec 10 Appendix A.3).

Used by ``openai-responses`` and ``azure-openai-responses``. Our tool-call id for a Responses
function call is ``"<call_id>|<item id>"`` so that a replay can send both halves back; reasoning
items are kept verbatim (as JSON) in ``thinkingSignature`` and message ids/phases in
``textSignature`` (``{"v":1,"id":…,"phase":…}``).
"""

from __future__ import annotations

import json
from typing import Any

from pi_app.ai.api.shared import (
    ENDED_TEXT,
    IMAGE_PLACEHOLDER,
    MessageBuilder,
    SseParser,
    StreamFailure,
    accepts_images,
    clean,
    data_url,
    parse_json_data,
    result_images,
    result_texts,
    tool_call_arguments,
    user_blocks,
)
from pi_app.ai.api.transform_messages import is_same_model, transform_messages
from pi_app.ai.http.sse import SseEvent
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_app.ai.util.short_hash import short_hash

NORMALIZING_PROVIDERS = ("openai", "openai-codex", "opencode", "azure-openai-responses")
STATUS_STOP: dict[str, StopReason] = {
    "completed": "stop",
    "incomplete": "length",
    "in_progress": "stop",
    "queued": "stop",
}


def _sanitize_half(value: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in value)


def normalize_tool_call_id(id: str, model: Model, source: AssistantMessage) -> str:
    if model.provider not in NORMALIZING_PROVIDERS or "|" not in id:
        return id
    call_id, item_id = id.split("|", 1)
    call_id = _sanitize_half(call_id)[:64].rstrip("_")
    item_id = _sanitize_half(item_id)
    if not item_id.startswith("fc"):
        item_id = "fc_" + item_id
    item_id = item_id[:64].rstrip("_")
    return f"{call_id}|{item_id}"


def _text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """(message id, phase) from a ``textSignature`` (TextSignatureV1 JSON or a legacy plain id)."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            data = json.loads(signature)
        except ValueError:
            return None, None
        if isinstance(data, dict):
            return data.get("id"), data.get("phase")
        return None, None
    return signature, None


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": data_url(image)}


def _user_item(message: UserMessage, model: Model) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    for block in user_blocks(message):
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": clean(block.text)})
        elif isinstance(block, ImageContent) and accepts_images(model):
            parts.append(_image_part(block))
    return {"role": "user", "content": parts} if parts else None


def _assistant_items(message: AssistantMessage, index: int, model: Model) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    foreign_model = not is_same_model(message, model) and (
        message.provider == model.provider and message.api == model.api
    )
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.thinking_signature:
                try:
                    item = json.loads(block.thinking_signature)
                except ValueError:
                    continue  # an unparsable signature is skipped, not a crash (spec 10 §5.4)
                if isinstance(item, dict):
                    items.append(item)
        elif isinstance(block, TextContent):
            msg_id, phase = _text_signature(block.text_signature)
            msg_id = msg_id or f"msg_{index}"
            if len(msg_id) > 64:
                msg_id = f"msg_{short_hash(msg_id)}"
            item = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": clean(block.text), "annotations": []}],
                "status": "completed",
                "id": msg_id,
            }
            if phase:
                item["phase"] = phase
            items.append(item)
        elif isinstance(block, ToolCall):
            call_id, _, item_id = block.id.partition("|")
            call: dict[str, Any] = {"type": "function_call"}
            if item_id and not (foreign_model and item_id.startswith("fc_")):
                call["id"] = item_id
            call.update(
                {
                    "call_id": call_id,
                    "name": block.name,
                    "arguments": json.dumps(tool_call_arguments(block), ensure_ascii=False),
                }
            )
            items.append(call)
    return items


def _tool_output(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    text = result_texts(message)
    images = result_images(message)
    output: Any
    if images and accepts_images(model):
        output = [{"type": "input_text", "text": text}] if text else []
        output.extend(_image_part(img) for img in images)
    else:
        output = text or (IMAGE_PLACEHOLDER if images else "")
    return {
        "type": "function_call_output",
        "call_id": message.tool_call_id.split("|", 1)[0],
        "output": output,
    }


def convert_input(system_prompt: str | None, messages: list[Any], model: Model) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if system_prompt:
        items.append({"role": "developer" if model.reasoning else "system", "content": clean(system_prompt)})
    for index, message in enumerate(transform_messages(messages, model, normalize_tool_call_id)):
        if isinstance(message, UserMessage):
            item = _user_item(message, model)
            if item is not None:
                items.append(item)
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message, index, model))
        elif isinstance(message, ToolResultMessage):
            items.append(_tool_output(message, model))
    return items


def tool_definitions(tools: list[Any], strict: bool = True) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        entry = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict:
            entry["strict"] = False
        out.append(entry)
    return out


class ResponsesParser(SseParser):
    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.finished = False

    def feed(self, event: SseEvent) -> bool:
        data = parse_json_data(event)
        if not isinstance(data, dict):
            return False
        kind = data.get("type") or event.event
        b = self.b
        if kind in ("response.created", "response.in_progress", "response.queued"):
            response = data.get("response") or {}
            if response.get("id"):
                b.message.response_id = response["id"]
        elif kind == "response.output_item.added":
            self._item_added(data.get("item") or {})
        elif kind == "response.reasoning_summary_text.delta":
            if isinstance(b.open_block, ThinkingContent):
                b.append(data.get("delta", ""))
        elif kind == "response.reasoning_summary_part.done":
            if isinstance(b.open_block, ThinkingContent):
                b.append("\n\n")
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            if isinstance(b.open_block, TextContent):
                b.append(data.get("delta", ""))
        elif kind == "response.function_call_arguments.delta":
            b.append_arguments(data.get("delta", ""))
        elif kind == "response.function_call_arguments.done":
            if isinstance(data.get("arguments"), str):
                b.set_raw_arguments(data["arguments"])
        elif kind == "response.output_item.done":
            self._item_done(data.get("item") or {})
        elif kind in ("response.completed", "response.incomplete", "response.done"):
            self._complete(data.get("response") or {})
            return True
        elif kind == "response.failed":
            response = data.get("response") or {}
            error = response.get("error") or {}
            reason = (response.get("incomplete_details") or {}).get("reason")
            if error.get("message"):
                text = f"{error.get('code')}: {error['message']}" if error.get("code") else error["message"]
            elif reason:
                text = f"incomplete: {reason}"
            else:
                text = "Unknown error (no error details in response)"
            raise StreamFailure(text)
        elif kind == "error":
            raise StreamFailure(f"Error Code {data.get('code')}: {data.get('message')}")
        return False

    def _item_added(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "reasoning":
            self.b.open_thinking()
        elif kind == "message":
            self.b.open_text()
        elif kind == "function_call":
            raw = item.get("arguments") or ""
            self.b.open_tool_call(
                f"{item.get('call_id', '')}|{item.get('id', '')}", item.get("name", ""), raw=raw
            )

    def _item_done(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        block = self.b.open_block
        if kind == "reasoning" and isinstance(block, ThinkingContent):
            summary = [p.get("text", "") for p in item.get("summary") or [] if isinstance(p, dict)]
            block.thinking = "\n\n".join(summary)
            block.thinking_signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            self.b.close()
        elif kind == "message" and isinstance(block, TextContent):
            texts = []
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    texts.append(part.get("text", ""))
                elif part.get("type") == "refusal":
                    texts.append(part.get("refusal", ""))
            block.text = "".join(texts)
            signature: dict[str, Any] = {"v": 1, "id": item.get("id")}
            if item.get("phase"):
                signature["phase"] = item["phase"]
            block.text_signature = json.dumps(signature, separators=(",", ":"))
            self.b.close()
        elif kind == "function_call" and isinstance(block, ToolCall):
            if isinstance(item.get("arguments"), str) and item["arguments"]:
                self.b.set_raw_arguments(item["arguments"])
            self.b.close()

    def _complete(self, response: dict[str, Any]) -> None:
        self.finished = True
        if response.get("id"):
            self.b.message.response_id = response["id"]
        if response.get("service_tier"):
            self.b.service_tier = response["service_tier"]
        usage = response.get("usage")
        if isinstance(usage, dict):
            self.b.set_usage(responses_usage(usage))
        status = response.get("status")
        mapped = STATUS_STOP.get(status or "completed")
        if mapped is None:
            self.b.set_stop("error", f"Provider stopped with reason: {status}")
        else:
            self.b.set_stop(mapped)

    def end_of_stream(self) -> None:
        if not self.finished:
            raise StreamFailure(ENDED_TEXT)


def responses_usage(raw: dict[str, Any]) -> Usage:
    cached = int((raw.get("input_tokens_details") or {}).get("cached_tokens") or 0)
    usage = Usage(
        input=max(0, int(raw.get("input_tokens") or 0) - cached),
        output=int(raw.get("output_tokens") or 0),
        cache_read=cached,
    )
    reasoning = (raw.get("output_tokens_details") or {}).get("reasoning_tokens")
    if reasoning is not None:
        usage.reasoning = int(reasoning)
    total = raw.get("total_tokens")
    usage.total_tokens = int(total) if total is not None else usage.input + usage.output + usage.cache_read
    return usage
