"""Small builders shared by the session tests."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PI_REFERENCE = FIXTURES / "pi-reference"


def user(text: str, ts: int = 1_700_000_000_000) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=ts)


def assistant(
    text: str = "ok",
    *,
    tool_calls: list[ToolCall] | None = None,
    stop_reason: str = "stop",
    total_tokens: int = 0,
    ts: int = 1_700_000_000_001,
    error: str | None = None,
) -> AssistantMessage:
    content: list = [TextContent(text=text)] if text else []
    content += tool_calls or []
    return AssistantMessage(
        content=content,
        api="openai-completions",
        provider="fake",
        model="fake-model",
        usage=Usage(input=total_tokens, total_tokens=total_tokens),
        stop_reason=stop_reason,  # type: ignore[arg-type]
        timestamp=ts,
        error_message=error,
    )


def tool_result(
    call_id: str, text: str, name: str = "bash", ts: int = 1_700_000_000_002
) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)], is_error=False, timestamp=ts
    )
