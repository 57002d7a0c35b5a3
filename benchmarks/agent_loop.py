"""Per-turn overhead and memory of the agent loop over a 1,000-turn run with tool calls.

Usage: ``python benchmarks/agent_loop.py [turns]``

One run asks for ``turns`` turns, each an assistant message with one tool call, then a final
answer. The stream function replays prepared events synchronously (no network, no sleeps), and the
tool returns at once, so what is left is the loop's own work: events, the tool pipeline (lookup,
validation, result messages), context bookkeeping and the turn boundary.

The baseline, measured in the same process, does the unavoidable part by hand for the same
number of turns: it calls the same stream function on the same conversions, consumes the stream,
validates the arguments, runs the tool and keeps every message. The figures printed are

- CPU time per turn, loop vs baseline, and their difference (the loop's overhead; target well under 1 ms);
- memory retained per turn, loop vs baseline (both keep the transcript; the loop must add nothing
  that grows, so the difference should stay near zero), sampled at several points of the run;
- the same per-turn time through the stateful ``Agent`` (reducer + one listener), for reference.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from pi_app.agent import Agent, AgentContext, AgentLoopConfig, AgentToolResult, run_agent_loop
from pi_app.agent.agent import default_convert_to_llm
from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    DoneEvent,
    Model,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    UserMessage,
    now_ms,
)
from pi_app.ai.util.validation import validate_tool_arguments

MODEL = Model(id="bench", provider="bench", api="bench-api")
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class EchoTool:
    name = "echo"
    label = "Echo"
    description = "Echo the text."
    parameters = SCHEMA

    async def execute(self, tool_call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text=params["text"])])


class ScriptedStream:
    """A stream function replaying ``turns`` tool-call turns and then one text answer."""

    def __init__(self, turns: int, on_call: Callable[[int], None] | None = None) -> None:
        self.turns = turns
        self.calls = 0
        self.on_call = on_call

    def __call__(self, model: Model, context: Context, options: Any) -> AssistantMessageEventStream:
        index = self.calls
        self.calls += 1
        if self.on_call is not None:
            self.on_call(index)
        message = AssistantMessage(api=model.api, provider=model.provider, model=model.id, timestamp=now_ms())
        stream = AssistantMessageEventStream()
        stream.push(StartEvent(partial=message))
        if index < self.turns:
            call = ToolCall(id=f"call_{index}", name="echo", arguments={"text": f"turn {index}"})
            message.content.append(call)
            stream.push(ToolCallStartEvent(content_index=0, partial=message))
            stream.push(ToolCallEndEvent(content_index=0, tool_call=call, partial=message))
            message.stop_reason = "toolUse"
        else:
            block = TextContent(text="")
            message.content.append(block)
            stream.push(TextStartEvent(content_index=0, partial=message))
            block.text = "done"
            stream.push(TextDeltaEvent(content_index=0, delta="done", partial=message))
            stream.push(TextEndEvent(content_index=0, content="done", partial=message))
        stream.push(DoneEvent(reason=message.stop_reason, message=message))
        return stream


def _prompt() -> UserMessage:
    return UserMessage(content=[TextContent(text="go")], timestamp=now_ms())


async def run_loop(turns: int, on_call: Callable[[int], None] | None = None) -> list[Any]:
    config = AgentLoopConfig(model=MODEL, convert_to_llm=default_convert_to_llm)
    context = AgentContext("system", [], [EchoTool()])
    events = 0

    def emit(event: Any) -> None:
        nonlocal events
        events += 1

    messages = await run_agent_loop(
        [_prompt()], context, config, emit, stream_fn=ScriptedStream(turns, on_call)
    )
    assert len(messages) == 2 * turns + 2, len(messages)
    return messages


async def run_baseline(turns: int, on_call: Callable[[int], None] | None = None) -> list[Any]:
    """The same provider traffic and tool work, without the loop."""
    stream_fn = ScriptedStream(turns, on_call)
    tool = EchoTool()
    messages: list[Any] = [_prompt()]
    while True:
        llm = default_convert_to_llm(messages)
        stream = stream_fn(MODEL, Context(system_prompt="system", messages=llm), None)
        async for _event in stream:
            pass
        final = await stream.result()
        messages.append(final)
        calls = [b for b in final.content if isinstance(b, ToolCall)]
        if not calls:
            break
        for call in calls:
            args = validate_tool_arguments(tool, call.arguments)
            result = await tool.execute(call.id, args, None, None)
            messages.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=result.content,
                    timestamp=now_ms(),
                )
            )
    return messages


async def run_agent(turns: int) -> list[Any]:
    agent = Agent(stream_fn=ScriptedStream(turns), initial_state={"model": MODEL, "tools": [EchoTool()]})
    agent.subscribe(lambda event, signal: None)
    await agent.prompt("go")
    return agent.state.messages


def best_times(fns: list[Callable[[int], Any]], turns: int, repeats: int = 5) -> list[float]:
    """Best CPU time of each function over ``repeats`` interleaved rounds. CPU time of this process
    (not wall time) and interleaving keep other work on the machine from skewing one side."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            gc.collect()
            start = time.process_time()
            asyncio.run(fn(turns))
            best[i] = min(best[i], time.process_time() - start)
    return best


def retained_memory(fn: Callable[..., Any], turns: int, marks: list[int]) -> dict[int, int]:
    """Traced bytes in use when the stream function is called for turn ``m`` (for each mark), and
    under key -1 what is still in use once the run returned and its messages were dropped."""
    samples: dict[int, int] = {}

    def on_call(index: int) -> None:
        if index in marks:
            gc.collect()
            samples[index] = tracemalloc.get_traced_memory()[0]

    gc.collect()
    tracemalloc.start()
    try:
        asyncio.run(fn(turns, on_call))
        gc.collect()
        samples[-1] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return samples


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(f"agent loop benchmark: {turns} turns, one tool call each (Python {sys.version.split()[0]})")

    loop_s, base_s, agent_s = best_times([run_loop, run_baseline, run_agent], turns)
    per = 1e6 / (turns + 1)
    print(f"  baseline (stream + tool by hand) : {base_s * per:8.1f} us/turn")
    print(f"  run_agent_loop                   : {loop_s * per:8.1f} us/turn")
    print(
        f"  loop overhead                    : {(loop_s - base_s) * per:8.1f} us/turn  (target: well under 1000)"
    )
    print(f"  Agent (reducer + 1 listener)     : {agent_s * per:8.1f} us/turn  (for reference)")

    marks = sorted({turns // 10, turns // 2, turns - 1})
    loop_mem = retained_memory(run_loop, turns, marks)
    base_mem = retained_memory(run_baseline, turns, marks)
    print("  memory in use at turn      loop      baseline   difference")
    for mark in marks:
        diff = loop_mem[mark] - base_mem[mark]
        print(
            f"    {mark:>6}            {loop_mem[mark] / 1024:8.0f} KiB {base_mem[mark] / 1024:8.0f} KiB {diff / 1024:8.0f} KiB"
        )
    first, last = marks[0], marks[-1]
    loop_growth = (loop_mem[last] - loop_mem[first]) / (last - first)
    base_growth = (base_mem[last] - base_mem[first]) / (last - first)
    print(f"  growth per turn: loop {loop_growth:.0f} B, baseline {base_growth:.0f} B (transcript), ", end="")
    print(f"extra {loop_growth - base_growth:.0f} B/turn")
    print(f"  left in use after the run (messages dropped): loop {loop_mem[-1] / 1024:.0f} KiB, ", end="")
    print(f"baseline {base_mem[-1] / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
