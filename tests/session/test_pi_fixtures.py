"""Every session file the TypeScript pi wrote loads, rebuilds pi's context, and round-trips.

The ``oracle/*.context.json`` files are what pi 0.73.1's own ``buildSessionContext()`` returned for
each fixture (produced by ``tests/fixtures/sessions/oracle/pi_oracle.mjs``), so "the same context as
pi would" is compared against pi itself, not against our reading of the spec.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_app.coding.messages import message_to_dict
from pi_app.coding.session import SessionManager
from tests.session.helpers import FIXTURES, PI_REFERENCE, assistant, copy_in, stored, user

SESSIONS = FIXTURES / "sessions"
ORACLE = SESSIONS / "oracle"
FIXTURE_FILES = sorted(PI_REFERENCE.glob("session-*.jsonl")) + sorted(SESSIONS.glob("*.jsonl"))


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_rebuilds_the_context_pi_builds(fixture: Path, tmp_path: Path) -> None:
    oracle = json.loads((ORACLE / (fixture.stem + ".context.json")).read_text())
    path = copy_in(fixture, tmp_path / fixture.name)
    sm = SessionManager.open(path)
    ctx = sm.build_session_context()
    assert sm.get_leaf_id() == oracle["leafId"]
    assert ctx.thinking_level == oracle["thinkingLevel"]
    expected_model = oracle["model"]
    assert ctx.model == ((expected_model["provider"], expected_model["modelId"]) if expected_model else None)
    assert [message_to_dict(m) for m in ctx.messages] == oracle["messages"]
    assert sm.get_session_name() == oracle["name"]
    assert sm.skipped_lines == 0 and sm.warnings == []


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: p.name)
def test_loading_and_appending_keeps_every_original_byte(fixture: Path, tmp_path: Path) -> None:
    original = fixture.read_bytes()
    path = copy_in(fixture, tmp_path / fixture.name)
    sm = SessionManager.open(path)
    assert path.read_bytes() == original  # loading writes nothing
    assert sm.get_file_text().encode() == original  # a whole-file rewrite would reproduce it exactly
    old_leaf = sm.get_leaf_id()
    first = sm.append_message(user("one more"))
    second = sm.append_message(assistant("sure"))
    data = path.read_bytes()
    assert data.startswith(original)
    new_lines = [json.loads(line) for line in data[len(original) :].decode().splitlines()]
    assert [line["id"] for line in new_lines] == [first, second]
    assert new_lines[0]["parentId"] == old_leaf and new_lines[1]["parentId"] == first
    for line in new_lines:
        assert re.fullmatch(r"[0-9a-f]{8}", line["id"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["timestamp"])
    reopened = SessionManager.open(path)
    assert reopened.get_leaf_id() == second
    assert [message_to_dict(m) for m in reopened.build_session_context().messages][-2:] == [
        message_to_dict(user("one more")),
        message_to_dict(assistant("sure")),
    ]


def test_unknown_keys_and_entry_types_survive_a_whole_file_rewrite(tmp_path: Path) -> None:
    fixture = SESSIONS / "all-entry-types-v3.jsonl"
    path = copy_in(fixture, tmp_path / "s.jsonl")
    sm = SessionManager.open(path)
    sm.append_message(user("x"))
    sm._dirty = True  # as after a failed write: the next append rewrites the whole file
    sm.append_message(assistant("y"))
    lines = path.read_text().splitlines()
    assert lines[: len(fixture.read_text().splitlines())] == fixture.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["metadata"] == {"origin": "newer-pi", "tags": ["x"]}
    assert any(json.loads(line).get("type") == "future_entry_type" for line in lines)
    assert any(json.loads(line).get("extraEntryKey") == "kept" for line in lines)


def test_python_written_session_passes_the_same_round_trip(tmp_path: Path) -> None:
    sm = SessionManager.create("/home/user/project", tmp_path)
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    first_user = sm.append_message(user("hello"))
    sm.append_message(assistant("hi"))
    sm.append_custom_message_entry("note", [{"type": "text", "text": "n"}], True, {"d": 1})
    sm.append_label_change(first_user, "here")
    sm.append_compaction("summary", first_user, 123, {"readFiles": [], "modifiedFiles": []}, False)
    sm.append_session_info("named")
    path = stored(sm.get_session_file())
    original = path.read_bytes()
    reopened = SessionManager.open(path)
    assert reopened.get_file_text().encode() == original
    ctx = reopened.build_session_context()
    assert [m.role for m in ctx.messages] == ["compactionSummary", "user", "assistant", "custom"]
    assert reopened.get_label(first_user) == "here"
    assert reopened.get_session_name() == "named"
    reopened.append_message(user("more"))
    assert path.read_bytes().startswith(original)
