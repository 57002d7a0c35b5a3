"""The stateless agent loop (spec 20 §3.1–3.4).

``run_agent_loop`` streams one assistant response, runs the tools it asks for, injects steering
messages at turn boundaries and follow-up messages when the run would end, and repeats until the
model stops. It reports everything through ``await emit(event)`` and returns the run's new
messages. It keeps no state between runs and never touches the caller's context object: it works
on a shallow copy whose message list is its own (R-AG-LOOP-03). ``agent_loop`` is the
observational variant: it starts the run as a task and hands back an async-iterable event stream.

The double loop (R-AG-LOOP-10)::

    poll steering once                                   (messages queued while starting)
    outer: inner: while tool calls are expected or messages are pending:
                      turn_start (the first one is emitted by the entry point)
                      inject pending messages           (message_start + message_end each)
                      stream one assistant response     (transform_context -> convert_to_llm -> stream_fn)
                      error / aborted -> turn_end([]), agent_end, return
                      run the tool batch                (tools.py)
                      turn_end; prepare_next_turn; should_stop_after_turn -> agent_end, return
                      poll steering
           poll follow-ups; none -> agent_end, return

Event grammar (spec 20 §2.9; ``pi_app.agent.testing.check_event_grammar`` checks it)::

    Run       := agent_start FirstTurn Turn* agent_end
    FirstTurn := turn_start Msg(prompt)* Msg(injected)* TurnBody    (a continue run has no prompts)
    Turn      := turn_start Msg(injected)* TurnBody
    TurnBody  := Assistant turn_end | Assistant ToolBatch turn_end
    Assistant := message_start message_update* message_end
    Msg(x)    := message_start(x) message_end(x)
    ToolBatch := SeqCall+ | Preflight+ Running Msg(toolResult)+
    SeqCall   := tool_execution_start tool_execution_update* tool_execution_end Msg(toolResult)
    Preflight := tool_execution_start [tool_execution_end]          (end only for immediate outcomes)
    Running   := (tool_execution_update | tool_execution_end)*      (completion order)

Invariants: one ``agent_start`` first and one ``agent_end`` last (I1); turns alternate and hold one
assistant message, the object of its ``message_end`` and of ``turn_end.message`` (I2); every message
has one start and one end, updates only inside an assistant message (I3); every tool call has one
start, one later end and then one result message before ``turn_end`` (I4); result messages come in
source order and equal ``turn_end.tool_results`` (I5); ``agent_end.messages`` are the messages
ended during the run, in order (I6).

LLM failures never raise: they arrive as an assistant message with ``stop_reason`` ``error`` or
``aborted`` and end the run after that turn. A stream function or stream that raises, or ends
without a terminal event, is turned into such a message here (R-AG-LOOP-23). Exceptions from the
other must-not-raise callbacks and from ``emit`` propagate unchanged (R-AG-LOOP-31).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import fields, replace
from typing import Any, TypeVar

from pi_app.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_app.agent.stream_fn import StreamFn, get_default_stream_fn
from pi_app.agent.tools import exception_text, execute_tool_calls, maybe_await
from pi_app.agent.types import AgentContext, AgentLoopConfig, AgentMessage, TurnContext
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import AssistantMessage, Context, Model, SimpleStreamOptions, Tool, ToolCall, now_ms
from pi_app.ai.util.validation import tool_parameters_schema

Emit = Callable[[Any], Awaitable[None] | None]
_T = TypeVar("_T")
_Out = Callable[[Any], Awaitable[None]]

ABORTED_REQUEST_TEXT = "Request was aborted"
NO_FINAL_MESSAGE_TEXT = "stream ended without a final message"


def _wrap_emit(emit: Emit) -> _Out:
    if asyncio.iscoroutinefunction(emit):
        return emit

    async def wrapped(event: Any) -> None:
        await maybe_await(emit(event))

    return wrapped


class _ToolDefinitions:
    """The LLM view of the context's tools, rebuilt only when the tool objects change."""

    def __init__(self) -> None:
        self._key: tuple[int, ...] | None = None
        self._defs: list[Tool] | None = None

    def for_tools(self, tools: list[Any] | None) -> list[Tool] | None:
        if not tools:
            return None
        key = tuple(map(id, tools))
        if key != self._key:
            self._key = key
            self._defs = [
                Tool(
                    name=t.name,
                    description=getattr(t, "description", "") or "",
                    parameters=tool_parameters_schema(getattr(t, "parameters", None)),
                    constrained_sampling=getattr(t, "constrained_sampling", None),
                )
                for t in tools
            ]
        return self._defs


