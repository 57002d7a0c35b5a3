"""The canonical request sequence of spec 70 §2.12 (R-SEQ-01…04), end to end through the SDK.

One prompt, one tool call, one final answer: the recorded session events, the moments at which
session entries are written, and what the provider is finally sent.
"""

from __future__ import annotations

import re
from pathlib import Path

from pi_app.agent import Agent, AgentOptions
from pi_app.ai.testing import error, fake_model, fake_provider, hang, text, tool_call
from pi_app.coding.messages import CustomMessage, convert_to_llm
from pi_app.ext import SessionManager

from .helpers import Recorder, message_lines, scripted_session

R_SEQ_01 = (
    "agent_start turn_start (message_start message_end )?message_start message_end "
    "message_start (message_update )*message_end "
    "tool_execution_start (tool_execution_update )*tool_execution_end message_start message_end "
    "turn_end turn_start message_start (message_update )*message_end turn_end agent_end agent_settled"
)


def _one_tool_script() -> list:
    return [
        [text("Reading it."), tool_call("read", {"path": "notes.txt"})],
        [text("The notes say hello.", chunks=3)],
    ]


async def test_event_types_follow_the_canonical_sequence(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    session, _ = await scripted_session(str(tmp_path), _one_tool_script())
    recorder = Recorder()
    session.subscribe(recorder)
    await session.prompt("what do the notes say?")
    assert re.fullmatch(R_SEQ_01, " ".join(recorder.types)), recorder.types
    roles = [e.message.role for e in recorder.events if e.type == "message_end"]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]


async def test_entries_are_written_at_message_end_and_never_at_tool_events(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    path = tmp_path / "sessions" / "fixed.jsonl"
    manager = SessionManager.open(path)
    session, _ = await scripted_session(str(tmp_path), _one_tool_script(), session_manager=manager)
    seen: list[tuple[str, int]] = []

    def count_entries(event) -> None:
        seen.append((event.type, len([e for e in manager.get_entries() if e.type == "message"])))

    session.subscribe(count_entries)
    await session.prompt("what do the notes say?")

    grew_at = [kind for (kind, n), (_, before) in zip(seen, [("", 0), *seen], strict=False) if n > before]
    assert grew_at == ["message_end"] * 4
    tool_counts = {n for kind, n in seen if kind.startswith("tool_execution_")}
    assert tool_counts == {2}  # user + assistant-with-call, nothing written by the tool events
    on_disk = message_lines(str(path))
    assert [m["message"]["role"] for m in on_disk] == ["user", "assistant", "toolResult", "assistant"]
    assert on_disk[1]["message"]["content"][-1]["type"] == "toolCall"


async def test_transform_context_runs_before_every_llm_call_and_custom_roles_never_reach_the_provider() -> (
    None
):
    """R-SEQ-03: ``transform_context`` sees ``AgentMessage``s (custom roles included) once per LLM
    call, ``convert_to_llm`` runs on its output, and the provider sees only the standard roles."""
    model = fake_model()
    provider = fake_provider(models=[model], script=[[tool_call("probe", {})], [text("done")]])
    order: list[str] = []
    seen_roles: list[list[str]] = []

    async def transform_context(messages, signal=None):
        order.append("transform")
        seen_roles.append([m.role for m in messages])
        return [*messages, CustomMessage(custom_type="note", content="injected by the host", display=False)]

    def convert(messages):
        order.append("convert")
        assert messages[-1].role == "custom"  # it works on transform_context's output
        return convert_to_llm(messages)

    def stream(model, context, options=None, **kw):
        order.append("llm")
        return provider.stream_simple(model, context, options, **kw)

    from pi_app.agent.testing import FakeTool

    agent = Agent(
        AgentOptions(
            initial_state={
                "model": model,
                "tools": [FakeTool("probe", lambda *a: "probed")],
                "messages": [CustomMessage(custom_type="memo", content="kept for the host", display=True)],
            },
            transform_context=transform_context,
            convert_to_llm=convert,
            stream_fn=stream,
        )
    )
    await agent.prompt("go")
    assert order == ["transform", "convert", "llm"] * 2
    assert seen_roles[0] == ["custom", "user"]
    for call in provider.calls:
        assert {m.role for m in call.context.messages} <= {"user", "assistant", "toolResult"}
    assert "injected by the host" in str(provider.calls[0].context.messages[-1].content)


async def test_error_and_aborted_turns_end_with_turn_end_then_agent_end(tmp_path: Path) -> None:
    """R-SEQ-04: a failed or aborted assistant message is followed directly by turn_end (no tool
    results) and agent_end."""
    session, _ = await scripted_session(
        str(tmp_path), [[error("upstream said no")]], settings={"retry": {"enabled": False}}
    )
    recorder = Recorder()
    session.subscribe(recorder)
    await session.prompt("hi")
    assert recorder.types[-4:] == ["message_end", "turn_end", "agent_end", "agent_settled"]
    assert recorder.events[-4].message.stop_reason == "error"
    assert recorder.events[-3].tool_results == []

    session, _ = await scripted_session(str(tmp_path), [[text("partial"), hang()]])
    recorder = Recorder()
    session.subscribe(recorder)

    def abort_once_streaming(event) -> None:
        if event.type == "message_update":
            session.abort()

    session.subscribe(abort_once_streaming)
    await session.prompt("hi")
    assert recorder.types[-4:] == ["message_end", "turn_end", "agent_end", "agent_settled"]
    assert recorder.events[-4].message.stop_reason == "aborted"
    assert recorder.events[-3].tool_results == []
