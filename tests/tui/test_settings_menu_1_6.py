"""``/settings`` offers the settings of pi 1.6.0's menu that this app honours (issue 17, features):
HTTP idle timeout, Mermaid diagrams, Default project trust, Terminal progress and Fullscreen exit
output, beside the ones it had; each one changes what the app does at once."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import fake_model, text
from pi_app.tui.selectors.settings import settings_rows
from pi_app.tui.transcript.blocks.diagrams import mermaid_mode, set_mermaid_mode
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started

PI_16_LABELS_HONOURED = [
    "Auto-compact",
    "Auto-resize images",
    "Block images",
    "Skill commands",
    "Show hardware cursor",
    "Editor padding",
    "Autocomplete max items",
    "Terminal progress",
    "Steering mode",
    "Follow-up mode",
    "Transport",
    "HTTP idle timeout",
    "Hide thinking",
    "Mermaid diagrams",
    "Collapse changelog",
    "Quiet startup",
    "Default project trust",
    "Double-escape action",
    "Tree filter mode",
    "Fullscreen exit output",
    "Theme",
]


async def _open(pilot, app, query: str):  # type: ignore[no-untyped-def]
    await pilot.press(*"/settings", "enter")
    await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
    selector = app.screen.query_one("#settings-selector")
    await pilot.press(*query)
    await pilot.pause()
    return selector


async def _close(pilot, app) -> None:  # type: ignore[no-untyped-def]
    while app.screen.query("#settings-selector"):  # the first Escape clears the search
        await pilot.press("escape")
        await pilot.pause()


async def test_the_menu_lists_every_honoured_1_6_setting(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        labels = [row.label for row in settings_rows(app)]
        assert set(PI_16_LABELS_HONOURED) <= set(labels)


async def test_the_thinking_row_shows_the_level_it_just_set(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, models=[fake_model("thinker", reasoning=True)], thinking_level="low")
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        selector = await _open(pilot, app, "thinking level")

        def row() -> str:
            return next(s.text for s in selector._strips if "Thinking level" in s.text)

        assert row().split()[-1] == "low"
        await pilot.press("enter")
        await pilot.pause()
        assert row().split()[-1] == "medium"  # at once, not after the session's next snapshot
        await wait_for(pilot, lambda: app.session.thinking_level == "medium")
        await pilot.press("enter")
        await pilot.pause()
        assert row().split()[-1] == "high"
        await wait_for(pilot, lambda: app.snapshot.thinking_level == "high")
        await _close(pilot, app)


async def test_each_new_row_cycles_1_6_values_and_takes_effect(tmp_path: Path) -> None:
    reply = "```mermaid\ngraph TD\n    A[一] --> B[二]\n```"
    app, _ = make_app(tmp_path, [[text(reply)]])
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await started(pilot, app)
            await pilot.press(*"draw", "enter")
            await wait_for(pilot, lambda: "一" in notes(app) and not app.is_working)
            assert "graph TD" not in notes(app)
            s = app.settings
            rows = {row.key: row for row in settings_rows(app)}
            assert rows["httpIdleTimeoutMs"].text() == "5 min"
            await _open(pilot, app, "idle")
            seen = []
            for _ in range(5):
                await pilot.press("enter")
                await pilot.pause()
                seen.append(rows["httpIdleTimeoutMs"].text())
            assert seen == ["disabled", "30 sec", "1 min", "2 min", "5 min"]
            assert s.get_http_idle_timeout_ms() == 300_000
            await _close(pilot, app)

            await _open(pilot, app, "mermaid")
            await pilot.press("enter")  # streaming -> off
            await pilot.pause()
            assert s.get_mermaid_mode() == "off" and mermaid_mode() == "off"
            assert "graph TD" in notes(app)  # the drawn reply turned back into its source
            await _close(pilot, app)

            await _open(pilot, app, "progress")
            await pilot.press("enter")
            await pilot.pause()
            assert s.get_show_terminal_progress() is True and app.terminal.show_progress
            await _close(pilot, app)

            await _open(pilot, app, "trust")
            assert rows["defaultProjectTrust"].text() == "Ask"
            await pilot.press("enter")
            await pilot.pause()
            assert s.get_default_project_trust() == "always"
            await _close(pilot, app)

            await _open(pilot, app, "exit output")  # a space inside the search is typed, as 1.6.0
            await pilot.press("enter")
            await pilot.pause()
            assert s.get_fullscreen_exit_output() == "resume-hint"
    finally:
        set_mermaid_mode("streaming")


async def test_resume_hint_exit_output_prints_only_the_hint(tmp_path: Path) -> None:
    app, _ = make_app(
        tmp_path,
        [[text("an answer")]],
        session_dir=str(tmp_path / "s"),
        settings={"fullscreenExitOutput": "resume-hint"},
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"question", "enter")
        await wait_for(pilot, lambda: "an answer" in notes(app) and not app.is_working)
        session_id = app.session.session_id
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: bool(app.farewell))
    folder = tmp_path / "s"  # not the default session folder: the command names it (pi 1.6.0)
    assert app.farewell == f"To resume this session:\npi --session-dir {folder} --session {session_id}\n"
