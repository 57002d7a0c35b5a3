"""One event vocabulary, everything serialisable (spec 70 R-PHIL-10, R-SEAM-12, 70/R-WEB-04,
acceptance scenario 16).

A scripted SDK run with one tool call, one automatic retry, one manual compaction, a steering
message, a name and a thinking-level change records every event. Each ``type`` must be declared in
the one module of its layer (``AGENT_EVENT_TYPES`` in ``pi_app.agent.events``,
``SESSION_EVENT_TYPES`` in ``pi_app.coding.session_events``); every event, message and session
entry must survive plain ``json.dumps``/``json.loads``; JSON mode must print the same ``type``
strings; and the modes must share the one line encoder of ``pi_app.ai.codec``.
"""

from __future__ import annotations

import ast
import asyncio
import io
import json
from pathlib import Path

from pi_app.agent.events import AGENT_EVENT_TYPES
from pi_app.ai.testing import error, fake_model, text, tool_call
from pi_app.coding.messages import message_to_dict
from pi_app.coding.session_events import (
    AGENT_SESSION_EVENT_TYPES,
    SESSION_EVENT_TYPES,
    session_event_to_dict,
)
from pi_app.ext import SessionManager
from pi_app.modes.json_mode import run_json_mode
from pi_app.modes.output import LineWriter

from .helpers import Recorder, round_trip, scripted_session

PI_APP = Path(__file__).resolve().parents[2] / "pi_app"


def _script() -> list:
    return [
        [error("overloaded_error: the server is busy")],  # retried automatically
        [text("Reading."), tool_call("read", {"path": "a.txt"})],
        [text("It says a.")],
        [text("## Goal\nRead a.txt\n\n## Progress\nDone")],  # the compaction summary
        [text("## Turn prefix\nAsked about a.txt")],  # a split turn gets a second summary
    ]


async def _full_run(tmp_path: Path) -> tuple[Recorder, SessionManager, object]:
    (tmp_path / "a.txt").write_text("a\n")
    manager = SessionManager.open(tmp_path / "s.jsonl")
    session, _ = await scripted_session(
        str(tmp_path),
        _script(),
        session_manager=manager,
        model=fake_model(reasoning=True, context_window=200_000),
        settings={"retry": {"baseDelayMs": 1}, "compaction": {"keepRecentTokens": 1}},
    )
    recorder = Recorder()
    session.subscribe(recorder)
    session.set_session_name("vocabulary run")
    session.set_thinking_level("low")

    def steer_during_the_tool(event) -> None:
        if event.type == "tool_execution_start":
            session.steer("and be brief")

    session.subscribe(steer_during_the_tool)
    await asyncio.wait_for(session.prompt("what is in a.txt?"), 10)
    await session.compact("keep it short")
    return recorder, manager, session


async def test_every_event_is_declared_and_round_trips_through_plain_json(tmp_path: Path) -> None:
    recorder, manager, session = await _full_run(tmp_path)
    kinds = set(recorder.types)
    assert kinds <= set(AGENT_SESSION_EVENT_TYPES), kinds - set(AGENT_SESSION_EVENT_TYPES)
    # the run really exercised tools, retry, compaction, the queue and both session changes
    assert {
        "tool_execution_start",
        "tool_execution_end",
        "auto_retry_start",
        "auto_retry_end",
        "compaction_start",
        "compaction_end",
        "queue_update",
        "session_info_changed",
        "thinking_level_changed",
    } <= kinds
    assert set(AGENT_EVENT_TYPES).isdisjoint(SESSION_EVENT_TYPES)

    for event in recorder.events:
        wire = session_event_to_dict(event)
        assert wire["type"] == event.type
        assert round_trip(wire) == wire
    for message in session.messages:
        data = message_to_dict(message)
        assert round_trip(data) == data and data["role"] == message.role
    for entry in [manager.get_header(), *manager.get_entries()]:
        data = entry.to_dict()
        assert round_trip(data) == data
    for line in Path(manager.get_session_file()).read_text().splitlines():
        assert json.loads(line)["type"]  # every written line is plain JSON with its type


async def test_json_mode_writes_the_same_type_strings(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    session, _ = await scripted_session(
        str(tmp_path), _script()[1:3], session_manager=SessionManager.in_memory(str(tmp_path))
    )
    recorder = Recorder()
    session.subscribe(recorder)
    out = io.BytesIO()
    writer = LineWriter(out)
    writer.close = lambda: None  # keep the buffer readable after the run
    assert await run_json_mode(session, writer, "what is in a.txt?", [], []) == 0
    lines = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert lines[0]["type"] == "session"
    assert [line["type"] for line in lines[1:]] == recorder.types


def test_modes_write_through_the_one_line_encoder() -> None:
    """No module of the headless modes encodes protocol output by hand: the one ``LineWriter``
    (built on ``pi_app.ai.codec.encode_json``, the line encoder's JSON half) is shared by print, JSON
    and RPC mode; ``serialize`` encodes the parts of an update with it too. The RPC
    client encodes the *commands* it sends, which is the other side of the wire."""
    offenders = []
    for path in sorted((PI_APP / "modes").rglob("*.py")):
        if path.name == "rpc_client.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("dumps", "dump"):
                if getattr(node.value, "id", "") == "json":
                    offenders.append(f"{path.relative_to(PI_APP)}:{node.lineno}")
    assert not offenders, offenders
    output = (PI_APP / "modes" / "output.py").read_text()
    assert "from pi_app.ai.codec import encode_json" in output
    framing = (PI_APP / "modes" / "rpc" / "framing.py").read_text()
    assert "from pi_app.modes.output import LineWriter" in framing
