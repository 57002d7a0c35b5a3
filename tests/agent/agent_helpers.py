"""Helpers shared by the agent-layer tests (messages, configs, request inspection)."""

from __future__ import annotations

from typing import Any

from pi_app.agent import AgentLoopConfig
from pi_app.agent.agent import default_convert_to_llm
from pi_app.ai.types import AssistantMessage, Model, TextContent, UserMessage


def loop_config(model: Model, **overrides: Any) -> AgentLoopConfig:
    return AgentLoopConfig(model=model, convert_to_llm=default_convert_to_llm, **overrides)


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def assistant(text: str, model: Model | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        api=model.api if model else "fake-api",
        provider=model.provider if model else "fake",
        model=model.id if model else "fake-model",
        timestamp=2,
    )


def texts(message: Any) -> str:
    """All text of a message's content blocks, joined."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content)


def request_texts(call: Any) -> list[str]:
    """Per message of a recorded LLM request: its text."""
    return [texts(m) for m in call.context.messages]
