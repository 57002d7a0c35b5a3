"""Ready-made agent-layer hooks that route through the *current* extension runner (spec 40 §2.9).

AgentSession installs these once; each looks the runner up at call time through ``get_runner``,
so ``/reload`` and session replacement swap runners without reinstalling hooks:

    agent = Agent(..., before_tool_call=before_tool_call_hook(lambda: session.runner),
                  after_tool_call=after_tool_call_hook(lambda: session.runner),
                  transform_context=transform_context_hook(lambda: session.runner))
    forwarder = AgentEventForwarder(lambda: session.runner)
    agent.subscribe(forwarder)          # agent events -> extension events (turn_index added)

A blocked or failed ``tool_call`` becomes the agent layer's block result (an error tool result, no
``tool_result`` event); ``tool_result`` patches become an ``AfterToolCallResult``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import now_ms
from pi_app.coding.extensions import types as ext

GetRunner = Callable[[], Any]


def before_tool_call_hook(get_runner: GetRunner) -> Callable[..., Any]:
    async def hook(
        ctx: BeforeToolCallContext, signal: AbortSignal | None = None
    ) -> BeforeToolCallResult | None:
        runner = get_runner()
        if runner is None or not runner.has_handlers("tool_call"):
            return None
        args = ctx.args if isinstance(ctx.args, dict) else dict(ctx.args or {})
        outcome = await runner.emit_tool_call(ctx.tool_call.id, ctx.tool_call.name, args)
        if outcome.block:
            return BeforeToolCallResult(block=True, reason=outcome.reason, terminate=outcome.terminate)
        return None

    return hook


def after_tool_call_hook(get_runner: GetRunner) -> Callable[..., Any]:
    async def hook(
        ctx: AfterToolCallContext, signal: AbortSignal | None = None
    ) -> AfterToolCallResult | None:
        runner = get_runner()
        if runner is None or not runner.has_handlers("tool_result"):
            return None
        before = ctx.result
        outcome = await runner.emit_tool_result(
            ctx.tool_call.id,
            ctx.tool_call.name,
            ctx.args if isinstance(ctx.args, dict) else dict(ctx.args or {}),
            list(before.content),
            before.details,
            ctx.is_error,
        )
        return AfterToolCallResult(
            content=outcome.content, details=outcome.details, is_error=outcome.is_error
        )

    return hook


def transform_context_hook(
    get_runner: GetRunner, base: Callable[..., Any] | None = None
) -> Callable[..., Any]:
    """``context`` handlers after an optional ``base`` transform (e.g. the session's own)."""

    async def hook(messages: list[Any], signal: AbortSignal | None = None) -> list[Any]:
        if base is not None:
            result = base(messages, signal)
            messages = await result if hasattr(result, "__await__") else result
        runner = get_runner()
        if runner is None:
            return messages
        return await runner.emit_context(messages)

    return hook


class AgentEventForwarder:
    """Agent events -> extension events. ``message_end`` returns the (possibly replaced) message."""

    def __init__(self, get_runner: GetRunner) -> None:
        self.get_runner = get_runner
        self.turn_index = 0

    async def __call__(self, event: Any, signal: AbortSignal | None = None) -> Any:
        runner = self.get_runner()
        if runner is None:
            return None
        kind = event.type
        if kind == "agent_start":
            self.turn_index = 0
            await runner.emit(ext.AgentStartEvent())
        elif kind == "turn_start":
            await runner.emit(ext.TurnStartEvent(self.turn_index, now_ms()))
        elif kind == "turn_end":
            await runner.emit(ext.TurnEndEvent(self.turn_index, event.message, list(event.tool_results)))
            self.turn_index += 1
        elif kind == "message_start":
            await runner.emit(ext.MessageStartEvent(event.message))
        elif kind == "message_update":
            await runner.emit(ext.MessageUpdateEvent(event.message, event.assistant_message_event))
        elif kind == "message_end":
            return await runner.emit_message_end(event.message)
        elif kind == "tool_execution_start":
            await runner.emit(ext.ToolExecutionStartEvent(event.tool_call_id, event.tool_name, event.args))
        elif kind == "tool_execution_update":
            await runner.emit(
                ext.ToolExecutionUpdateEvent(
                    event.tool_call_id, event.tool_name, event.args, event.partial_result
                )
            )
        elif kind == "tool_execution_end":
            await runner.emit(
                ext.ToolExecutionEndEvent(event.tool_call_id, event.tool_name, event.result, event.is_error)
            )
        elif kind == "agent_end":
            await runner.emit(ext.AgentEndEvent(list(event.messages)))
        return None
