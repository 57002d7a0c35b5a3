"""What only the SQLite session store has: migrations from every schema version, summaries kept by
triggers, corrupt or newer databases left untouched, and crash safety under SIGKILL (issue 25).

The behaviour it shares with JSONL files is the conformance suite: ``tests/session`` runs on both.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pi_app.coding.session import SessionManager
from pi_app.coding.session.listing import build_session_info
from pi_app.coding.session.sqlite_schema import MIGRATIONS, SCHEMA_VERSION
from pi_app.coding.session.sqlite_store import SessionStoreError, SqliteSessionStorage, fts_query, migrate
from tests.session.helpers import FIXTURES, assistant, user

SESSION_DIR = "/sessions/--p--"


def _fill(store: SqliteSessionStorage, name: str = "Named") -> SessionManager:
    sm = SessionManager.create("/p", SESSION_DIR, storage=store)
    sm.append_message(user("how do I grep a tree?"))
    sm.append_message(assistant("use rg", total_tokens=120))
    sm.append_session_info(name)
    return sm


def test_database_uses_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    store = SqliteSessionStorage(tmp_path / "s.sqlite")
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_migrating_from_every_earlier_version_keeps_sessions_and_fills_summaries(
    tmp_path: Path, version: int
) -> None:
    """A database left at ``version`` by an older pi, with sessions in it, opens on the current
    schema: the text is unchanged, the listing is the JSONL listing, full-text search finds it."""
    db = tmp_path / "old.sqlite"
    fixture = FIXTURES / "sessions" / "all-entry-types-v3.jsonl"
    text = fixture.read_text()
    current = SqliteSessionStorage(tmp_path / "current.sqlite")
    current.rewrite(f"{SESSION_DIR}/a.jsonl", text)
    expected_infos = current.session_infos(SESSION_DIR)

    conn = sqlite3.connect(db, isolation_level=None)
    migrate(conn, version)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    if version >= 1:  # write the session the way that version stored it: its tables only
        conn.execute(
            "INSERT INTO sessions(path, dir, mtime) VALUES (?, ?, ?)",
            (f"{SESSION_DIR}/a.jsonl", SESSION_DIR, 5.0),
        )
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
        for seq, line in enumerate(text.split("\n")[:-1]):
            conn.execute("INSERT INTO records(session, seq, body, nl) VALUES (?, ?, ?, 1)", (sid, seq, line))
    conn.close()

    store = SqliteSessionStorage(db)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    if version == 0:
        store.rewrite(f"{SESSION_DIR}/a.jsonl", text)
    assert store.load(f"{SESSION_DIR}/a.jsonl") == text
    infos = store.session_infos(SESSION_DIR)
    assert [(i.id, i.name, i.first_message, i.message_count, i.modified) for i in infos] == [
        (i.id, i.name, i.first_message, i.message_count, i.modified) for i in expected_infos
    ]
    word = next(w for w in infos[0].first_message.split() if len(w) > 3)
    assert [hit.path for hit in store.search(word)] == [f"{SESSION_DIR}/a.jsonl"]


def test_summaries_match_what_the_jsonl_listing_reads_for_every_fixture(tmp_path: Path) -> None:
    store = SqliteSessionStorage(tmp_path / "s.sqlite")
    fixtures = sorted((FIXTURES / "sessions").glob("*.jsonl")) + sorted(
        (FIXTURES / "pi-reference").glob("session-*.jsonl")
    )
    for fixture in fixtures:
        path = f"{SESSION_DIR}/{fixture.name}"
        store.rewrite(path, fixture.read_text(encoding="utf-8", errors="surrogateescape"))
        from_file = build_session_info(str(fixture))
        (from_db,) = [i for i in store.session_infos(SESSION_DIR) if i.path == path]
        assert from_file is not None, fixture
        for field in (
            "id",
            "cwd",
            "name",
            "parent_session_path",
            "created",
            "modified",
            "message_count",
            "first_message",
        ):
            assert getattr(from_db, field) == getattr(from_file, field), (fixture.name, field)
        assert from_db.all_messages_text == from_file.all_messages_text


def test_summary_keeps_counts_tokens_cost_and_the_last_message(tmp_path: Path) -> None:
    store = SqliteSessionStorage(tmp_path / "s.sqlite")
    sm = _fill(store)
    summary = store.summary(sm.get_session_file())
    assert summary is not None
    assert summary["name"] == "Named" and summary["message_count"] == 2
    assert summary["first_message"] == "how do I grep a tree?" and summary["last_message"] == "use rg"
    assert summary["total_tokens"] == 120
    sm.append_session_info("   ")  # clearing the name clears it in the summary
    assert store.summary(sm.get_session_file())["name"] is None  # type: ignore[index]
    store.rewrite(sm.get_session_file(), "")  # a rewrite starts the summary afresh
    assert store.summary(sm.get_session_file())["message_count"] == 0  # type: ignore[index]


def test_text_that_is_not_utf8_and_torn_lines_round_trip(tmp_path: Path) -> None:
    store = SqliteSessionStorage(tmp_path / "s.sqlite")
    raw = b'{"type":"session","version":3,"id":"x","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/p"}\n'
    raw += b'\xff\xfe not utf-8\n\n  \nnul\x00here\n{"type":"message","id":"ab'
    text = raw.decode("utf-8", "surrogateescape")
    store.rewrite("/d/s.jsonl", text)
    assert store.load("/d/s.jsonl").encode("utf-8", "surrogateescape") == raw  # type: ignore[union-attr]
    store.append("/d/s.jsonl", '\n{"type":"label"}\n')
    assert store.load("/d/s.jsonl") == text + '\n{"type":"label"}\n'
    assert list(store.iter_lines("/d/s.jsonl"))[-2:] == ['{"type":"message","id":"ab', '{"type":"label"}']


def test_a_file_that_is_not_a_database_is_reported_in_one_line_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    garbage = b"this is not sqlite at all\n" * 100
    db.write_bytes(garbage)
    with pytest.raises(SessionStoreError) as caught:
        SqliteSessionStorage(db)
    message = str(caught.value)
    assert "\n" not in message and str(db) in message and "left untouched" in message
    assert db.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.sqlite"]


def test_a_database_from_a_newer_pi_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = db.read_bytes()
    with pytest.raises(SessionStoreError, match="newer than this pi knows"):
        SqliteSessionStorage(db)
    assert db.read_bytes() == before


def test_pi_reports_a_corrupt_database_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    db.write_bytes(b"garbage" * 1000)
    env = {**os.environ, "PI_SESSION_STORE": "sqlite", "PI_SESSION_DATABASE": str(db), "PI_OFFLINE": "1"}
    env["PI_CODING_AGENT_DIR"] = str(tmp_path / "agent")
    done = subprocess.run(
        [sys.executable, "-m", "pi_app.cli", "-p", "hi"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "is unreadable" in done.stderr, done.stderr
    assert db.read_bytes() == b"garbage" * 1000


def test_fts_query_keeps_words_as_prefixes_and_quoted_phrases() -> None:
    assert fts_query("grep tre") == '"grep"* AND "tre"*'
    assert fts_query('"use rg" fast') == '"use rg" AND "fast"*'
    assert fts_query("  ;; ") is None
    assert fts_query('a "b') == '"a"* AND "b"*'


def test_search_finds_sessions_by_message_text_best_first(tmp_path: Path) -> None:
    store = SqliteSessionStorage(tmp_path / "s.sqlite")
    one = _fill(store)
    other = SessionManager.create("/q", SESSION_DIR, storage=store)
    other.append_message(user("grep grep grep everywhere"))
    other.append_message(assistant("done"))
    hits = store.search("grep", snippets=True)
    assert [h.path for h in hits] == [other.get_session_file(), one.get_session_file()]
    assert "grep" in hits[0].snippet
    assert store.search("nothing-like-this") == []


WRITER = textwrap.dedent(
    """
    import sys
    from pi_app.coding.session import SessionManager
    from pi_app.coding.session.sqlite_store import SqliteSessionStorage
    from tests.session.helpers import assistant, user

    store = SqliteSessionStorage(sys.argv[1])
    sm = SessionManager.create("/p", "/sessions/--p--", storage=store)
    sm.append_message(user("start"))
    sm.append_message(assistant("ok"))
    print(sm.get_session_file(), flush=True)
    i = 0
    while True:
        sm.append_custom_entry("step", {"i": i, "pad": "x" * 2000})
        i += 1
    """
)


def test_sigkill_during_writes_loses_at_most_the_entry_being_written(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    path = proc.stdout.readline().strip()
    time.sleep(0.8)  # thousands of appends in flight
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    store = SqliteSessionStorage(db)
    text = store.load(path)
    assert text is not None and text.endswith("\n")
    lines = text.splitlines()
    steps = [json.loads(line)["data"]["i"] for line in lines[3:]]
    assert len(steps) > 10 and steps == list(range(len(steps)))  # every committed entry, in order
    sm = SessionManager.open(path, storage=store)
    assert sm.skipped_lines == 0 and len(sm.get_entries()) == 2 + len(steps)
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_two_processes_write_one_database_in_turn(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    a = SqliteSessionStorage(db)
    b = SqliteSessionStorage(db)  # a second pi on the same database
    sm_a = _fill(a, "from a")
    sm_b = _fill(b, "from b")
    assert {i.name for i in a.session_infos(SESSION_DIR)} == {"from a", "from b"}
    sm_a.append_message(user("more"))
    assert b.load(sm_a.get_session_file()).count("\n") == 5  # type: ignore[union-attr]
    assert sm_b.get_session_file() in a.list_files(SESSION_DIR)


def test_every_migration_is_listed_once_in_order() -> None:
    assert SCHEMA_VERSION == len(MIGRATIONS) >= 3
