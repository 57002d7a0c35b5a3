"""The stateless agent loop (spec 20 §3.1–3.4).

``run_agent_loop`` streams one assistant response, runs the tools it asks for, injects steering
messages at turn boundaries and follow-up messages when the run would end, and repeats until the
model stops. It reports everything through ``await emit(event)`` and returns the run's new
messages. It keeps no state between runs and never touches the caller's context object.

Event grammar (every run, see spec 20 §2.9 and the invariants I1–I6 tested in tests/agent)::

    Run       := agent_start FirstTurn Turn* agent_end
    FirstTurn := turn_start Msg(prompt)* Msg(injected)* TurnBody
    Turn      := turn_start Msg(injected)* TurnBody
    TurnBody  := Assistant [ToolBatch] turn_end
    Assistant := message_start message_update* message_end

LLM failures never raise: they arrive as an assistant message with ``stop_reason`` ``error`` or
``aborted`` and end the run after that turn.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

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
from pi_app.agent.tools import execute_tool_calls, maybe_await
from pi_app.agent.types import AgentContext, AgentLoopConfig, AgentMessage, TurnContext
from pi_app.ai.event_stream import AbortSignal, EventStream
from pi_app.ai.types import AssistantMessage, Context, Tool, ToolCall, now_ms
from pi_app.ai.util.validation import tool_parameters_schema

Emit = Callable[[Any], Awaitable[None] | None]


def _wrap_emit(emit: Emit) -> Callable[[Any], Awaitable[None]]:
    async def wrapped(event: Any) -> None:
        await maybe_await(emit(event))

    return wrapped


def _llm_tools(tools: list[Any] | None) -> list[Tool] | None:
    if not tools:
        return None
    return [
        Tool(
            name=t.name,
            description=getattr(t, "description", "") or "",
            parameters=tool_parameters_schema(getattr(t, "parameters", None)),
            constrained_sampling=getattr(t, "constrained_sampling", None),
        )
        for t in tools
    ]


def _snapshot(message: AssistantMessage) -> AssistantMessage:
    return copy.copy(message)


def _aborted_message(config_model: Any) -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api=config_model.api,
        provider=config_model.provider,
        model=config_model.id,
        stop_reason="aborted",
        error_message="Request was aborted",
        timestamp=now_ms(),
    )


async def _stream_assistant(
    context: AgentContext,
    config: AgentLoopConfig,
    model: Any,
    stream_options: Any,
    signal: AbortSignal | None,
    emit: Callable[[Any], Awaitable[None]],
    stream_fn: StreamFn,
) -> AssistantMessage:
    if signal is not None and signal.aborted:
        message = _aborted_message(model)
        context.messages.append(message)
        await emit(MessageStartEvent(_snapshot(message)))
        await emit(MessageEndEvent(message))
        return message

    messages = list(context.messages)
    if config.transform_context is not None:
        messages = await config.transform_context(messages, signal)
    llm_messages = await maybe_await(config.convert_to_llm(messages))
    llm_context = Context(
        system_prompt=context.system_prompt, messages=llm_messages, tools=_llm_tools(context.tools)
    )
    api_key = None
    if config.get_api_key is not None:
        api_key = await maybe_await(config.get_api_key(model.provider))
    options = replace(stream_options, api_key=api_key or stream_options.api_key, signal=signal)

    started = False
    partial: AssistantMessage | None = None
    try:
        stream = await maybe_await(stream_fn(model, llm_context, options))
        async for event in stream:
            if event.type == "start":
                partial = event.partial
                context.messages.append(partial)
                started = True
                await emit(MessageStartEvent(_snapshot(partial)))
            elif event.type in ("done", "error"):
                final = await stream.result()
                if started:
                    context.messages[-1] = final
                else:
                    context.messages.append(final)
                    await emit(MessageStartEvent(_snapshot(final)))
                await emit(MessageEndEvent(final))
                return final
            elif started:
                partial = getattr(event, "partial", partial)
                if partial is not None:
                    context.messages[-1] = partial
                    await emit(MessageUpdateEvent(_snapshot(partial), event))
        error_text = "stream ended without a final message"
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # R-AG-LOOP-23: a broken stream becomes an error message
        error_text = str(exc) or type(exc).__name__

    aborted = signal is not None and signal.aborted
    final = (
        partial
        if partial is not None
        else AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
    )
    final.stop_reason = "aborted" if aborted else "error"
    final.error_message = "Request was aborted" if aborted else error_text
    if started:
        context.messages[-1] = final
    else:
        context.messages.append(final)
        await emit(MessageStartEvent(_snapshot(final)))
    await emit(MessageEndEvent(final))
    return final


async def _poll(
    callback: Callable[[], Awaitable[list[AgentMessage]]] | None, signal: AbortSignal | None
) -> list[AgentMessage]:
    if callback is None or (signal is not None and signal.aborted):
        return []
    return list(await maybe_await(callback()) or [])


async def _run_loop(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Callable[[Any], Awaitable[None]],
    stream_fn: StreamFn,
    first_turn_started: bool,
) -> list[AgentMessage]:
    model = config.model
    stream_options = config.stream_options
    pending: list[AgentMessage] = await _poll(config.get_steering_messages, signal)
    first = first_turn_started

    while True:
        more_tools = True
        while more_tools or pending:
            if not first:
                await emit(TurnStartEvent())
            first = False
            for message in pending:
                await emit(MessageStartEvent(message))
                await emit(MessageEndEvent(message))
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            assistant = await _stream_assistant(
                context, config, model, stream_options, signal, emit, stream_fn
            )
            new_messages.append(assistant)
            if assistant.stop_reason in ("error", "aborted"):
                await emit(TurnEndEvent(assistant, []))
                await emit(AgentEndEvent(list(new_messages)))
                return new_messages

            has_calls = any(isinstance(b, ToolCall) for b in assistant.content)
            tool_results = []
            terminate = False
            if has_calls:
                batch = await execute_tool_calls(assistant, context, config, signal, emit)
                tool_results = batch.messages
                terminate = batch.terminate
                for result in tool_results:
                    context.messages.append(result)
                    new_messages.append(result)
            more_tools = has_calls and not terminate
            await emit(TurnEndEvent(assistant, list(tool_results)))

            turn = TurnContext(assistant, list(tool_results), context, list(new_messages))
            if config.prepare_next_turn is not None:
                update = await maybe_await(config.prepare_next_turn(turn))
                if update is not None:
                    if update.context is not None:
                        context = update.context
                        turn.context = context
                    if update.model is not None:
                        model = update.model
                    if update.thinking_level is not None:
                        level = None if update.thinking_level == "off" else update.thinking_level
                        stream_options = replace(stream_options, reasoning=level)
            if config.should_stop_after_turn is not None and await maybe_await(
                config.should_stop_after_turn(turn)
            ):
                await emit(AgentEndEvent(list(new_messages)))
                return new_messages
            pending = await _poll(config.get_steering_messages, signal)

        follow_ups = await _poll(config.get_follow_up_messages, signal)
        if not follow_ups:
            break
        pending = follow_ups

    await emit(AgentEndEvent(list(new_messages)))
    return new_messages


def _working_context(context: AgentContext, extra: list[AgentMessage]) -> AgentContext:
    return AgentContext(
        system_prompt=context.system_prompt,
        messages=list(context.messages) + list(extra),
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
    working = _working_context(context, prompts)
    new_messages: list[AgentMessage] = []
    await out(AgentStartEvent())
    await out(TurnStartEvent())
    for prompt in prompts:
        await out(MessageStartEvent(prompt))
        await out(MessageEndEvent(prompt))
        new_messages.append(prompt)
    return await _run_loop(working, new_messages, config, signal, out, fn, first_turn_started=True)


def check_can_continue(context: AgentContext) -> None:
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    last = context.messages[-1]
    if getattr(last, "role", None) == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Resume from the existing context without adding a message."""
    check_can_continue(context)
    fn = stream_fn or get_default_stream_fn()
    out = _wrap_emit(emit)
    working = _working_context(context, [])
    await out(AgentStartEvent())
    await out(TurnStartEvent())
    return await _run_loop(working, [], config, signal, out, fn, first_turn_started=True)


class AgentEventStream(EventStream[Any, list[AgentMessage]]):
    """Observational stream of one run: ends after ``agent_end``; ``result()`` = new messages."""

    def __init__(self) -> None:
        super().__init__(lambda e: e.type == "agent_end", lambda e: list(e.messages))
        self._error: BaseException | None = None

    async def result(self) -> list[AgentMessage]:
        if self.producer is not None:
            await asyncio.wait({self.producer})
            if self.producer.exception() is not None:
                raise self.producer.exception()  # type: ignore[misc]
        return await super().result()


def _observe(start: Callable[[Callable[[Any], None]], Awaitable[list[AgentMessage]]]) -> AgentEventStream:
    stream = AgentEventStream()

    async def runner() -> list[AgentMessage]:
        try:
            return await start(stream.push)
        finally:
            stream.end()

    stream.producer = asyncio.get_running_loop().create_task(runner())
    return stream


def agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    fn = stream_fn or get_default_stream_fn()
    return _observe(lambda push: run_agent_loop(prompts, context, config, push, signal, fn))


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    check_can_continue(context)
    fn = stream_fn or get_default_stream_fn()
    return _observe(lambda push: run_agent_loop_continue(context, config, push, signal, fn))
