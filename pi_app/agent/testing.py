"""Test kit of the agent layer: fake tools, an event recorder and the event-grammar checker.

The scripted LLM is the ai layer's ``pi_app.ai.testing.fake_provider`` (decision D-9): pass its
``stream_simple`` as ``stream_fn``. This module adds only what a test of the loop or an Agent needs
on top of it, and every higher layer may reuse it:

- ``FakeTool`` and the factories ``echo_tool``, ``slow_tool``, ``raising_tool``,
  ``terminate_tool``, ``abortable_tool``, ``stubborn_tool``, ``updating_tool``;
- ``EventRecorder``: a sink usable both as the loop's ``emit`` and as an Agent listener;
- ``check_event_grammar(events)``: raises ``EventGrammarError`` naming the first event that breaks
  the run grammar of spec 20 §2.9 or one of its invariants I1–I6.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.agent.tools import maybe_await
from pi_app.agent.types import AgentToolResult, ToolExecutionMode, ToolUpdateCallback
from pi_app.ai.event_stream import AbortError, AbortSignal
from pi_app.ai.types import TextContent, ToolCall

# ---------------------------------------------------------------------------------------------
# Fake tools
# ---------------------------------------------------------------------------------------------

ToolHandler = Callable[[Any, AbortSignal | None, ToolUpdateCallback | None], Any]


def text_result(text: str, *, details: Any = None, terminate: bool = False) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details, terminate=terminate)


def _object_schema(**properties: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in properties.items()},
        "required": list(properties),
    }


@dataclass
class ToolInvocation:
    tool_call_id: str
    params: Any


@dataclass
class FakeTool:
    """A tool whose behaviour is a ``handler(params, signal, on_update)`` (sync or async).

    Every ``execute`` is recorded in ``calls``; if a shared ``journal`` list is given, the tool
    appends ``"start:<id>"`` and ``"end:<id>"`` to it, so tests can assert overlap and order.
    """

    name: str
    handler: ToolHandler
    label: str = ""
    description: str = "A fake tool for tests."
    parameters: Any = field(default_factory=lambda: {"type": "object", "properties": {}})
    execution_mode: ToolExecutionMode | None = None
    prepare_arguments: Callable[[Any], Any] | None = None
    journal: list[str] | None = None
    calls: list[ToolInvocation] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.label = self.label or self.name

    async def execute(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        self.calls.append(ToolInvocation(tool_call_id, params))
        if self.journal is not None:
            self.journal.append(f"start:{tool_call_id}")
        try:
            return await maybe_await(self.handler(params, signal, on_update))
        finally:
            if self.journal is not None:
                self.journal.append(f"end:{tool_call_id}")


def echo_tool(name: str = "echo", **options: Any) -> FakeTool:
    """Returns its ``text`` argument (a required string)."""
    return FakeTool(
        name,
        lambda params, signal, on_update: text_result(str(params.get("text", ""))),
        parameters=_object_schema(text="string"),
        **options,
    )


async def _wait_for(event: asyncio.Event, signal: AbortSignal | None) -> bool:
    """Wait for ``event`` or the signal; True if the signal fired first."""
    if signal is None:
        await event.wait()
        return False
    released = asyncio.ensure_future(event.wait())
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({released, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        released.cancel()
        aborted.cancel()
    return not event.is_set()


def slow_tool(name: str = "slow", release: asyncio.Event | None = None, **options: Any) -> FakeTool:
    """Returns ``"<name> done"`` once ``release`` is set (or after one loop turn without one);
    raises ``Operation aborted`` if the signal fires first."""

    async def handler(params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        if release is None:
            await asyncio.sleep(0)
        elif await _wait_for(release, signal):
            raise AbortError()
        return text_result(f"{name} done")

    return FakeTool(name, handler, **options)


def raising_tool(name: str = "fail", message: str = "tool failed", **options: Any) -> FakeTool:
    def handler(params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        raise RuntimeError(message)

    return FakeTool(name, handler, **options)


def terminate_tool(name: str = "finish", **options: Any) -> FakeTool:
    """Returns ``terminate=True``: the batch asks the loop not to call the model again."""
    return FakeTool(
        name, lambda params, signal, on_update: text_result("finished", terminate=True), **options
    )


def abortable_tool(name: str = "wait", **options: Any) -> FakeTool:
    """Waits for the abort signal, then raises ``Operation aborted`` (a cooperative tool)."""

    async def handler(params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        assert signal is not None, "abortable_tool needs a signal"
        await signal.wait()
        raise AbortError()

    return FakeTool(name, handler, **options)


def stubborn_tool(name: str = "stubborn", release: asyncio.Event | None = None, **options: Any) -> FakeTool:
    """Ignores the abort signal and waits for ``release`` (forever without one)."""
    gate = release or asyncio.Event()

    async def handler(params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        await gate.wait()
        return text_result(f"{name} done")

    return FakeTool(name, handler, **options)


def updating_tool(name: str = "progress", updates: Sequence[str] = ("1", "2"), **options: Any) -> FakeTool:
    """Reports each of ``updates`` through ``on_update`` (yielding between them), then returns."""

    async def handler(
        params: Any, signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        for text in updates:
            if on_update is not None:
                on_update(text_result(text))
            await asyncio.sleep(0)
        return text_result(f"{name} done")

    return FakeTool(name, handler, **options)


# ---------------------------------------------------------------------------------------------
# Event recorder
# ---------------------------------------------------------------------------------------------


class EventRecorder:
    """Collects events; call it as the loop's ``emit(event)`` or an Agent listener ``(event, signal)``."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any, signal: AbortSignal | None = None) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, *types: str) -> list[Any]:
        return [e for e in self.events if e.type in types]

    def ended_messages(self) -> list[Any]:
        return [e.message for e in self.events if e.type == "message_end"]

    def summary(self) -> list[str]:
        """Event types with ``message_*`` tagged by role and tool events by id, updates dropped:
        ``["agent_start", "turn_start", "message_start:user", …, "tool_execution_end:call_0_1"]``."""
        out = []
        for e in self.events:
            if e.type == "message_update":
                continue
            if e.type in ("message_start", "message_end"):
                out.append(f"{e.type}:{getattr(e.message, 'role', '?')}")
            elif e.type.startswith("tool_execution"):
                out.append(f"{e.type}:{e.tool_call_id}")
            else:
                out.append(e.type)
        return out

    def clear(self) -> None:
        self.events.clear()


