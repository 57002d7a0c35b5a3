"""Wire rules of session lines: ids, timestamps, key order, absent vs null (spec 30 §2.2–2.4)."""

from __future__ import annotations

import json
import re
import uuid

from pi_app.coding.messages import BashExecutionMessage, CustomMessage
from pi_app.coding.session import SessionManager
from pi_app.coding.session.format import iso_from_ms, ms_from_iso, new_entry_id, new_session_id
from tests.session.helpers import assistant, stored, user

ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HEX8 = re.compile(r"^[0-9a-f]{8}$")


def test_timestamps_are_javascript_iso_strings() -> None:
    assert iso_from_ms(1796029003227) == "2026-11-30T08:56:43.227Z"
    assert iso_from_ms(0) == "1970-01-01T00:00:00.000Z"
    assert ms_from_iso("2026-11-30T08:56:43.227Z") == 1796029003227
    assert ms_from_iso("garbage") == 0


def test_session_id_is_uuid_v7_with_time_prefix() -> None:
    sid = new_session_id(1796029003227)
    parsed = uuid.UUID(sid)
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert int(sid.replace("-", "")[:12], 16) == 1796029003227
    assert new_session_id() != new_session_id()


def test_entry_ids_avoid_collisions() -> None:
    taken = {new_entry_id() for _ in range(50)}
    assert all(HEX8.match(i) for i in taken)
    fresh = new_entry_id(taken)
    assert fresh not in taken
    # when every short id is "taken", fall back to a full uuid
    assert len(new_entry_id(lambda _id: len(_id) == 8)) == 36


def test_appended_lines_follow_pi_key_order_and_omit_undefined(tmp_path) -> None:
    sm = SessionManager.create("/home/user/project", tmp_path)
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    sm.append_message(user("hi"))
    sm.append_message(assistant("hello"))
    sm.append_custom_entry("my-ext", {"k": 1})
    sm.append_custom_message_entry("note", "remember", True)
    sm.append_label_change(sm.get_entries()[2].id, None)
    sm.append_session_info("  my session  ")
    lines = [json.loads(line) for line in stored(sm.get_session_file()).read_text().splitlines()]
    header = lines[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and ISO_MS.match(header["timestamp"])
    assert list(lines[1]) == ["type", "id", "parentId", "timestamp", "provider", "modelId"]
    assert lines[1]["parentId"] is None
    assert list(lines[5]) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert list(lines[6]) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]
    assert "label" not in lines[7]
    assert lines[8]["name"] == "my session"
    for entry, previous in zip(lines[2:], lines[1:], strict=False):
        assert HEX8.match(entry["id"]) and ISO_MS.match(entry["timestamp"])
        assert entry["parentId"] == previous["id"]
    assert lines[4]["message"]["role"] == "assistant"
    assert "errorMessage" not in lines[4]["message"]
    # the exact compact encoding: no spaces after separators
    raw = stored(sm.get_session_file()).read_text().splitlines()[3]
    assert '","' in raw and ", " not in raw.split('"text"')[0]


def test_non_ascii_is_written_literally(tmp_path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_message(user("héllo ✓ / slash"))
    sm.append_message(assistant("ok"))
    text = stored(sm.get_session_file()).read_text()
    assert "héllo ✓ / slash" in text


def test_coding_messages_round_trip_through_message_entries(tmp_path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    bash = BashExecutionMessage(command="ls", output="a\n", exit_code=0, timestamp=5)
    custom = CustomMessage(custom_type="x", content="hello", display=False, details={"a": 1}, timestamp=6)
    sm.append_message(bash)
    sm.append_message(custom)
    raw = [e.raw["message"] for e in sm.get_entries()]
    assert raw[0] == {
        "role": "bashExecution",
        "command": "ls",
        "output": "a\n",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 5,
    }
    assert raw[1] == {
        "role": "custom",
        "customType": "x",
        "content": "hello",
        "display": False,
        "details": {"a": 1},
        "timestamp": 6,
    }
    sm.append_message(assistant("done"))
    reloaded = SessionManager.open(sm.get_session_file())
    messages = reloaded.build_session_context().messages
    assert messages[0] == bash and messages[1] == custom
    assert messages[0] is not bash  # really parsed back from the file


def test_summary_roles_cannot_be_stored_as_messages() -> None:
    from pi_app.coding.messages import CompactionSummaryMessage

    sm = SessionManager.in_memory("/p")
    try:
        sm.append_message(CompactionSummaryMessage(summary="s"))
    except ValueError as exc:
        assert "compactionSummary" in str(exc)
    else:
        raise AssertionError("expected ValueError")
    assert sm.get_entries() == []
