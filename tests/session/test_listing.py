"""Listing, continue, and ``--session`` id-prefix resolution (spec 30 R-LIST)."""

from __future__ import annotations

import time
from pathlib import Path

from pi_app.coding import paths
from pi_app.coding.session import SessionManager
from pi_app.coding.session.listing import looks_like_path
from tests.session.helpers import assistant, stored, user


def _session(directory: Path, cwd: str, first: str, ts: int, name: str | None = None) -> SessionManager:
    sm = SessionManager.create(cwd, directory)
    sm.append_message(user(first, ts=ts))
    sm.append_message(assistant(f"re: {first}", ts=ts + 1))
    if name:
        sm.append_session_info(name)
    return sm


def test_list_sorts_by_last_message_and_fills_session_info(tmp_path: Path) -> None:
    old = _session(tmp_path, "/p", "old question", 1_000_000)
    new = _session(tmp_path, "/p", "new question", 2_000_000, name="Named")
    stored(tmp_path / "junk.jsonl").write_text('{"type":"message"}\n')
    stored(tmp_path / "notes.txt").write_text("ignored")
    progress: list[tuple[int, int]] = []
    infos = SessionManager.list("/p", tmp_path, on_progress=lambda a, b: progress.append((a, b)))
    assert [i.id for i in infos] == [new.get_session_id(), old.get_session_id()]
    top = infos[0]
    assert top.name == "Named" and top.first_message == "new question" and top.message_count == 2
    assert "re: new question" in top.all_messages_text and top.cwd == "/p"
    assert int(top.modified.timestamp() * 1000) == 2_000_001
    assert progress[-1] == (3, 3)


def test_list_all_covers_every_project(tmp_path: Path) -> None:
    root = paths.sessions_root()
    a = _session(root / "--a--", "/a", "in a", 1_000)
    b = _session(root / "--b--", "/b", "in b", 2_000)
    assert {i.id for i in SessionManager.list_all()} == {a.get_session_id(), b.get_session_id()}


def test_continue_recent_opens_newest_valid_file_or_starts_new(tmp_path: Path) -> None:
    fresh = SessionManager.continue_recent("/p", tmp_path)
    assert fresh.get_entries() == []
    first = _session(tmp_path, "/p", "one", 1_000)
    second = _session(tmp_path, "/p", "two", 2_000)
    now = time.time()
    stored(first.get_session_file()).set_mtime(now + 10)
    stored(second.get_session_file()).set_mtime(now)
    stored(tmp_path / "zzz.jsonl").write_text("garbage\n")
    stored(tmp_path / "zzz.jsonl").set_mtime(now + 20)
    resumed = SessionManager.continue_recent("/p", tmp_path)
    assert resumed.get_session_id() == first.get_session_id()


def test_find_by_prefix_prefers_the_current_project(tmp_path: Path) -> None:
    here = paths.default_session_dir("/here")
    elsewhere = paths.default_session_dir("/elsewhere")
    local = _session(here, "/here", "local", 1_000)
    remote = _session(elsewhere, "/elsewhere", "remote", 2_000)
    match = SessionManager.find_by_prefix(local.get_session_id()[:8], "/here")
    assert match is not None and match.local and match.info.id == local.get_session_id()
    match = SessionManager.find_by_prefix(remote.get_session_id(), "/here")
    assert match is not None and not match.local and match.info.cwd == "/elsewhere"
    assert SessionManager.find_by_prefix("ffffffff-none", "/here") is None


def test_session_argument_path_detection() -> None:
    assert looks_like_path("./s.jsonl") and looks_like_path("s.jsonl") and looks_like_path("a\\b")
    assert not looks_like_path("01J9")


def test_session_id_flag_opens_exact_match_or_creates_it(tmp_path: Path) -> None:
    existing = _session(tmp_path, "/p", "hello", 1_000)
    again = SessionManager.for_session_id(existing.get_session_id(), "/p", tmp_path)
    assert again.get_session_file() == existing.get_session_file()
    fresh = SessionManager.for_session_id("my-own-id", "/p", tmp_path)
    assert fresh.get_session_id() == "my-own-id" and fresh.get_entries() == []
    assert fresh.get_session_file().endswith("_my-own-id.jsonl")


def test_delete_session_file(tmp_path: Path, monkeypatch) -> None:
    from pi_app.coding.session.listing import delete_session_file

    monkeypatch.setenv("PATH", "/nonexistent")
    sm = _session(tmp_path, "/p", "bye", 1_000)
    assert delete_session_file(sm.get_session_file()) == "deleted"
    assert SessionManager.list("/p", tmp_path) == []