# ---------------------------------------------------------------------------------------------
# Grammar checker
# ---------------------------------------------------------------------------------------------


class EventGrammarError(AssertionError):
    pass


def _role(message: Any) -> str | None:
    return getattr(message, "role", None)


class _Checker:
    def __init__(self, events: Sequence[Any]) -> None:
        self.events = list(events)
        self.i = 0
        self.ended: list[Any] = []

    # -- helpers ------------------------------------------------------------------------------

    def fail(self, message: str, index: int | None = None) -> None:
        at = self.i if index is None else index
        types = [e.type for e in self.events]
        window = " ".join(types[max(0, at - 4) : at]) + f" >>{types[at] if at < len(types) else 'END'}<< "
        window += " ".join(types[at + 1 : at + 4])
        raise EventGrammarError(f"event #{at}: {message}\n  … {window} …")

    def peek(self) -> str | None:
        return self.events[self.i].type if self.i < len(self.events) else None

    def take(self, kind: str) -> Any:
        if self.peek() != kind:
            self.fail(f"expected {kind}, got {self.peek()}")
        event = self.events[self.i]
        self.i += 1
        return event

    def take_message(self) -> Any:
        """``message_start(x) message_end(x)`` of a non-assistant message."""
        start = self.take("message_start")
        end = self.take("message_end")
        if _role(start.message) != _role(end.message):
            self.fail("message_end of a different message than the open message_start", self.i - 1)
        self.ended.append(end.message)
        return end.message

    # -- grammar ------------------------------------------------------------------------------

    def check(self) -> None:
        types = [e.type for e in self.events]
        if not types:
            raise EventGrammarError("no events")
        for kind in ("agent_start", "agent_end"):
            if types.count(kind) != 1:
                raise EventGrammarError(f"I1: {types.count(kind)} {kind} events, expected exactly one")
        self.take("agent_start")
        while self.peek() != "agent_end":
            self.turn()
        end = self.take("agent_end")
        if self.i != len(self.events):
            self.fail("I1: events after agent_end")
        if len(end.messages) != len(self.ended) or any(
            a is not b for a, b in zip(end.messages, self.ended, strict=False)
        ):
            raise EventGrammarError(
                "I6: agent_end.messages differ from the messages ended during the run: "
                f"{[_role(m) for m in end.messages]} vs {[_role(m) for m in self.ended]}"
            )

    def turn(self) -> None:
        self.take("turn_start")
        while self.peek() == "message_start" and _role(self.events[self.i].message) != "assistant":
            if _role(self.events[self.i].message) == "toolResult":
                self.fail("I3: tool result before the turn's assistant message")
            self.take_message()
        assistant = self.assistant()
        if assistant.stop_reason in ("error", "aborted"):
            end = self.take("turn_end")
            if end.tool_results:
                self.fail("turn_end of a failed turn carries tool results", self.i - 1)
            if end.message is not assistant:
                self.fail("I2: turn_end.message is not the turn's assistant message", self.i - 1)
            if self.peek() != "agent_end":
                self.fail("a failed or aborted turn must end the run")
            return
        results = self.tool_batch(assistant)
        end = self.take("turn_end")
        if end.message is not assistant:
            self.fail("I2: turn_end.message is not the turn's assistant message", self.i - 1)
        if len(end.tool_results) != len(results) or any(
            a is not b for a, b in zip(end.tool_results, results, strict=False)
        ):
            self.fail("I5: turn_end.tool_results differ from the emitted tool-result messages", self.i - 1)
        if self.peek() not in ("turn_start", "agent_end"):
            self.fail("expected turn_start or agent_end after turn_end")

    def assistant(self) -> Any:
        start = self.take("message_start")
        if _role(start.message) != "assistant":
            self.fail("expected the assistant message", self.i - 1)
        while self.peek() == "message_update":
            update = self.events[self.i]
            if _role(update.message) != "assistant":
                self.fail("I3: message_update for a non-assistant message")
            self.i += 1
        end = self.take("message_end")
        if _role(end.message) != "assistant":
            self.fail("I3: message_end does not close the assistant message", self.i - 1)
        self.ended.append(end.message)
        return end.message

    def tool_batch(self, assistant: Any) -> list[Any]:
        call_ids = [b.id for b in assistant.content if isinstance(b, ToolCall)]
        started: list[str] = []
        ended: list[str] = []
        results: list[Any] = []
        first_index = self.i
        while self.peek() not in ("turn_end", None):
            event = self.events[self.i]
            kind = event.type
            if kind == "tool_execution_start":
                if event.tool_call_id in started:
                    self.fail(f"I4: second tool_execution_start for {event.tool_call_id}")
                expected = call_ids[len(started)] if len(started) < len(call_ids) else None
                if event.tool_call_id != expected:
                    self.fail(f"I5: tool call {event.tool_call_id} started out of source order")
                started.append(event.tool_call_id)
                self.i += 1
            elif kind == "tool_execution_update":
                if event.tool_call_id not in started or event.tool_call_id in ended:
                    self.fail(f"I4: update for {event.tool_call_id} outside its start/end")
                self.i += 1
            elif kind == "tool_execution_end":
                if event.tool_call_id not in started or event.tool_call_id in ended:
                    self.fail(f"I4: tool_execution_end for {event.tool_call_id} without an open start")
                ended.append(event.tool_call_id)
                self.i += 1
            elif kind == "message_start" and _role(event.message) == "toolResult":
                call_id = event.message.tool_call_id
                if call_id not in ended:
                    self.fail(f"I4: tool result for {call_id} before its tool_execution_end")
                if len(results) >= len(started) or started[len(results)] != call_id:
                    self.fail(f"I5: tool result for {call_id} out of source order")
                results.append(self.take_message())
                if self.events[self.i - 1].message is not event.message:
                    self.fail("I3: tool-result message_end of another object", self.i - 1)
            else:
                self.fail(f"unexpected {kind} inside a tool batch")
        if sorted(started) != sorted(ended) or len(results) != len(started):
            self.fail("I4: a started tool call has no end or no result message before turn_end")
        if call_ids and not started:
            self.fail("an assistant message with tool calls got no tool execution events")
        self._check_batch_shape(first_index, self.i)
        return results

    def _check_batch_shape(self, begin: int, end: int) -> None:
        """Sequential: each call start..end..Msg is contiguous. Parallel: starts (each with an optional
        immediate end) first, then updates/ends, then all result messages."""
        section = self.events[begin:end]
        if self._is_sequential(section) or self._is_parallel(section):
            return
        self.fail("tool batch is neither the sequential nor the parallel shape", begin)

    @staticmethod
    def _is_sequential(section: list[Any]) -> bool:
        current: str | None = None
        for event in section:
            if event.type == "tool_execution_start":
                if current is not None:
                    return False
                current = event.tool_call_id
            elif event.type in ("tool_execution_update", "tool_execution_end"):
                if event.tool_call_id != current:
                    return False
            elif event.type == "message_end":
                current = None
        return True

    @staticmethod
    def _is_parallel(section: list[Any]) -> bool:
        phase = 0  # 0 preflight, 1 running, 2 result messages
        previous: Any = None
        for event in section:
            kind = event.type
            if kind == "tool_execution_start":
                if phase != 0:
                    return False
            elif kind == "tool_execution_end":
                immediate = (
                    phase == 0
                    and previous is not None
                    and previous.type == "tool_execution_start"
                    and previous.tool_call_id == event.tool_call_id
                )
                if phase == 2:
                    return False
                if not immediate:
                    phase = 1
            elif kind == "tool_execution_update":
                if phase == 2:
                    return False
                phase = 1
            else:
                phase = 2
            previous = event
        return True


def check_event_grammar(events: Sequence[Any]) -> None:
    """Raise ``EventGrammarError`` unless ``events`` are one well-formed run (spec 20 §2.9, I1–I6)."""
    _Checker(events).check()
