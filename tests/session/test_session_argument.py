"""``pi --session <arg>`` resolution (spec 30 R-LIST-06, scenario 23)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pi_app.coding import paths
from pi_app.coding.launch import LaunchError, open_session_argument
from pi_app.coding.session import SessionManager
from tests.e2e.helpers import run_pi
from tests.session.helpers import assistant, user


def _saved(cwd: str) -> SessionManager:
    sm = SessionManager.create(cwd, paths.default_session_dir(cwd))
    sm.append_message(user("hello"))
    sm.append_message(assistant("hi"))
    return sm


def test_prefix_in_this_project_opens_it(tmp_path: Path) -> None:
    local = _saved("/here")
    opened = open_session_argument(
        local.get_session_id()[:6], "/here", str(paths.default_session_dir("/here"))
    )
    assert opened.get_session_file() == local.get_session_file()


def test_prefix_in_another_project_asks_to_fork(tmp_path: Path) -> None:
    remote = _saved("/elsewhere")
    here_dir = str(tmp_path / "here-sessions")
    questions: list[str] = []
    with pytest.raises(LaunchError) as declined:
        open_session_argument(
            remote.get_session_id(), "/here", here_dir, ask=lambda q: questions.append(q) or False
        )
    assert declined.value.exit_code == 0 and str(declined.value) == "Aborted."
    assert questions == ["Fork this session into current directory? [y/N]"]
    forked = open_session_argument(remote.get_session_id(), "/here", here_dir, ask=lambda q: True)
    header = forked.get_header()
    assert header.cwd == "/here" and header.parent_session == remote.get_session_file()
    assert forked.get_session_file().startswith(here_dir)


def test_path_argument_and_no_match(tmp_path: Path) -> None:
    target = tmp_path / "mine.jsonl"
    assert open_session_argument(str(target), "/here", str(tmp_path)).get_session_file() == str(target)
    with pytest.raises(LaunchError, match="No session found matching '01J9'") as missing:
        open_session_argument("01J9", "/here", str(tmp_path))
    assert missing.value.exit_code == 1


def test_cli_reports_a_missing_session_and_exits_1(tmp_path: Path) -> None:
    result = run_pi("--session", "01J9", "-p", "hi", cwd=tmp_path)
    assert result.returncode == 1
    assert "No session found matching '01J9'" in result.stderr


def test_cli_declining_the_fork_exits_0(tmp_path: Path) -> None:
    remote = _saved("/elsewhere")
    result = run_pi("--session", remote.get_session_id()[:8], "-p", "hi", cwd=tmp_path, input="n\n")
    assert result.returncode == 0, result.stderr
    assert "Session found in different project: /elsewhere" in result.stderr
    assert "Aborted." in result.stderr


def test_before_the_app_starts_a_foreign_session_is_offered_on_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The interactive app asks as pi 0.73.1 does: on the terminal, before it takes the screen."""
    from pi_app.cli import _settle_session_argument, parse_args

    remote = _saved("/elsewhere")
    here = tmp_path / "here"
    here.mkdir()

    def settle(argv: list[str], answer: str) -> tuple[int | None, str | None, str]:
        args = parse_args(argv)
        args.cwd = str(here)
        monkeypatch.setattr("sys.stdin", io.StringIO(answer))
        code = _settle_session_argument(args)
        return code, args.session, capsys.readouterr().err

    code, _, err = settle(["--session", remote.get_session_id()[:8]], "n\n")
    assert code == 0 and err.splitlines()[-1].endswith("[y/N] Aborted.")
    assert "Session found in different project: /elsewhere" in err

    code, chosen, err = settle(["--session", remote.get_session_id()[:8]], "y\n")
    assert code is None and chosen is not None
    fork = SessionManager.open(chosen, cwd=str(here))
    assert (
        fork.get_header().cwd == str(here) and fork.get_header().parent_session == remote.get_session_file()
    )
    assert [m.role for m in fork.build_session_context().messages] == ["user", "assistant"]

    code, _, err = settle(["--session", "01J9"], "")
    assert code == 1 and err.strip() == "No session found matching '01J9'"
    assert settle(["--session", "./new.jsonl"], "") == (None, "./new.jsonl", "")  # the app opens paths


def test_a_file_opened_by_path_keeps_its_own_folder_unless_one_was_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As pi 1.6.0: ``--session /elsewhere/s.jsonl`` works in /elsewhere (``/new``, ``/resume``, and
    the resume command names ``--session-dir /elsewhere``, without which ``pi --session <id>`` would
    not find it); a chosen ``--session-dir`` stays the session folder."""
    from pi_app.coding.launch import LaunchOptions, open_session_manager
    from pi_app.coding.settings import SettingsManager

    monkeypatch.delenv(paths.ENV_SESSION_DIR, raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "s.jsonl"
    settings = SettingsManager.in_memory()
    opened = open_session_manager(LaunchOptions(session=str(target)), "/here", settings)
    assert opened.get_session_dir() == str(elsewhere) and not opened.uses_default_session_dir()
    chosen = tmp_path / "chosen"
    opened = open_session_manager(
        LaunchOptions(session=str(target), session_dir=str(chosen)), "/here", settings
    )
    assert opened.get_session_dir() == str(chosen)
    here_default = open_session_manager(LaunchOptions(), "/here", settings)
    assert here_default.uses_default_session_dir()