def _copy_with(obj: _T, **changes: Any) -> _T:
    """A shallow copy of a plain dataclass with some attributes changed, without running
    ``__init__`` (several times cheaper than ``dataclasses.replace``)."""
    new: _T = object.__new__(type(obj))
    cls: type = type(obj)
    for name in _field_names(cls):
        setattr(new, name, changes[name] if name in changes else getattr(obj, name))
    return new


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _snapshot(message: AssistantMessage) -> AssistantMessage:
    """A fresh shallow copy of a partial message, with its own block list (R-AG-MSG-02).

    Taken once per streamed delta, so it copies the attribute dictionary in one step (the
    messages are plain dataclasses) instead of field by field."""
    new = object.__new__(type(message))
    new.__dict__.update(message.__dict__)
    new.content = list(message.content)
    return new


def _empty_assistant(model: Model) -> AssistantMessage:
    return AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())


class _Run:
    """The working data of one run; lives only as long as the run."""

    def __init__(
        self,
        context: AgentContext,
        config: AgentLoopConfig,
        signal: AbortSignal | None,
        emit: _Out,
        stream_fn: StreamFn,
    ) -> None:
        self.context = context
        self.config = config
        self.signal = signal
        self.emit = emit
        self.stream_fn = stream_fn
        self.model: Model = config.model
        self.stream_options: SimpleStreamOptions = config.stream_options
        self.new_messages: list[AgentMessage] = []
        self.tool_defs = _ToolDefinitions()
        self._request_started: float | None = None

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    # -- the double loop ------------------------------------------------------------------------

    async def run(self, first_turn_started: bool) -> list[AgentMessage]:
        config, emit = self.config, self.emit
        pending = await self._poll(config.get_steering_messages)
        turn_started = first_turn_started
        while True:
            more_tools = True
            while more_tools or pending:
                if not turn_started:
                    await emit(TurnStartEvent())
                turn_started = False
                await self._inject(pending)
                pending = []

                assistant = await self._stream_assistant()
                if assistant.stop_reason in ("error", "aborted"):
                    await emit(TurnEndEvent(assistant, []))
                    return await self._end()

                tool_results: list[Any] = []
                terminate = False
                has_calls = any(isinstance(b, ToolCall) for b in assistant.content)
                if has_calls:
                    batch = await execute_tool_calls(assistant, self.context, config, self.signal, emit)
                    tool_results, terminate = batch.messages, batch.terminate
                    self.context.messages.extend(tool_results)
                    self.new_messages.extend(tool_results)
                more_tools = has_calls and not terminate
                await emit(TurnEndEvent(assistant, list(tool_results)))

                if await self._turn_hooks_stop(assistant, tool_results):
                    return await self._end()
                pending = await self._poll(config.get_steering_messages)

            pending = await self._poll(config.get_follow_up_messages)
            if not pending:
                return await self._end()

    async def _end(self) -> list[AgentMessage]:
        await self.emit(AgentEndEvent(list(self.new_messages)))
        return self.new_messages

    async def _poll(self, callback: Callable[[], Any] | None) -> list[AgentMessage]:
        # R-AG-LOOP-19: a dead run leaves queued user input where it is.
        if callback is None or self.aborted:
            return []
        return list(await maybe_await(callback()) or ())

    async def _inject(self, messages: list[AgentMessage]) -> None:
        for message in messages:
            await self.emit(MessageStartEvent(message))
            await self.emit(MessageEndEvent(message))
            self.context.messages.append(message)
            self.new_messages.append(message)

    async def _turn_hooks_stop(self, assistant: AssistantMessage, tool_results: list[Any]) -> bool:
        """Run ``prepare_next_turn`` then ``should_stop_after_turn`` (R-AG-LOOP-15/16)."""
        config = self.config
        if config.prepare_next_turn is None and config.should_stop_after_turn is None:
            return False
        turn = TurnContext(assistant, list(tool_results), self.context, list(self.new_messages))
        if config.prepare_next_turn is not None:
            update = await maybe_await(config.prepare_next_turn(turn))
            if update is not None:
                if update.context is not None:
                    self.context = update.context
                    turn.context = update.context
                if update.model is not None:
                    self.model = update.model
                if update.thinking_level is not None:
                    level = None if update.thinking_level == "off" else update.thinking_level
                    self.stream_options = replace(self.stream_options, reasoning=level)
        if config.should_stop_after_turn is not None:
            return bool(await maybe_await(config.should_stop_after_turn(turn)))
        return False

    # -- the LLM boundary -----------------------------------------------------------------------

    async def _stream_assistant(self) -> AssistantMessage:
        """One LLM call; returns the final assistant message, already in context and new messages."""
        if self.aborted:  # R-AG-LOOP-21: never send a request with a dead signal
            message = _empty_assistant(self.model)
            message.stop_reason = "aborted"
            message.error_message = ABORTED_REQUEST_TEXT
            return await self._finish(message, started=False)

        llm_context, options = await self._build_request()
        self._request_started = time.monotonic()
        try:
            stream = await maybe_await(self.stream_fn(self.model, llm_context, options))
            events: AsyncIterator[Any] = stream.__aiter__()
        except Exception as exc:  # R-AG-LOOP-23 [py]: a stream function that raises
            return await self._fail(None, False, exception_text(exc))
        try:
            return await self._consume(stream, events)
        finally:
            # Close the iterator now: left to the garbage collector, an unfinished async generator
            # is finalized by a task scheduled on the loop, and a busy loop would pile them up.
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()

    async def _build_request(self) -> tuple[Context, SimpleStreamOptions]:
        """transform_context -> convert_to_llm -> Context; the API key is resolved for every call."""
        config, context, model = self.config, self.context, self.model
        messages = list(context.messages)
        if config.transform_context is not None:
            messages = await maybe_await(config.transform_context(messages, self.signal))
        llm_messages = await maybe_await(config.convert_to_llm(messages))
        llm_context = Context(
            system_prompt=context.system_prompt,
            messages=list(llm_messages),
            tools=self.tool_defs.for_tools(context.tools),
        )
        api_key = None
        if config.get_api_key is not None:
            api_key = await maybe_await(config.get_api_key(model.provider))
        options = _copy_with(
            self.stream_options, api_key=api_key or self.stream_options.api_key, signal=self.signal
        )
        return llm_context, options

    async def _consume(self, stream: Any, events: AsyncIterator[Any]) -> AssistantMessage:
        """Map stream events to message events (R-AG-LOOP-22)."""
        context = self.context
        started = False
        partial: AssistantMessage | None = None
        while True:
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                return await self._fail(partial, started, NO_FINAL_MESSAGE_TEXT)
            except Exception as exc:  # R-AG-LOOP-23 [py]: iterating the stream raised
                return await self._fail(partial, started, exception_text(exc))
            kind = event.type
            if kind == "start":
                partial = event.partial
                context.messages.append(partial)
                started = True
                await self.emit(MessageStartEvent(_snapshot(partial)))
            elif kind == "done" or kind == "error":
                try:
                    final = await stream.result()
                except Exception as exc:
                    return await self._fail(partial, started, exception_text(exc))
                return await self._finish(final, started)
            elif started:
                partial = getattr(event, "partial", None) or partial
                assert partial is not None
                context.messages[-1] = partial
                await self.emit(MessageUpdateEvent(_snapshot(partial), event))

    async def _fail(self, partial: AssistantMessage | None, started: bool, error: str) -> AssistantMessage:
        """Close a broken stream with an error (or, after an abort, aborted) message keeping the partial."""
        message = _snapshot(partial) if partial else _empty_assistant(self.model)
        message.stop_reason = "aborted" if self.aborted else "error"
        message.error_message = error
        return await self._finish(message, started)

    async def _finish(self, final: AssistantMessage, started: bool) -> AssistantMessage:
        # pi 1.6.0 records how long the response took and the level it was asked for
        request_started = self._request_started
        if request_started is not None and final.duration_ms is None:
            final.duration_ms = round((time.monotonic() - request_started) * 1000)
        self._request_started = None
        if final.thinking_level is None:
            final.thinking_level = getattr(self.stream_options, "reasoning", None) or "off"
        if started:
            self.context.messages[-1] = final
        else:
            self.context.messages.append(final)
            await self.emit(MessageStartEvent(_snapshot(final)))
        self.new_messages.append(final)
        await self.emit(MessageEndEvent(final))
        return final


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def _working_context(context: AgentContext, extra: list[AgentMessage]) -> AgentContext:
    return AgentContext(
        system_prompt=context.system_prompt,
        messages=[*context.messages, *extra],
        tools=list(context.tools) if context.tools is not None else None,
    )


