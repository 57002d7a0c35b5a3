"""The JSON/RPC event lines are the same bytes whether the streaming message is encoded once and
written in pieces (``JsonParts``) or the whole event is encoded at once; the writer's slicing never
cuts a character."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pi_app.ai.codec import encode_line
from pi_app.ai.testing import fake_model, text, thinking, tool_call
from pi_app.coding.session_events import session_event_to_dict
from pi_app.modes import output
from pi_app.modes.output import JsonParts, LineWriter
from pi_app.modes.serialize import event_to_wire
from tests.shells.helpers import scripted_session


def _written(obj: object) -> bytes:
    stream = io.BytesIO()
    LineWriter(stream).write(obj)
    return stream.getvalue()


async def test_every_event_line_is_the_whole_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "SLICE_CHARS", 7)  # many slice boundaries, some inside "é" and "🙂"
    (tmp_path / "a.txt").write_text("a\n")
    session, _ = await scripted_session(
        str(tmp_path),
        [
            [thinking("hmm… 🙂", chunks=3), text("Reading é \"quoted\"\n", chunks=4), tool_call("read", {"path": "a.txt"}, chunks=2)],
            [text("It says a. 🙂", chunks=3)],
        ],
        model=fake_model(reasoning=True, context_window=200_000),
    )  # fmt: skip
    lines: list[tuple[str, bool, bytes, bytes]] = []

    def on_event(event: object) -> None:  # serialised at emission time, as JSON mode and RPC do
        wire = event_to_wire(event)
        whole = encode_line(session_event_to_dict(event)).encode("utf-8")
        lines.append((event.type, isinstance(wire, JsonParts), _written(wire), whole))

    session.subscribe(on_event)
    await session.prompt("what is in a.txt?")
    session.dispose()

    for kind, _, written, whole in lines:
        assert written == whole, kind
        assert json.loads(written)["type"] == kind
    updates = [in_parts for kind, in_parts, _, _ in lines if kind == "message_update"]
    assert len(updates) > 10 and all(updates)  # every update took the encode-once path


def test_an_update_whose_partial_differs_from_its_message_is_encoded_whole() -> None:
    data = {
        "type": "message_update",
        "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "b", "partial": {"a": 1}},
        "message": {"a": 2},
    }

    class Event:
        type = "message_update"

    monkey = pytest.MonkeyPatch()
    monkey.setattr("pi_app.modes.serialize.session_event_to_dict", lambda event: data)
    try:
        wire = event_to_wire(Event())
    finally:
        monkey.undo()
    assert wire is data
    assert _written(wire) == encode_line(data).encode()
