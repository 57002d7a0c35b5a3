"""AgentSession fork / clone / new / resume / tree navigation (spec 30 R-NAV, scenario 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.coding.agent_session import SessionOperationError
from pi_app.coding.session import SessionManager
from tests.coding.test_agent_session import make
from tests.session.helpers import assistant, user


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _branched(tmp_path: Path) -> tuple[SessionManager, dict[str, str]]:
    sm = SessionManager.create("/p", tmp_path)
    ids = {"m": sm.append_model_change("fake", "fake-model")}
    ids["u1"] = sm.append_message(user("first"))
    ids["a1"] = sm.append_message(assistant("one"))
    ids["u2"] = sm.append_message(user("second"))
    ids["a2"] = sm.append_message(assistant("two"))
    sm.append_label_change(ids["u1"], "start")
    ids["u3"] = sm.append_message(user("third"))
    ids["a3"] = sm.append_message(assistant("three"))
    sm.branch(ids["a1"])
    ids["u2b"] = sm.append_message(user("second, other branch"))
    ids["a2b"] = sm.append_message(assistant("two b"))
    sm.branch(ids["a3"])
    return sm, ids


async def test_fork_before_the_third_user_message(tmp_path: Path) -> None:
    sm, ids = _branched(tmp_path)
    original = Path(sm.get_session_file()).read_bytes()
    session, _, _ = make([], sm=sm)
    candidates = session.get_user_messages_for_forking()
    assert [c[1] for c in candidates] == ["first", "second", "third", "second, other branch"]
    old_file = sm.get_session_file()
    result = await session.fork(ids["u3"])
    assert result.selected_text == "third" and not result.cancelled
    assert Path(old_file).read_bytes() == original
    lines = _lines(session.session_file)
    assert lines[0]["parentSession"] == old_file
    assert [line["id"] for line in lines[1:6]] == [ids["m"], ids["u1"], ids["a1"], ids["u2"], ids["a2"]]
    label = lines[-1]
    assert label["type"] == "label" and label["targetId"] == ids["u1"] and label["label"] == "start"
    assert [m.content[0].text for m in session.messages] == ["first", "one", "second", "two"]
    assert session.agent.session_id == session.session_id != json.loads(original.splitlines()[0])["id"]


async def test_fork_of_a_root_message_starts_an_empty_child_session(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    first = sm.append_message(user("root question"))
    sm.append_message(assistant("answer"))
    session, _, _ = make([], sm=sm)
    previous = sm.get_session_file()
    result = await session.fork(first)
    assert result.selected_text == "root question" and session.messages == []
    assert sm.get_header().parent_session == previous
    with pytest.raises(SessionOperationError, match="Invalid entry ID"):
        await session.fork(sm.get_entries()[0].id if sm.get_entries() else "nope")


async def test_clone_copies_exactly_the_active_path(tmp_path: Path) -> None:
    sm, ids = _branched(tmp_path)
    session, _, _ = make([], sm=sm)
    await session.clone()
    entry_ids = [line.get("id") for line in _lines(session.session_file)[1:] if line["type"] != "label"]
    assert entry_ids == [ids[k] for k in ("m", "u1", "a1", "u2", "a2", "u3", "a3")]
    empty, _, _ = make([])
    with pytest.raises(SessionOperationError, match="Nothing to clone"):
        await empty.clone()


async def test_new_session_and_switch_back(tmp_path: Path) -> None:
    sm, ids = _branched(tmp_path)
    session, provider, events = make([[text("fresh reply")]], sm=sm)
    old_file = sm.get_session_file()
    assert await session.new_session()
    assert session.messages == [] and session.session_file != old_file
    assert [e.type for e in sm.get_entries()] == ["thinking_level_change"]
    await session.prompt("in the new session")
    assert Path(session.session_file).exists()
    result = await session.switch_session(old_file)
    assert result.switched and session.session_file == old_file
    assert [m.content[0].text for m in session.messages][-1] == "two b"  # the last file entry is the leaf
    assert any(e.type == "session_info_changed" for e in events)


async def test_navigate_tree_through_the_session_rebuilds_messages(tmp_path: Path) -> None:
    sm, ids = _branched(tmp_path)
    session, provider, _ = make([[text("reply")]], sm=sm)
    result = await session.navigate_tree(ids["u2"])
    assert result.editor_text == "second"
    assert [m.content[0].text for m in session.messages] == ["first", "one"]
    await session.prompt("second, again")
    assert sm.get_entry(sm.get_leaf_entry().parent_id).parent_id == ids["a1"]


async def test_an_unreadable_user_message_is_skipped_by_fork_and_tree(tmp_path: Path) -> None:
    """A user message line this version cannot read (kept verbatim) neither breaks the /fork list
    nor selecting it in /tree; forking at it is refused like any non-user entry."""
    from pi_app.coding.tree_navigation import landing_for

    sm = SessionManager.create("/p", tmp_path)
    first = sm.append_message(user("first"))
    sm.append_message(assistant("one"))
    bad = sm.append_message({"role": "user", "content": 5, "timestamp": 1})
    session, _, _ = make([], sm=sm)
    assert session.get_user_messages_for_forking() == [(first, "first")]
    assert landing_for(sm.get_entry(bad)) == (bad, None)
    with pytest.raises(SessionOperationError, match="Invalid entry ID for forking"):
        await session.fork(bad)
    assert '"content":5' in Path(sm.get_session_file()).read_text()  # the line is kept