async def run_agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Run the loop with new prompt messages; returns the run's new messages (prompts first)."""
    fn = stream_fn or get_default_stream_fn()
    out = _wrap_emit(emit)
    run = _Run(_working_context(context, prompts), config, signal, out, fn)
    await out(AgentStartEvent())
    await out(TurnStartEvent())
    for prompt in prompts:
        await out(MessageStartEvent(prompt))
        await out(MessageEndEvent(prompt))
        run.new_messages.append(prompt)
    return await run.run(first_turn_started=True)


def check_can_continue(context: AgentContext) -> None:
    """The preconditions of a continue run (R-AG-LOOP-02); raises ``ValueError``."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    role = getattr(context.messages[-1], "role", None)
    if role == "assistant":
        raise ValueError(f"Cannot continue from message role: {role}")


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Resume from the existing context without adding a message; returns only new messages."""
    check_can_continue(context)
    fn = stream_fn or get_default_stream_fn()
    out = _wrap_emit(emit)
    run = _Run(_working_context(context, []), config, signal, out, fn)
    await out(AgentStartEvent())
    await out(TurnStartEvent())
    return await run.run(first_turn_started=True)


class AgentEventStream:
    """The events of one background run (R-AG-LOOP-04).

    Async-iterable over the events (ending after ``agent_end``); ``await result()`` gives the
    run's new messages. If the run raises, both iteration and ``result()`` raise that exception.
    Events are queued without waiting for the consumer; breaking out of the iteration does not stop
    the run (abort its signal for that).
    """

    def __init__(self) -> None:
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self.task: asyncio.Task[list[AgentMessage]] | None = None

    def push(self, event: Any) -> None:
        self._events.put_nowait(event)

    def _close(self, _task: asyncio.Task[Any]) -> None:
        self._events.put_nowait(_END)

    async def __aiter__(self) -> AsyncIterator[Any]:
        while True:
            event = await self._events.get()
            if event is _END:
                self._events.put_nowait(_END)  # later iterations end at once as well
                assert self.task is not None
                failure = None if self.task.cancelled() else self.task.exception()
                if failure is not None:
                    raise failure
                return
            yield event

    async def result(self) -> list[AgentMessage]:
        assert self.task is not None
        return await asyncio.shield(self.task)


_END = object()


def _observe(
    start: Callable[[Callable[[Any], None]], Coroutine[Any, Any, list[AgentMessage]]],
) -> AgentEventStream:
    stream = AgentEventStream()
    stream.task = asyncio.get_running_loop().create_task(start(stream.push))
    stream.task.add_done_callback(stream._close)
    return stream


def agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """Start a prompt run in the background; must be called inside a running event loop."""
    fn = stream_fn or get_default_stream_fn()
    return _observe(lambda push: run_agent_loop(prompts, context, config, push, signal, fn))


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """Start a continue run in the background; precondition errors are raised right away."""
    check_can_continue(context)
    fn = stream_fn or get_default_stream_fn()
    return _observe(lambda push: run_agent_loop_continue(context, config, push, signal, fn))
