"""The changelog at start-up and in ``/changelog`` (R-FOOT-07, R-CMD-09)."""

from __future__ import annotations

from pathlib import Path

from pi_app import __version__
from pi_app.tui.chrome.changelog import entries_newer_than, parse_changelog, startup_changelog
from tests.tui.test_app_flows import make_app, notes, started

SAMPLE = """# Changelog

## 0.3.0

- Third.

## [0.2.1]

- Second and a half.

## 0.2.0

- Second.
"""


def test_sections_newer_than_the_last_seen_version_newest_first() -> None:
    entries = parse_changelog(SAMPLE)
    assert [e.version for e in entries] == ["0.3.0", "0.2.1", "0.2.0"]
    assert [e.version for e in entries_newer_than(entries, "0.2.0")] == ["0.3.0", "0.2.1"]
    assert entries_newer_than(entries, "0.10.0") == []  # numeric, not string, order


def test_start_up_shows_nothing_on_a_first_run_or_without_an_update() -> None:
    assert startup_changelog(None, "0.3.0", collapse=False, text=SAMPLE).markdown is None
    assert startup_changelog("0.3.0", "0.3.0", collapse=False, text=SAMPLE).markdown is None
    shown = startup_changelog("0.2.1", "0.3.0", collapse=False, text=SAMPLE)
    assert shown.markdown is not None and "Third." in shown.markdown and "Second." not in shown.markdown
    collapsed = startup_changelog("0.2.1", "0.3.0", collapse=True, text=SAMPLE)
    assert collapsed.notice == "Updated to v0.3.0. Use /changelog to view full changelog."


async def test_an_update_shows_whats_new_once_and_records_the_version(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, settings={"lastChangelogVersion": "0.0.1"})
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        assert "What's New" in notes(app) and __version__ in notes(app)
        assert app.settings.get_last_changelog_version() == __version__


async def test_collapse_changelog_shows_one_line(tmp_path: Path) -> None:
    settings = {"lastChangelogVersion": "0.0.1", "collapseChangelog": True, "quietStartup": True}
    app, _ = make_app(tmp_path, settings=settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        shown = notes(app)
        assert f"Updated to v{__version__}. Use /changelog to view full changelog." in shown
        assert "What's New" not in shown


async def test_a_first_run_only_records_the_version(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        assert "What's New" not in notes(app) and "Updated to" not in notes(app)
        assert app.settings.get_last_changelog_version() == __version__
