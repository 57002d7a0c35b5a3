"""The tool execution pipeline: prepare -> execute -> finalize (spec 20 §3.5).

``execute_tool_calls`` runs the tool calls of one assistant message, sequentially or in parallel,
emitting ``tool_execution_*`` events and the tool-result messages, and returns a ``ToolBatch``.

Tools raise to report failure; every exception from a tool, ``prepare_arguments``, validation or a
hook becomes an error tool result the model sees, and the batch continues. Parallel batches end
each call in completion order but emit result messages in source order (D-6).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pi_app.agent.events import (
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_app.agent.types import (
    AfterToolCallContext,
    AgentContext,
    AgentLoopConfig,
    AgentToolResult,
    BeforeToolCallContext,
)
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, now_ms
from pi_app.ai.util.validation import validate_tool_arguments

Emit = Callable[[Any], Awaitable[None]]

ABORTED_TEXT = "Operation aborted"
LENGTH_TRUNCATED_TEXT = (
    "Tool call not executed: the response hit the output token limit, so its arguments may be "
    "incomplete. Re-issue the tool call with complete arguments."
)


async def maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def error_result(text: str, terminate: bool = False) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details={}, terminate=terminate)


@dataclass
class ToolBatch:
    messages: list[ToolResultMessage] = field(default_factory=list)
    terminate: bool = False


@dataclass
class _Outcome:
    """A finalized call: its result and error flag."""

    call: ToolCall
    result: AgentToolResult
    is_error: bool


@dataclass
class _Prepared:
    call: ToolCall
    tool: Any
    args: Any


def _result_message(outcome: _Outcome) -> ToolResultMessage:
    result = outcome.result
    return ToolResultMessage(
        tool_call_id=outcome.call.id,
        tool_name=outcome.call.name,
        content=list(result.content or []),
        details=result.details,
        is_error=outcome.is_error,
        timestamp=now_ms(),
        added_tool_names=list(result.added_tool_names) if result.added_tool_names else None,
    )


def _find_tool(context: AgentContext, name: str) -> Any | None:
    for tool in context.tools or []:
        if getattr(tool, "name", None) == name:
            return tool
    return None


async def _prepare(
    call: ToolCall,
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
) -> _Prepared | _Outcome:
    tool = _find_tool(context, call.name)
    if tool is None:
        return _Outcome(call, error_result(f"Tool {call.name} not found"), True)
    try:
        raw = call.arguments
        prepare_arguments = getattr(tool, "prepare_arguments", None)
        if prepare_arguments is not None:
            raw = await maybe_await(prepare_arguments(raw))
        args = validate_tool_arguments(tool, raw)
        if config.before_tool_call is not None:
            decision = await maybe_await(
                config.before_tool_call(BeforeToolCallContext(assistant, call, args, context), signal)
            )
            if decision is not None and decision.block:
                return _Outcome(
                    call,
                    error_result(decision.reason or "Tool execution was blocked", decision.terminate),
                    True,
                )
    except Exception as exc:
        return _Outcome(call, error_result(str(exc) or type(exc).__name__), True)
    if signal is not None and signal.aborted:
        return _Outcome(call, error_result(ABORTED_TEXT), True)
    return _Prepared(call, tool, args)


async def _execute_and_finalize(
    prepared: _Prepared,
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> _Outcome:
    call, tool, args = prepared.call, prepared.tool, prepared.args
    loop = asyncio.get_running_loop()
    settled = False
    pending_updates: list[asyncio.Future[Any]] = []

    def on_update(partial: AgentToolResult) -> None:
        if settled:
            return
        event = ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial)

        def schedule() -> None:
            if not settled:
                pending_updates.append(asyncio.ensure_future(emit(event)))

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            schedule()
        else:  # called from a worker thread
            loop.call_soon_threadsafe(schedule)

    is_error = False
    try:
        result = await _run_with_grace(
            tool.execute(call.id, args, signal, on_update), signal, config.tool_abort_grace_s
        )
        if result is None:
            result = AgentToolResult()
        elif not isinstance(result, AgentToolResult):
            result = AgentToolResult(
                content=list(getattr(result, "content", None) or []),
                details=getattr(result, "details", None),
                terminate=bool(getattr(result, "terminate", False)),
                added_tool_names=getattr(result, "added_tool_names", None),
            )
    except _GraceExpired:
        settled = True
        await _drain(pending_updates)
        return _Outcome(call, error_result(ABORTED_TEXT), True)
    except Exception as exc:
        result = error_result(str(exc) or type(exc).__name__)
        is_error = True
    settled = True
    await _drain(pending_updates)

    if config.after_tool_call is not None:
        try:
            override = await maybe_await(
                config.after_tool_call(
                    AfterToolCallContext(assistant, call, args, result, is_error, context), signal
                )
            )
            if override is not None:
                result = AgentToolResult(
                    content=override.content if override.content is not None else result.content,
                    details=override.details if override.details is not None else result.details,
                    terminate=override.terminate if override.terminate is not None else result.terminate,
                    added_tool_names=result.added_tool_names,
                )
                if override.is_error is not None:
                    is_error = override.is_error
        except Exception as exc:
            result = error_result(str(exc) or type(exc).__name__)
            is_error = True
    return _Outcome(call, result, is_error)


async def _drain(pending: list[asyncio.Future[Any]]) -> None:
    while pending:
        batch = list(pending)
        pending.clear()
        await asyncio.gather(*batch, return_exceptions=True)


class _GraceExpired(Exception):
    pass


async def _run_with_grace(coro: Awaitable[Any], signal: AbortSignal | None, grace_s: float | None) -> Any:
    """Await the tool; once the signal fires, give it ``grace_s`` seconds, then cancel (D-20)."""
    task = asyncio.ensure_future(coro)
    if signal is None or grace_s is None:
        return await task
    abort_wait = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        finished, _ = await asyncio.wait({task}, timeout=grace_s)
        if task in finished:
            return task.result()
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        raise _GraceExpired()
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        if not abort_wait.done():
            abort_wait.cancel()


async def _emit_result_message(outcome: _Outcome, emit: Emit) -> ToolResultMessage:
    message = _result_message(outcome)
    await emit(MessageStartEvent(message))
    await emit(MessageEndEvent(message))
    return message


def _batch_terminates(outcomes: list[_Outcome]) -> bool:
    return bool(outcomes) and all(o.result.terminate for o in outcomes)


async def execute_tool_calls(
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    calls = [b for b in assistant.content if isinstance(b, ToolCall)]
    if not calls:
        return ToolBatch()
    if assistant.stop_reason == "length":
        return await _refuse_truncated(calls, emit)
    sequential = config.tool_execution == "sequential" or any(
        getattr(_find_tool(context, c.name), "execution_mode", None) == "sequential" for c in calls
    )
    if sequential:
        return await _run_sequential(calls, assistant, context, config, signal, emit)
    return await _run_parallel(calls, assistant, context, config, signal, emit)


async def _refuse_truncated(calls: list[ToolCall], emit: Emit) -> ToolBatch:
    batch = ToolBatch()
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        outcome = _Outcome(call, error_result(LENGTH_TRUNCATED_TEXT), True)
        await emit(ToolExecutionEndEvent(call.id, call.name, outcome.result, True))
        batch.messages.append(await _emit_result_message(outcome, emit))
    return batch


async def _run_sequential(
    calls: list[ToolCall],
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    batch = ToolBatch()
    outcomes: list[_Outcome] = []
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        prepared = await _prepare(call, assistant, context, config, signal)
        if isinstance(prepared, _Prepared):
            outcome = await _execute_and_finalize(prepared, assistant, context, config, signal, emit)
        else:
            outcome = prepared
        outcomes.append(outcome)
        await emit(ToolExecutionEndEvent(call.id, call.name, outcome.result, outcome.is_error))
        batch.messages.append(await _emit_result_message(outcome, emit))
        if signal is not None and signal.aborted:
            break
    batch.terminate = _batch_terminates(outcomes)
    return batch


async def _run_parallel(
    calls: list[ToolCall],
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    slots: list[_Outcome | _Prepared] = []
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        prepared = await _prepare(call, assistant, context, config, signal)
        if isinstance(prepared, _Outcome):
            await emit(ToolExecutionEndEvent(call.id, call.name, prepared.result, prepared.is_error))
        slots.append(prepared)
        if signal is not None and signal.aborted:
            break

    async def run_job(index: int, job: _Prepared) -> None:
        if signal is not None and signal.aborted:
            outcome = _Outcome(job.call, error_result(ABORTED_TEXT), True)
        else:
            outcome = await _execute_and_finalize(job, assistant, context, config, signal, emit)
        slots[index] = outcome
        await emit(ToolExecutionEndEvent(job.call.id, job.call.name, outcome.result, outcome.is_error))

    jobs = [run_job(i, s) for i, s in enumerate(slots) if isinstance(s, _Prepared)]
    if jobs:
        results = await asyncio.gather(*jobs, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                raise r
    batch = ToolBatch()
    outcomes = [s for s in slots if isinstance(s, _Outcome)]
    for outcome in outcomes:
        batch.messages.append(await _emit_result_message(outcome, emit))
    batch.terminate = _batch_terminates(outcomes)
    return batch
