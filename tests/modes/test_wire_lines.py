"""The JSON/RPC event lines are pi 1.6.0's: ``message_update`` carries the delta and ``usage``, never
the cumulative message, so its size does not grow with the answer; the writer's slicing never cuts
a character of any line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pi_app.ai.codec import encode_line
from pi_app.ai.testing import fake_model, text, thinking, tool_call
from pi_app.coding.session_events import session_event_to_dict
from pi_app.modes import output
from pi_app.modes.output import LineWriter
from pi_app.modes.serialize import event_to_wire
from tests.shells.helpers import scripted_session


def _written(obj: object) -> bytes:
    stream = io.BytesIO()
    LineWriter(stream).write(obj)
    return stream.getvalue()


async def test_event_lines_are_whole_and_updates_are_delta_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "SLICE_CHARS", 7)  # many slice boundaries, some inside "é" and "🙂"
    (tmp_path / "a.txt").write_text("a\n")
    long_answer = "It says a. 🙂 " * 200
    session, _ = await scripted_session(
        str(tmp_path),
        [
            [thinking("hmm… 🙂", chunks=3), text("Reading é \"quoted\"\n", chunks=4), tool_call("read", {"path": "a.txt"}, id="call_r", chunks=2)],
            [text(long_answer, chunks=100)],
        ],
        model=fake_model(reasoning=True, context_window=200_000),
    )  # fmt: skip
    lines: list[tuple[str, bytes, bytes]] = []

    def on_event(event: object) -> None:  # serialised at emission time, as JSON mode and RPC do
        wire = event_to_wire(event)
        lines.append((event.type, _written(wire), encode_line(session_event_to_dict(event)).encode()))

    session.subscribe(on_event)
    await session.prompt("what is in a.txt?")
    session.dispose()

    for kind, written, whole in lines:
        assert written == whole, kind
        assert json.loads(written)["type"] == kind
    updates = [json.loads(written) for kind, written, _ in lines if kind == "message_update"]
    assert len(updates) > 100
    for update in updates:
        assert list(update) == ["type", "usage", "assistantMessageEvent"]
        assert "partial" not in update["assistantMessageEvent"]
        assert set(update["usage"]) >= {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
    starts = [
        u["assistantMessageEvent"] for u in updates if u["assistantMessageEvent"]["type"] == "toolcall_start"
    ]
    assert starts == [{"type": "toolcall_start", "contentIndex": 2, "id": "call_r", "toolName": "read"}]
    deltas = [len(w) for k, w, _ in lines if k == "message_update" and b'"text_delta"' in w]
    assert max(deltas) < 600  # one 16-ish character delta plus usage, however long the answer grew
    ends = [json.loads(w) for k, w, _ in lines if k == "message_update" and b'"text_end"' in w]
    assert ends[-1]["assistantMessageEvent"]["content"] == long_answer  # the authoritative block
