"""``/share`` against a fake GitHub CLI on PATH (spec 60 R-CMD-05): no network, ``gh`` records its
arguments and the page it was given, then prints a gist URL (or fails, or hangs)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.tui.commands.share import gist_id_of, share_viewer_url
from tests.tui.helpers import wait_for
from tests.tui.test_app_commands import submit
from tests.tui.test_app_flows import make_app, notes, started

FAKE_GH = """#!/bin/sh
echo "$@" >> "$FAKE_GH_LOG"
case "$1" in
  auth) exit "${FAKE_GH_AUTH:-0}" ;;
  gist)
    cp "$4" "$FAKE_GH_LOG.html"
    if [ -n "$FAKE_GH_SLEEP" ]; then echo $$ > "$FAKE_GH_LOG.pid"; sleep "$FAKE_GH_SLEEP"; echo done >> "$FAKE_GH_LOG"; fi
    if [ -n "$FAKE_GH_FAIL" ]; then echo "$FAKE_GH_FAIL" >&2; exit 1; fi
    echo "- Creating gist session.html" >&2
    echo "https://gist.github.com/tester/abc123"
    ;;
esac
"""


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Puts the fake ``gh`` first on PATH; returns its log file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "gh"
    script.write_text(FAKE_GH)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "gh.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_GH_LOG", str(log))
    monkeypatch.delenv("PI_SHARE_VIEWER_URL", raising=False)
    return log


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_viewer_url_and_gist_id() -> None:
    assert share_viewer_url("abc", {}) == "https://pi.dev/session/#abc"
    assert (
        share_viewer_url("abc", {"PI_SHARE_VIEWER_URL": "http://viewer.test/s/"})
        == "http://viewer.test/s/#abc"
    )
    assert gist_id_of("https://gist.github.com/me/f00d\n") == "f00d"
    assert gist_id_of("noise\nhttps://gist.github.com/me/f00d/\n") == "f00d"
    assert gist_id_of("  \n") is None


async def test_share_creates_a_secret_gist_of_the_html_export(tmp_path: Path, gh: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Shared answer SHARE-ME.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "SHARE-ME" in notes(app) and not app.is_working)
        app.editor.set_text("")
        await submit(pilot, "/share")
        await wait_for(pilot, lambda: "Share URL:" in notes(app))
        assert "Share URL: https://pi.dev/session/#abc123" in notes(app)
        assert "Gist: https://gist.github.com/tester/abc123" in notes(app)
        auth, create = _calls(gh)
        assert auth == "auth status"
        assert create.startswith("gist create --public=false ") and create.endswith("/session.html")
        page = Path(f"{gh}.html").read_text()
        assert "<html" in page and "SHARE-ME" in page  # the page is the session's HTML export
        assert not Path(create.split()[-1]).exists()  # the temporary export is gone
        assert app.editor.display and not app.editor_slot.is_replaced


async def test_share_viewer_url_comes_from_the_environment(
    tmp_path: Path, gh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_SHARE_VIEWER_URL", "http://viewer.test/s/")
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/share")
        await wait_for(pilot, lambda: "Share URL: http://viewer.test/s/#abc123" in notes(app))


async def test_share_without_gh_or_login_says_so_in_one_line(
    tmp_path: Path, gh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        monkeypatch.setenv("FAKE_GH_AUTH", "1")
        await submit(pilot, "/share")
        await wait_for(
            pilot, lambda: "Error: GitHub CLI is not logged in. Run 'gh auth login' first." in notes(app)
        )
        assert _calls(gh) == ["auth status"]  # no gist without a login

        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        await submit(pilot, "/share")
        expected = "Error: GitHub CLI (gh) is not installed. Install it from https://cli.github.com/"
        await wait_for(pilot, lambda: expected in notes(app))
        assert _calls(gh) == ["auth status"]


async def test_a_failing_gh_reports_its_error(
    tmp_path: Path, gh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_GH_FAIL", "HTTP 401: Bad credentials")
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/share")
        await wait_for(pilot, lambda: "Error: Failed to create gist: HTTP 401: Bad credentials" in notes(app))
        assert "Share URL" not in notes(app) and app.editor.display


async def test_escape_cancels_a_slow_gist(tmp_path: Path, gh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_GH_SLEEP", "30")
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        app.editor.set_text("")
        await submit(pilot, "/share")
        await wait_for(pilot, lambda: Path(f"{gh}.pid").exists() and app.editor_slot.is_replaced)
        assert "Creating gist..." in str(app.editor_slot.replacement.label.render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Share cancelled" in notes(app) and app.editor.display)
        pid = int(Path(f"{gh}.pid").read_text())
        await wait_for(pilot, lambda: not _alive(pid))
        assert "done" not in _calls(gh) and "Share URL" not in notes(app)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
