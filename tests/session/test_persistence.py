"""When and how a session reaches the disk: deferred creation, corrupt and torn lines, migrations,
invalid files, write failures (spec 30 R-SES-02…10, scenarios 2–5, issue acceptance 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_app.coding.session import SessionManager, SessionWriteError
from pi_app.coding.session.manager import NotASessionFileError
from tests.session.helpers import assistant, stored, stored_files, user


def _lines(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in stored(path).read_text().splitlines()]


def test_nothing_is_written_before_the_first_message_and_the_prompt_is_written_at_once(
    tmp_path: Path,
) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    assert stored_files(tmp_path, "*") == []  # nothing said yet: no file
    sm.append_message(user("hello"))  # on disk before any request starts (issue 19 item 7)
    files = stored_files(tmp_path)
    assert len(files) == 1 and str(files[0]) == sm.get_session_file()
    assert [line["type"] for line in _lines(files[0])] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
    ]
    sm.append_message(assistant("", stop_reason="error", error="boom"))
    lines = _lines(files[0])
    assert [line["message"]["role"] for line in lines[3:]] == ["user", "assistant"]
    sm.append_message(user("again"))
    assert len(_lines(files[0])) == 6  # later entries are appended exactly once


def test_session_file_name_is_header_timestamp_and_id(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    header = sm.get_header()
    expected = header.timestamp.replace(":", "-").replace(".", "-") + "_" + header.id + ".jsonl"
    assert os.path.basename(sm.get_session_file()) == expected


def test_corrupt_middle_line_is_skipped_with_a_warning_and_kept_after_append(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_message(user("one"))
    sm.append_message(assistant("two"))
    sm.append_message(user("three"))
    path = stored(sm.get_session_file())
    lines = path.read_text().splitlines()
    bad = '{"type":"message","id":"deadbeef", this is not json'
    lines.insert(2, bad)
    path.write_text("\n".join(lines) + "\n")

    reopened = SessionManager.open(path)
    assert reopened.skipped_lines == 1
    assert any("Skipped 1 unreadable line" in w for w in reopened.warnings)
    assert [m.role for m in reopened.build_session_context().messages] == ["user", "assistant", "user"]
    reopened.append_message(assistant("four"))
    text = path.read_text().splitlines()
    assert text[2] == bad
    assert len(text) == 6


def test_torn_last_line_is_dropped_and_the_next_append_starts_on_a_new_line(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_message(user("one"))
    last_good = sm.append_message(assistant("two"))
    path = stored(sm.get_session_file())
    path.append_text('{"type":"message","id":"abcd1234","parentId":"')  # crash mid-write

    reopened = SessionManager.open(path)
    assert reopened.skipped_lines == 1
    assert reopened.get_leaf_id() == last_good
    new_id = reopened.append_message(user("three"))
    text = path.read_text()
    assert '"parentId":"\n' in text  # the torn fragment is still there, on its own line
    again = SessionManager.open(path)
    assert again.get_leaf_id() == new_id and again.skipped_lines == 1


def test_file_without_header_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = stored(tmp_path / "broken.jsonl")
    path.write_text('{"type":"message","id":"x"}\nnot json\n')
    with pytest.raises(NotASessionFileError, match="Session file is not a valid pi session: .*broken.jsonl"):
        SessionManager.open(path)
    assert path.read_text() == '{"type":"message","id":"x"}\nnot json\n'
    assert [str(p) for p in stored_files(tmp_path, "broken.jsonl*")] == [str(path)]


def test_missing_file_becomes_a_new_session_at_that_path(tmp_path: Path) -> None:
    path = stored(tmp_path / "named" / "mine.jsonl")
    sm = SessionManager.open(path, cwd="/p")
    assert sm.get_session_file() == str(path) and not path.exists()
    sm.append_message(user("hi"))
    sm.append_message(assistant("hello"))
    assert _lines(path)[0]["cwd"] == "/p"


def test_v1_file_is_migrated_with_ids_parent_chain_and_first_kept_id(tmp_path: Path) -> None:
    path = stored(tmp_path / "old.jsonl")
    v1 = [
        {"type": "session", "id": "old-session", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "timestamp": "2024-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "a", "timestamp": 1},
        },
        {
            "type": "message",
            "timestamp": "2024-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "b"}],
                "api": "x",
                "provider": "p",
                "model": "m",
                "usage": {
                    "input": 1,
                    "output": 1,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": 2,
            },
        },
        {
            "type": "message",
            "timestamp": "2024-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": "c", "timestamp": 3},
        },
        {
            "type": "compaction",
            "timestamp": "2024-01-01T00:00:04.000Z",
            "summary": "S",
            "firstKeptEntryIndex": 2,
            "tokensBefore": 10,
        },
        {"type": "mystery", "timestamp": "2024-01-01T00:00:05.000Z", "keep": "me"},
    ]
    original = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in v1)
    path.write_text(original)
    sm = SessionManager.open(path)
    lines = _lines(path)
    assert lines[0]["version"] == 3
    ids = [line["id"] for line in lines[1:]]
    assert len(set(ids)) == 5
    assert [line["parentId"] for line in lines[1:]] == [None, *ids[:-1]]
    compaction = lines[4]
    assert "firstKeptEntryIndex" not in compaction
    assert compaction["firstKeptEntryId"] == ids[1]  # list index 2 = the second non-header line
    assert lines[5]["keep"] == "me"
    backups = stored_files(tmp_path, "old.jsonl.bak-*")
    assert len(backups) == 1 and backups[0].read_text() == original
    assert [m.role for m in sm.build_session_context().messages] == ["compactionSummary", "assistant", "user"]


def test_v2_hook_message_becomes_custom_and_reaches_the_llm_as_user(tmp_path: Path) -> None:
    from pi_app.coding.messages import convert_to_llm

    path = stored(tmp_path / "v2.jsonl")
    v2 = [
        {"type": "session", "version": 2, "id": "s2", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "timestamp": "2024-01-01T00:00:01.000Z",
            "message": {
                "role": "hookMessage",
                "customType": "h",
                "content": "from a hook",
                "display": True,
                "timestamp": 1,
            },
        },
    ]
    path.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in v2))
    sm = SessionManager.open(path)
    assert _lines(path)[1]["message"]["role"] == "custom"
    llm = convert_to_llm(sm.build_session_context().messages)
    assert llm[0].role == "user" and llm[0].content[0].text == "from a hook"


def test_write_failure_raises_keeps_the_entry_and_recovers_with_a_rewrite(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_message(user("one"))
    sm.append_message(assistant("two"))
    path = stored(sm.get_session_file())
    real_append = sm.storage.append

    def failing_append(p: str, text: str) -> None:
        raise SessionWriteError(p, "No space left on device")

    sm.storage.append = failing_append  # type: ignore[method-assign]
    with pytest.raises(SessionWriteError, match="No space left"):
        sm.append_message(user("three"))
    assert sm.get_entries()[-1].raw["message"]["content"][0]["text"] == "three"
    sm.storage.append = real_append  # type: ignore[method-assign]
    sm.append_message(assistant("four"))
    assert [line.get("message", {}).get("role") for line in _lines(path)[1:]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_in_memory_sessions_never_touch_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sm = SessionManager.in_memory("/p")
    sm.append_message(user("one"))
    sm.append_message(assistant("two"))
    assert sm.get_session_file() is None and not sm.is_persisted()
    assert list(tmp_path.iterdir()) == []
    assert len(sm.build_session_context().messages) == 2


def test_v1_migration_matches_pi_byte_for_byte_modulo_random_ids(tmp_path: Path) -> None:
    from tests.session.helpers import FIXTURES

    folder = FIXTURES / "sessions" / "migration"
    path = stored(tmp_path / "v1.jsonl")
    path.write_bytes((folder / "v1-input.jsonl").read_bytes())
    SessionManager.open(path)
    ours = path.read_text().splitlines()
    pis = (folder / "v1-migrated-by-pi-0.73.1.jsonl").read_text().splitlines()
    rename = {
        json.loads(a).get("id"): json.loads(b).get("id") for a, b in zip(ours[1:], pis[1:], strict=True)
    }
    for mine, theirs in zip(ours, pis, strict=True):
        for old, new in rename.items():
            mine = mine.replace(f'"{old}"', f'"{new}"')
        assert mine == theirs


def test_export_jsonl_writes_the_active_branch_only_as_a_linear_session(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``/export x.jsonl`` writes a plain session file whatever the session store (as pi 1.6.0)."""
    import json

    from pi_app.coding.session.manager import SessionManager
    from tests.session.helpers import assistant, user

    sm = SessionManager.in_memory(str(tmp_path))
    first = sm.append_message(user("first"))
    sm.append_message(assistant("answer A"))
    sm.branch(first)
    sm.append_message(assistant("answer B"))
    out = sm.export_jsonl(tmp_path / "branch.jsonl")
    header, *entries = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert header["type"] == "session" and header["id"] == sm.get_session_id()
    assert [
        e["message"]["content"][0]["text"]
        if isinstance(e["message"]["content"], list)
        else e["message"]["content"]
        for e in entries
    ] == ["first", "answer B"]
    assert [e["parentId"] for e in entries] == [None, entries[0]["id"]]
