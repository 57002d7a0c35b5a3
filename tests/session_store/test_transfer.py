"""``pi sessions import`` / ``export``: JSONL → SQLite → JSONL gives every fixture back byte for byte
(issue 25, acceptance 3), and neither direction overwrites other content silently."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from pi_app.cli import main
from pi_app.coding import paths
from pi_app.coding.session import SessionManager
from pi_app.coding.session.sqlite_store import SqliteSessionStorage
from pi_app.modes.session_commands import run_session_command
from tests.session.helpers import FIXTURES, assistant, user

SHARED = Path("/work/shared/fixtures")
FIXTURE_DIRS = [FIXTURES] + sorted(SHARED.glob("pi-reference*"))  # the shared copies where present


def _all_fixture_files() -> list[Path]:
    return [p for d in FIXTURE_DIRS if d.is_dir() for p in sorted(d.rglob("*.jsonl"))]


def test_every_fixture_session_round_trips_byte_identical(tmp_path: Path) -> None:
    files = _all_fixture_files()
    assert len(files) >= 20
    source = tmp_path / "in"
    for i, file in enumerate(files):
        target = source / f"d{i}" / file.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(file, target)
    torn = source / "torn" / "odd.jsonl"  # the awkward cases, beside pi's real files
    torn.parent.mkdir()
    torn.write_bytes(b'{"type":"session","version":3,"id":"t","cwd":"/"}\r\n\n\xff\xfe\x00bad\n{"type":"mess')
    db = tmp_path / "s.sqlite"
    out = io.StringIO()
    assert run_session_command(["sessions", "import", str(source), "--database", str(db)], out) == 0
    assert out.getvalue().startswith(f"Imported {len(files) + 1} session(s)")
    out = io.StringIO()
    code = run_session_command(
        ["sessions", "export", "--to", str(tmp_path / "out"), "--database", str(db)], out
    )
    assert code == 0, out.getvalue()
    originals = sorted(source.rglob("*.jsonl"))
    for original in originals:
        exported = tmp_path / "out" / original.parent.name / original.name
        assert exported.read_bytes() == original.read_bytes(), original
    assert len(list((tmp_path / "out").rglob("*.jsonl"))) == len(originals)


def test_the_sessions_folder_moves_into_the_store_and_back_in_place(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", paths.default_session_dir("/p"))
    sm.append_message(user("hello"))
    sm.append_message(assistant("hi"))
    path = Path(sm.get_session_file())
    original = path.read_bytes()
    assert main(["sessions", "import"]) == 0  # default: the sessions folder, default database
    store = SqliteSessionStorage(paths.agent_dir() / "sessions.sqlite")
    assert store.load(str(path)) == original.decode()
    (info,) = store.session_infos(str(path.parent))
    assert info.first_message == "hello"
    assert main(["sessions", "import"]) == 0  # again: unchanged, nothing rewritten
    path.unlink()
    assert main(["sessions", "export"]) == 0  # back to where it was
    assert path.read_bytes() == original


def test_neither_direction_overwrites_different_content_without_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "sessions" / "--p--" / "a.jsonl"
    file.parent.mkdir(parents=True)
    file.write_text('{"type":"session","version":3,"id":"a","cwd":"/p"}\n')
    db = str(tmp_path / "s.sqlite")
    assert main(["sessions", "import", str(file), "--database", db]) == 0
    file.write_text('{"type":"session","version":3,"id":"a","cwd":"/changed"}\n')
    assert main(["sessions", "import", str(file), "--database", db]) == 1
    assert "left alone (different content)" in capsys.readouterr().err
    assert main(["sessions", "export", "--database", db]) == 1  # the file differs from the store
    assert "/changed" in file.read_text()
    assert main(["sessions", "export", "--database", db, "--replace"]) == 0
    assert '"/p"' in file.read_text()


def test_search_prints_matching_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.sqlite"
    store = SqliteSessionStorage(db)
    sm = SessionManager.create("/p", "/s/--p--", storage=store)
    sm.append_message(user("the flux capacitor needs 1.21 gigawatts"))
    sm.append_message(assistant("ok"))
    store.close()
    assert main(["sessions", "search", "capac", "--database", str(db)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(sm.get_session_file()) and "capacitor" in line


def test_a_corrupt_database_is_one_line_and_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.sqlite"
    db.write_bytes(b"nope" * 500)
    assert main(["sessions", "export", "--database", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is unreadable" in err
    assert db.read_bytes() == b"nope" * 500
