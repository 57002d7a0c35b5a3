"""The entry tree: leaf moves, labels, get_tree, branched copies (spec 30 R-TREE, R-NAV-06,
scenarios 6, 8, 9 and 22 at the session-manager level)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.coding.session import EntryNotFoundError, SessionManager
from tests.session.helpers import FIXTURES, assistant, copy_in, stored, user


def _linear(n: int = 10) -> tuple[SessionManager, list[str]]:
    sm = SessionManager.in_memory("/p")
    ids = []
    for i in range(n):
        ids.append(sm.append_message(user(f"u{i}") if i % 2 == 0 else assistant(f"a{i}")))
    return sm, ids


def test_branching_from_an_earlier_entry_keeps_the_old_branch() -> None:
    sm, ids = _linear()
    sm.branch(ids[1])  # e2 = parent of e3
    new = sm.append_message(user("different"))
    assert sm.get_entry(new).parent_id == ids[1]
    texts = [m.content[0].text for m in sm.build_session_context().messages]
    assert texts == ["u0", "a1", "different"]
    assert len(sm.get_entries()) == 11  # e3..e10 are still there
    assert [c.id for c in sm.get_children(ids[1])] == [ids[2], new]


def test_unknown_entry_leaves_the_leaf_alone() -> None:
    sm, ids = _linear(3)
    with pytest.raises(EntryNotFoundError, match="Entry nope not found"):
        sm.branch("nope")
    assert sm.get_leaf_id() == ids[-1]
    with pytest.raises(EntryNotFoundError):
        sm.append_label_change("nope", "x")
    assert len(sm.get_entries()) == 3


def test_reset_leaf_makes_the_next_append_a_second_root() -> None:
    sm, ids = _linear(2)
    sm.reset_leaf()
    assert sm.build_session_context().messages == []
    new = sm.append_message(user("fresh start"))
    assert sm.get_entry(new).raw["parentId"] is None
    assert [n.entry.id for n in sm.get_tree()] == [ids[0], new]


def test_leaf_moves_are_not_persisted(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    first = sm.append_message(user("a"))
    last = sm.append_message(assistant("b"))
    sm.branch(first)
    assert SessionManager.open(sm.get_session_file()).get_leaf_id() == last


def test_labels_set_and_clear() -> None:
    sm, ids = _linear(3)
    sm.append_label_change(ids[1], "checkpoint")
    node = sm.get_tree()[0].children[0]
    assert node.entry.id == ids[1] and node.label == "checkpoint" and node.label_timestamp
    label_id = sm.append_label_change(ids[1], "")
    assert "label" not in sm.get_entry(label_id).raw
    assert sm.get_tree()[0].children[0].label is None and sm.get_label(ids[1]) is None


def test_tree_children_sorted_by_timestamp_and_orphans_are_roots(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "id": "r",
            "parentId": None,
            "timestamp": "2024-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "r", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "late",
            "parentId": "r",
            "timestamp": "2024-01-01T00:00:09.000Z",
            "message": {"role": "user", "content": "l", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "early",
            "parentId": "r",
            "timestamp": "2024-01-01T00:00:02.000Z",
            "message": {"role": "user", "content": "e", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "orph",
            "parentId": "gone",
            "timestamp": "2024-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": "o", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "self",
            "parentId": "self",
            "timestamp": "2024-01-01T00:00:04.000Z",
            "message": {"role": "user", "content": "s", "timestamp": 1},
        },
    ]
    path = stored(path)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sm = SessionManager.open(path)
    roots = sm.get_tree()
    assert [n.entry.id for n in roots] == ["r", "orph", "self"]
    assert [n.entry.id for n in roots[0].children] == ["early", "late"]
    roots[0].children.clear()  # a fresh copy: the manager is unaffected
    assert len(sm.get_tree()[0].children) == 2
    assert [e.id for e in sm.get_branch("self")] == ["self"]  # a self-parent does not loop


def test_deep_trees_do_not_recurse() -> None:
    sm = SessionManager.in_memory("/p")
    for i in range(12000):
        sm.append_custom_entry("step", i)
    node = sm.get_tree()[0]
    depth = 1
    while node.children:
        node = node.children[0]
        depth += 1
    assert depth == 12000
    assert len(sm.get_branch()) == 12000


def test_branch_with_summary_attaches_under_target_or_root() -> None:
    sm, ids = _linear(4)
    sid = sm.branch_with_summary(ids[1], "explored", {"readFiles": [], "modifiedFiles": []}, False)
    raw = sm.get_entry(sid).raw
    # pi 1.6.0: fromId is the leaf that was left (the end of the summarised path)
    assert raw["parentId"] == ids[1] and raw["fromId"] == ids[3] and raw["fromHook"] is False
    assert sm.build_session_context().messages[-1].summary == "explored"
    root_summary = sm.branch_with_summary(None, "from scratch")
    assert sm.get_entry(root_summary).raw["fromId"] == sid and sm.get_entry(root_summary).parent_id is None
    empty = SessionManager.in_memory("/tmp")
    assert empty.get_entry(empty.branch_with_summary(None, "nothing left")).raw["fromId"] == "root"


def test_entries_since_and_session_name() -> None:
    sm, ids = _linear(4)
    assert [e.id for e in sm.get_entries_since(ids[1])] == ids[2:]
    assert len(sm.get_entries_since("unknown")) == 4
    sm.append_session_info("  First  ")
    assert sm.get_session_name() == "First"
    sm.append_session_info("   ")
    assert sm.get_session_name() is None  # the latest entry wins, even when it clears the name


def test_create_branched_session_copies_the_path_and_recreates_labels(tmp_path: Path) -> None:
    source = copy_in(FIXTURES / "sessions" / "all-entry-types-v3.jsonl", tmp_path / "src.jsonl")
    before = source.read_bytes()
    sm = SessionManager.open(source)
    new_file = sm.create_branched_session("a0000014")
    assert source.read_bytes() == before  # the original is unchanged
    lines = [json.loads(line) for line in stored(new_file).read_text().splitlines()]
    assert lines[0]["parentSession"] == str(source) and lines[0]["id"] == sm.get_session_id()
    ids = [line["id"] for line in lines[1:]]
    assert ids[:-1] == [f"a00000{n:02d}" for n in range(1, 15) if n != 10]  # path minus the label entry
    assert all(b["parentId"] == a["id"] for a, b in zip(lines[1:], lines[2:], strict=False))
    label = lines[-1]
    assert label["type"] == "label" and label["targetId"] == "a0000003" and label["label"] == "start"
    assert label["timestamp"] == "2026-01-02T10:00:04.300Z"  # the original label's time
    reopened = SessionManager.open(new_file)
    assert [m.role for m in reopened.build_session_context().messages][:2] == ["user", "assistant"]
    assert reopened.get_label("a0000003") == "start"


def test_branched_session_holding_a_question_is_written_at_once(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    first = sm.append_message(user("only a question"))
    new_file = sm.create_branched_session(first)
    assert stored(new_file).exists()  # a prompt is never left only in memory (issue 19 item 7)
    settings_only = SessionManager.create("/p", tmp_path / "other")
    change = settings_only.append_model_change("fake", "fake-model")
    assert not stored(settings_only.create_branched_session(change)).exists()


def test_fork_from_copies_the_whole_tree_into_the_target_project(tmp_path: Path) -> None:
    fixture = FIXTURES / "sessions" / "all-entry-types-v3.jsonl"
    source = copy_in(fixture, tmp_path / "source" / fixture.name)
    forked = SessionManager.fork_from(source, "/other/project", tmp_path / "target")
    lines = stored(forked.get_session_file()).read_text().splitlines()
    header = json.loads(lines[0])
    assert header["cwd"] == "/other/project" and header["parentSession"] == str(source)
    assert lines[1:] == source.read_text().splitlines()[1:]
    with pytest.raises(ValueError, match="empty or invalid"):
        empty = stored(tmp_path / "empty.jsonl")
        empty.write_text("")
        SessionManager.fork_from(empty, "/x", tmp_path)
