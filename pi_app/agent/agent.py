"""The stateful ``Agent`` shell over the stateless loop (spec 20 §2.11, §3.6).

The Agent owns the transcript, runtime state, listeners, the steering and follow-up queues, the
active run's abort controller and the one-run-at-a-time guard. For each run it hands the loop a
snapshot of its state (copies of the message and tool lists) and a fresh loop configuration, and
reduces the loop's events back into its state before awaiting its listeners, in order, one event
at a time. Because emission is awaited, listeners are a barrier: when ``before_tool_call`` runs,
every listener has already seen the assistant message that asked for the call.

``prompt()``/``continue_()`` return once the run has settled (every listener finished with
``agent_end``) and never raise for in-run failures: if the loop raises (a must-not-raise callback
or a listener failed), a failure assistant message closes the run with a complete event grammar
(R-AG-SHELL-20..22). Only the preconditions raise: ``AgentBusyError`` while a run is active,
``AgentError`` without a model or with nothing to continue from.

Queued messages (``steer``/``follow_up``) stay queued when a run ends early (error, abort,
``should_stop_after_turn``); an aborted run no longer drains them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_app.agent.loop import run_agent_loop, run_agent_loop_continue
from pi_app.agent.stream_fn import StreamFn, get_default_stream_fn
from pi_app.agent.tools import maybe_await
from pi_app.agent.types import (
    TOOL_ABORT_GRACE_S,
    AgentContext,
    AgentLoopConfig,
    AgentMessage,
    AgentThinkingLevel,
    QueueMode,
    ToolExecutionMode,
    TurnContext,
)
from pi_app.ai.event_stream import AbortController, AbortSignal
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    Model,
    SimpleStreamOptions,
    TextContent,
    Transport,
    UserMessage,
    now_ms,
)

log = logging.getLogger(__name__)

Listener = Callable[[Any, AbortSignal | None], Awaitable[None] | None]


class AgentError(Exception):
    """A precondition of ``prompt``/``continue_`` does not hold (no model, nothing to continue)."""


class AgentBusyError(AgentError):
    """A run is already active."""


_LLM_ROLES = frozenset(("user", "assistant", "toolResult"))


def default_convert_to_llm(messages: list[AgentMessage]) -> list[Any]:
    """Keep the three LLM message kinds, drop custom ones (the Agent's default ``convert_to_llm``)."""
    return [m for m in messages if getattr(m, "role", None) in _LLM_ROLES]


class PendingMessageQueue:
    """Steering or follow-up messages waiting for their drain point (spec 20 §2.12).

    ``drain()`` returns the oldest message in mode ``"one-at-a-time"`` and everything in ``"all"``.
    """

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: list[AgentMessage] = []

    def enqueue(self, message: AgentMessage) -> None:
        self._items.append(message)

    def drain(self) -> list[AgentMessage]:
        if not self._items:
            return []
        if self.mode == "all":
            items, self._items = self._items, []
            return items
        return [self._items.pop(0)]

    def has_items(self) -> bool:
        return bool(self._items)

    def clear(self) -> list[AgentMessage]:
        items, self._items = self._items, []
        return items

    def items(self) -> list[AgentMessage]:
        return list(self._items)


class AgentState:
    """The Agent's state. ``system_prompt``, ``model``, ``thinking_level`` are plain attributes;
    assigning ``tools`` or ``messages`` stores a shallow copy while reading returns the live list
    (decision D-35); the runtime fields are read-only and change only through the run."""

    def __init__(
        self,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: AgentThinkingLevel = "off",
        tools: Sequence[Any] = (),
        messages: Sequence[AgentMessage] = (),
    ) -> None:
        self.system_prompt = system_prompt
        self.model = model
        self.thinking_level: AgentThinkingLevel = thinking_level
        self._tools: list[Any] = list(tools)
        self._messages: list[AgentMessage] = list(messages)
        self._is_streaming = False
        self._streaming_message: AgentMessage | None = None
        self._pending_tool_calls: frozenset[str] = frozenset()
        self._error_message: str | None = None

    @property
    def tools(self) -> list[Any]:
        return self._tools

    @tools.setter
    def tools(self, value: Sequence[Any]) -> None:
        self._tools = list(value)

    @property
    def messages(self) -> list[AgentMessage]:
        return self._messages

    @messages.setter
    def messages(self, value: Sequence[AgentMessage]) -> None:
        self._messages = list(value)

    @property
    def is_streaming(self) -> bool:
        return self._is_streaming

    @property
    def streaming_message(self) -> AgentMessage | None:
        return self._streaming_message

    @property
    def pending_tool_calls(self) -> frozenset[str]:
        return self._pending_tool_calls

    @property
    def error_message(self) -> str | None:
        return self._error_message


@dataclass
class AgentOptions:
    """Construction options; every one except ``initial_state`` and the queue modes becomes a
    public attribute of the Agent that may be replaced between runs (R-AG-SHELL-37).

    ``initial_state`` takes ``system_prompt``, ``model``, ``thinking_level``, ``tools`` and
    ``messages`` (never runtime fields). ``should_stop_after_turn(turn, signal)``,
    ``prepare_next_turn(signal)`` and ``prepare_next_turn_with_context(turn, signal)`` receive the
    run's signal; the context variant wins when both are set. ``tool_abort_grace_s`` is how long an
    aborted tool may keep running before it is cancelled (``None``: wait for it, as pi does).
    """

    initial_state: dict[str, Any] = field(default_factory=dict)
    convert_to_llm: Callable[[list[AgentMessage]], Any] | None = None
    transform_context: Callable[..., Any] | None = None
    stream_fn: StreamFn | None = None
    get_api_key: Callable[[str], Any] | None = None
    on_payload: Callable[..., Any] | None = None
    on_response: Callable[..., Any] | None = None
    before_tool_call: Callable[..., Any] | None = None
    after_tool_call: Callable[..., Any] | None = None
    should_stop_after_turn: Callable[..., Any] | None = None
    prepare_next_turn: Callable[..., Any] | None = None
    prepare_next_turn_with_context: Callable[..., Any] | None = None
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    session_id: str | None = None
    thinking_budgets: dict[str, int] | None = None
    transport: Transport = "auto"
    max_retry_delay_ms: int | None = None
    tool_execution: ToolExecutionMode = "parallel"
    tool_abort_grace_s: float | None = TOOL_ABORT_GRACE_S


class Agent:
    """Transcript, queues and listeners around the stateless loop; one run at a time.

    Build it with an ``AgentOptions`` or the same names as keywords:
    ``Agent(stream_fn=models.stream_simple, initial_state={"model": model, "tools": tools})``.
    """

    def __init__(self, options: AgentOptions | None = None, **kwargs: Any) -> None:
        if options is not None and kwargs:
            raise TypeError("pass either an AgentOptions or keyword options, not both")
        opts = options or AgentOptions(**kwargs)
        self.state = AgentState(**opts.initial_state)
        self.convert_to_llm = opts.convert_to_llm or default_convert_to_llm
        self.transform_context = opts.transform_context
        self.stream_fn: StreamFn = opts.stream_fn or get_default_stream_fn()
        self.get_api_key = opts.get_api_key
        self.on_payload = opts.on_payload
        self.on_response = opts.on_response
        self.before_tool_call = opts.before_tool_call
        self.after_tool_call = opts.after_tool_call
        self.should_stop_after_turn = opts.should_stop_after_turn
        self.prepare_next_turn = opts.prepare_next_turn
        self.prepare_next_turn_with_context = opts.prepare_next_turn_with_context
        self.session_id = opts.session_id
        self.thinking_budgets = opts.thinking_budgets
        self.transport = opts.transport
        self.max_retry_delay_ms = opts.max_retry_delay_ms
        self.tool_execution = opts.tool_execution
        self.tool_abort_grace_s = opts.tool_abort_grace_s
        self._steering = PendingMessageQueue(opts.steering_mode)
        self._follow_up = PendingMessageQueue(opts.follow_up_mode)
        self._listeners: list[Listener] = []
        self._controller: AbortController | None = None
        self._active = False
        self._idle: asyncio.Event | None = None

    # -- queues -----------------------------------------------------------------------------

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = mode

    def steer(self, message: AgentMessage) -> None:
        self._steering.enqueue(message)

    def follow_up(self, message: AgentMessage) -> None:
        self._follow_up.enqueue(message)

    def clear_steering_queue(self) -> list[AgentMessage]:
        return self._steering.clear()

    def clear_follow_up_queue(self) -> list[AgentMessage]:
        return self._follow_up.clear()

    def clear_all_queues(self) -> list[AgentMessage]:
        return self._steering.clear() + self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        return self._steering.has_items() or self._follow_up.has_items()

    def queued_messages(self) -> tuple[list[AgentMessage], list[AgentMessage]]:
        """``(steering, follow_ups)``, oldest first (copies)."""
        return self._steering.items(), self._follow_up.items()

    @property
    def queued_steering(self) -> tuple[AgentMessage, ...]:
        return tuple(self._steering.items())

    @property
    def queued_follow_ups(self) -> tuple[AgentMessage, ...]:
        return tuple(self._follow_up.items())

    # -- listeners ----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return unsubscribe

    @property
    def signal(self) -> AbortSignal | None:
        return self._controller.signal if self._controller is not None else None

    def abort(self) -> None:
        if self._controller is not None and self._active:
            self._controller.abort()

    async def wait_for_idle(self) -> None:
        if not self._active or self._idle is None:
            return
        await self._idle.wait()

    def reset(self) -> None:
        if self._active:
            raise AgentBusyError(
                "Cannot reset while a run is active; call abort() and await wait_for_idle() first."
            )
        self.state.messages = []
        self.state._streaming_message = None
        self.state._pending_tool_calls = frozenset()
        self.state._error_message = None
        self._steering.clear()
        self._follow_up.clear()

    # -- runs ---------------------------------------------------------------------------------

    async def prompt(
        self, input: str | AgentMessage | list[AgentMessage], images: list[ImageContent] | None = None
    ) -> None:
        if self._active:
            raise AgentBusyError(
                "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, "
                "or wait for completion (wait_for_idle())."
            )
        if self.state.model is None:
            raise AgentError("No model configured")
        if isinstance(input, str):
            prompts: list[AgentMessage] = [
                UserMessage(content=[TextContent(text=input), *(images or [])], timestamp=now_ms())
            ]
        elif isinstance(input, list):
            prompts = list(input)
        else:
            prompts = [input]
        await self._run(prompts)

    async def continue_(self) -> None:
        if self._active:
            raise AgentBusyError(
                "Agent is already processing. Wait for completion (await wait_for_idle()) before continuing."
            )
        if self.state.model is None:
            raise AgentError("No model configured")
        messages = self.state.messages
        if not messages:
            raise AgentError("No messages to continue from")
        if getattr(messages[-1], "role", None) != "assistant":
            await self._run(None)
            return
        steering = self._steering.drain()
        if steering:
            await self._run(steering, skip_initial_steering=True)
            return
        follow_ups = self._follow_up.drain()
        if follow_ups:
            await self._run(follow_ups)
            return
        raise AgentError("Cannot continue from message role: assistant")

    def _build_config(
        self, model: Model, skip_initial_steering: bool, signal: AbortSignal
    ) -> AgentLoopConfig:
        level = self.state.thinking_level
        stream_options = SimpleStreamOptions(
            reasoning=None if level == "off" else level,
            session_id=self.session_id,
            on_payload=self.on_payload,
            on_response=self.on_response,
            transport=self.transport,
            thinking_budgets=self.thinking_budgets,
            max_retry_delay_ms=self.max_retry_delay_ms,
        )
        skip = [skip_initial_steering]

        async def get_steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._steering.drain()

        async def get_follow_ups() -> list[AgentMessage]:
            return self._follow_up.drain()

        should_stop = None
        if self.should_stop_after_turn is not None:
            user_stop = self.should_stop_after_turn

            async def should_stop(ctx: TurnContext) -> bool:
                return bool(await maybe_await(user_stop(ctx, signal)))

        prepare = None
        if self.prepare_next_turn_with_context is not None:
            with_ctx = self.prepare_next_turn_with_context

            async def prepare(ctx: TurnContext) -> Any:
                return await maybe_await(with_ctx(ctx, signal))
        elif self.prepare_next_turn is not None:
            plain = self.prepare_next_turn

            async def prepare(ctx: TurnContext) -> Any:
                return await maybe_await(plain(signal))

        return AgentLoopConfig(
            model=model,
            convert_to_llm=self.convert_to_llm,
            stream_options=stream_options,
            transform_context=self.transform_context,
            get_api_key=self.get_api_key,
            get_steering_messages=get_steering,
            get_follow_up_messages=get_follow_ups,
            should_stop_after_turn=should_stop,
            prepare_next_turn=prepare,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            tool_execution=self.tool_execution,
            tool_abort_grace_s=self.tool_abort_grace_s,
        )

    async def _run(self, prompts: list[AgentMessage] | None, skip_initial_steering: bool = False) -> None:
        # Claim the run slot with no await in between (R-AG-SHELL-11).
        self._active = True
        controller = AbortController()
        self._controller = controller
        self._idle = asyncio.Event()
        state = self.state
        state._is_streaming = True
        state._streaming_message = None
        state._error_message = None
        model = state.model
        assert model is not None
        signal = controller.signal
        progress = _RunProgress()
        lock = asyncio.Lock()  # one event at a time, in emission order (R-AG-SHELL-07)

        async def emit(event: Any) -> None:
            async with lock:
                progress.track(event)
                self._reduce(event)
                for listener in tuple(self._listeners):
                    result = listener(event, signal)
                    if result is not None and hasattr(result, "__await__"):  # inline maybe_await: per delta
                        await result

        try:
            context = AgentContext(
                system_prompt=state.system_prompt, messages=list(state.messages), tools=list(state.tools)
            )
            config = self._build_config(model, skip_initial_steering, signal)
            if prompts is None:
                await run_agent_loop_continue(context, config, emit, signal, self.stream_fn)
            else:
                await run_agent_loop(prompts, context, config, emit, signal, self.stream_fn)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            await self._safety_net(exc, model, signal, progress)
        finally:
            state._is_streaming = False
            state._streaming_message = None
            state._pending_tool_calls = frozenset()
            self._active = False
            self._controller = None
            if self._idle is not None:
                self._idle.set()

    def _reduce(self, event: Any) -> None:
        state = self.state
        t = event.type
        if t in ("message_start", "message_update"):
            state._streaming_message = event.message
        elif t == "message_end":
            state._streaming_message = None
            state._messages.append(event.message)
        elif t == "tool_execution_start":
            state._pending_tool_calls = state._pending_tool_calls | {event.tool_call_id}
        elif t == "tool_execution_end":
            state._pending_tool_calls = state._pending_tool_calls - {event.tool_call_id}
        elif t == "turn_end":
            message = event.message
            if getattr(message, "role", None) == "assistant" and getattr(message, "error_message", None):
                state._error_message = message.error_message
        elif t == "agent_end":
            state._streaming_message = None

    async def _safety_net(
        self, exc: Exception, model: Model, signal: AbortSignal, progress: _RunProgress
    ) -> None:
        """Close a run whose loop raised with a failure message and a complete grammar (R-AG-SHELL-20..22)."""
        if progress.agent_ended:
            log.error("agent listener failed after agent_end: %s", exc, exc_info=exc)
            return
        failure = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stop_reason="aborted" if signal.aborted else "error",
            error_message=str(exc) or type(exc).__name__,
            timestamp=now_ms(),
        )
        events: list[Any] = []
        if not progress.agent_started:
            events.append(AgentStartEvent())
        if not progress.turn_open:
            events.append(TurnStartEvent())
        ended = list(progress.ended)
        open_message = progress.open_message
        if open_message is not None and getattr(open_message, "role", None) != "assistant":
            # A complete user/tool-result message whose start was delivered: finish it first.
            events.append(MessageEndEvent(open_message))
            ended.append(open_message)
            open_message = None
        if open_message is None:
            events.append(MessageStartEvent(failure))
        # else: the failure takes the place of the assistant message being streamed.
        events += [MessageEndEvent(failure), TurnEndEvent(failure, []), AgentEndEvent([*ended, failure])]
        for event in events:
            self._reduce(event)
            for listener in tuple(self._listeners):
                try:
                    await maybe_await(listener(event, signal))
                except Exception:
                    log.exception("agent listener failed in the failure path")


class _RunProgress:
    """Where the event grammar of the current run stands, for the failure path."""

    __slots__ = ("agent_started", "agent_ended", "turn_open", "open_message", "ended")

    def __init__(self) -> None:
        self.agent_started = False
        self.agent_ended = False
        self.turn_open = False
        self.open_message: AgentMessage | None = None
        self.ended: list[AgentMessage] = []

    def track(self, event: Any) -> None:
        t = event.type
        if t == "message_start":
            self.open_message = event.message
        elif t == "message_end":
            self.open_message = None
            self.ended.append(event.message)
        elif t == "turn_start":
            self.turn_open = True
        elif t == "turn_end":
            self.turn_open = False
        elif t == "agent_start":
            self.agent_started = True
        elif t == "agent_end":
            self.agent_ended = True
