"""The tool execution pipeline: prepare -> execute -> finalize (spec 20 §3.5).

``execute_tool_calls`` runs the tool calls of one assistant message and returns a ``ToolBatch``
(the tool-result messages in source order, and whether the batch asks the loop to stop).

Phases of one call:

- **prepare**: look the tool up, run its ``prepare_arguments`` shim, validate (with type coercion)
  and ask ``before_tool_call``, which may block the call or mutate the validated arguments.
  Anything that fails here is an *immediate outcome*: an error result, no ``execute``.
- **execute**: ``await tool.execute(id, args, signal, on_update)``; ``on_update`` becomes
  ``tool_execution_update`` events, delivered in call order and all before the call's end.
- **finalize**: ``after_tool_call`` may override content, details, the error flag or terminate.

Strategies (R-AG-TOOL-02): sequential when the config says so or any called tool has
``execution_mode == "sequential"``; otherwise parallel, where preflight is serial in source
order, prepared calls run concurrently, ``tool_execution_end`` arrives in completion order and
the result messages follow in source order (decision D-6).

Tools and hooks raise to report failure; every such exception becomes an error tool result the
model sees, and the batch continues. Emit failures (listener errors) and ``CancelledError`` are
not tool failures: they propagate, after every started job has settled.

A tool that ignores an abort gets ``tool_abort_grace_s`` seconds, then its task is cancelled and
the call is finalized as ``Operation aborted`` without the after-hook (decision D-20).
"""

from __future__ import annotations

import asyncio
import copy
import time
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
BLOCKED_TEXT = "Tool execution was blocked"
LENGTH_TRUNCATED_TEXT = (
    "Tool call not executed: the response hit the output token limit, so its arguments may be "
    "incomplete. Re-issue the tool call with complete arguments."
)


async def maybe_await(value: Any) -> Any:
    """Await ``value`` if it is awaitable (callbacks may be sync or async)."""
    if hasattr(value, "__await__"):
        return await value
    return value


def error_result(text: str, terminate: bool = False) -> AgentToolResult:
    """The error result the pipeline builds itself (R-AG-TOOL-32: ``details={}``)."""
    return AgentToolResult(content=[TextContent(text=text)], details={}, terminate=terminate)


def exception_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


@dataclass
class ToolBatch:
    """The results of one reply's tool calls, and whether a tool ended the run."""

    messages: list[ToolResultMessage] = field(default_factory=list)
    terminate: bool = False


@dataclass
class _Outcome:
    """A finalized call."""

    call: ToolCall
    result: AgentToolResult
    is_error: bool
    duration_ms: int | None = None  # execute() time on a monotonic clock; None when it did not run


@dataclass
class _Prepared:
    """A call that passed preflight and waits for ``execute``."""

    call: ToolCall
    tool: Any
    args: Any


def _as_tool_result(value: Any) -> AgentToolResult:
    """Accept any object (or dict) with the ``AgentToolResult`` fields; ``None`` is an empty result."""
    if isinstance(value, AgentToolResult):
        return value
    if value is None:
        return AgentToolResult()
    get = value.get if isinstance(value, dict) else lambda key, default=None: getattr(value, key, default)
    return AgentToolResult(
        content=list(get("content", None) or []),
        details=get("details", None),
        terminate=bool(get("terminate", False)),
        added_tool_names=get("added_tool_names", None),
        structured_content=get("structured_content", None)
        if not isinstance(value, dict)
        else value.get("structuredContent", value.get("structured_content")),
        is_error=bool(get("is_error", False) or (isinstance(value, dict) and value.get("isError"))),
    )


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


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
        duration_ms=outcome.duration_ms,
    )


def find_tool(context: AgentContext, name: str) -> Any | None:
    """First tool of the context with exactly this name (R-AG-TOOL-20)."""
    for tool in context.tools or ():
        if getattr(tool, "name", None) == name:
            return tool
    return None


# ---------------------------------------------------------------------------------------------
# prepare
# ---------------------------------------------------------------------------------------------


async def _prepare(
    call: ToolCall,
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
) -> _Prepared | _Outcome:
    tool = find_tool(context, call.name)
    if tool is None:
        return _Outcome(call, error_result(f"Tool {call.name} not found"), True)
    try:
        raw = call.arguments
        prepare_arguments = getattr(tool, "prepare_arguments", None)
        if prepare_arguments is not None:
            # The shim gets its own copy: events and hooks keep seeing the raw block (R-AG-TOOL-21).
            raw = await maybe_await(prepare_arguments(copy.deepcopy(raw)))
        args = validate_tool_arguments(tool, raw)
        if config.before_tool_call is not None:
            decision = await maybe_await(
                config.before_tool_call(BeforeToolCallContext(assistant, call, args, context), signal)
            )
            if decision is not None and getattr(decision, "block", False):
                reason = getattr(decision, "reason", None) or BLOCKED_TEXT
                return _Outcome(call, error_result(reason, bool(getattr(decision, "terminate", False))), True)
    except Exception as exc:
        return _Outcome(call, error_result(exception_text(exc)), True)
    if signal is not None and signal.aborted:
        return _Outcome(call, error_result(ABORTED_TEXT), True)
    return _Prepared(call, tool, args)


# ---------------------------------------------------------------------------------------------
# execute + finalize
# ---------------------------------------------------------------------------------------------


class _UpdatePump:
    """Turns ``on_update`` calls of one tool call into ``tool_execution_update`` events.

    Events are emitted one after another in call order by a single pump task, so a slow emit never
    reorders them; ``close()`` stops accepting updates and waits until every accepted one was
    emitted, re-raising the first emit failure. Calls from another thread are marshalled onto the
    loop (R-AG-TOOL-31).
    """

    def __init__(self, call: ToolCall, emit: Emit) -> None:
        self._call = call
        self._emit = emit
        self._loop = asyncio.get_running_loop()
        self._queue: list[AgentToolResult] = []
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._error: BaseException | None = None

    def on_update(self, partial: AgentToolResult) -> None:
        if self._closed:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._accept(partial)
        else:
            self._loop.call_soon_threadsafe(self._accept, partial)

    def _accept(self, partial: AgentToolResult) -> None:
        if self._closed:
            return
        self._queue.append(partial)
        if self._task is None:
            self._task = self._loop.create_task(self._pump())

    async def _pump(self) -> None:
        call = self._call
        while self._queue:
            partial = self._queue.pop(0)
            if self._error is not None:
                continue
            try:
                await self._emit(ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial))
            except Exception as exc:  # reported by close(), once the tool has settled
                self._error = exc
        self._task = None

    async def close(self) -> None:
        self._closed = True
        while self._task is not None:
            await asyncio.shield(self._task)
        if self._error is not None:
            raise self._error


class _GraceExpired(Exception):
    pass


async def _run_with_grace(awaitable: Any, signal: AbortSignal | None, grace_s: float | None) -> Any:
    """Await the tool; once the signal fires give it ``grace_s`` seconds, then cancel it (D-20)."""
    if not hasattr(awaitable, "__await__"):
        return awaitable  # a synchronous ``execute`` already returned its result
    if signal is None or grace_s is None:
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    loop = asyncio.get_running_loop()
    expired = False
    timer: asyncio.TimerHandle | None = None

    def expire() -> None:
        nonlocal expired
        if not task.done():
            expired = True
            task.cancel()

    def on_abort() -> None:
        nonlocal timer
        timer = loop.call_later(grace_s, expire)

    remove = signal.add_listener(on_abort)
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if expired and task.cancelled() and not (current is not None and current.cancelling()):
            raise _GraceExpired() from None
        task.cancel()
        raise
    finally:
        remove()
        if timer is not None:
            timer.cancel()


async def _execute_and_finalize(
    prepared: _Prepared,
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> _Outcome:
    call, tool, args = prepared.call, prepared.tool, prepared.args
    pump = _UpdatePump(call, emit)
    is_error = False
    started = time.monotonic()
    try:
        result = _as_tool_result(
            await _run_with_grace(
                tool.execute(call.id, args, signal, pump.on_update), signal, config.tool_abort_grace_s
            )
        )
    except _GraceExpired:
        await pump.close()
        return _Outcome(call, error_result(ABORTED_TEXT), True, _ms_since(started))
    except Exception as exc:
        result = error_result(exception_text(exc))
        is_error = True
    except asyncio.CancelledError:
        pump._closed = True
        raise
    else:
        is_error = result.is_error  # a tool may report a failure by returning it (pi 1.6.0)
    duration = _ms_since(started)
    await pump.close()

    if config.after_tool_call is None:
        return _Outcome(call, result, is_error, duration)
    try:
        override = await maybe_await(
            config.after_tool_call(
                AfterToolCallContext(assistant, call, args, result, is_error, context), signal
            )
        )
    except Exception as exc:
        return _Outcome(call, error_result(exception_text(exc)), True, duration)
    if override is None:
        return _Outcome(call, result, is_error, duration)
    content = getattr(override, "content", None)
    details = getattr(override, "details", None)
    terminate = getattr(override, "terminate", None)
    flag = getattr(override, "is_error", None)
    structured = getattr(override, "structured_content", None)
    result = AgentToolResult(
        content=content if content is not None else result.content,
        details=details if details is not None else result.details,
        terminate=terminate if terminate is not None else result.terminate,
        added_tool_names=result.added_tool_names,
        # new content without new structured content drops the old one: it may no longer match
        structured_content=structured
        if structured is not None or content is not None
        else result.structured_content,
    )
    return _Outcome(call, result, flag if flag is not None else is_error, duration)


# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------


async def _emit_end(outcome: _Outcome, emit: Emit) -> None:
    call = outcome.call
    await emit(
        ToolExecutionEndEvent(call.id, call.name, outcome.result, outcome.is_error, outcome.duration_ms)
    )


async def _emit_result_message(outcome: _Outcome, emit: Emit) -> ToolResultMessage:
    message = _result_message(outcome)
    await emit(MessageStartEvent(message))
    await emit(MessageEndEvent(message))
    return message


def _batch_terminates(outcomes: list[_Outcome]) -> bool:
    return bool(outcomes) and all(o.result.terminate for o in outcomes)


def _aborted(signal: AbortSignal | None) -> bool:
    return signal is not None and signal.aborted


async def execute_tool_calls(
    assistant: AssistantMessage,
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    """Run the tool calls of ``assistant`` (its ``toolCall`` blocks, in source order)."""
    calls = [b for b in assistant.content if isinstance(b, ToolCall)]
    if not calls:
        return ToolBatch()
    if assistant.stop_reason == "length":
        return await _refuse_truncated(calls, emit)
    sequential = config.tool_execution == "sequential" or any(
        getattr(find_tool(context, c.name), "execution_mode", None) == "sequential" for c in calls
    )
    if sequential:
        return await _run_sequential(calls, assistant, context, config, signal, emit)
    return await _run_parallel(calls, assistant, context, config, signal, emit)


async def _refuse_truncated(calls: list[ToolCall], emit: Emit) -> ToolBatch:
    """R-AG-LOOP-25: calls from a length-truncated reply are never executed; the batch continues."""
    batch = ToolBatch()
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        outcome = _Outcome(call, error_result(LENGTH_TRUNCATED_TEXT), True)
        await _emit_end(outcome, emit)
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
        await _emit_end(outcome, emit)
        batch.messages.append(await _emit_result_message(outcome, emit))
        if _aborted(signal):
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
            await _emit_end(prepared, emit)
        slots.append(prepared)
        if _aborted(signal):
            break

    async def run_job(index: int, job: _Prepared) -> None:
        if _aborted(signal):  # R-AG-TOOL-13: prepared but not started
            outcome = _Outcome(job.call, error_result(ABORTED_TEXT), True)
        else:
            outcome = await _execute_and_finalize(job, assistant, context, config, signal, emit)
        slots[index] = outcome
        await _emit_end(outcome, emit)

    jobs = [run_job(i, s) for i, s in enumerate(slots) if isinstance(s, _Prepared)]
    if len(jobs) == 1:
        await jobs[0]
    elif jobs:
        # Wait for every job even when one fails, then re-raise the first failure (R-AG-LOOP-31).
        for failure in await asyncio.gather(*jobs, return_exceptions=True):
            if isinstance(failure, BaseException):
                raise failure
    outcomes = [s for s in slots if isinstance(s, _Outcome)]
    batch = ToolBatch(terminate=_batch_terminates(outcomes))
    for outcome in outcomes:
        batch.messages.append(await _emit_result_message(outcome, emit))
    return batch
