"""Enter and Tab act on the text typed, even when the keys outran the completion list (R-AC-08).

Suggestions arrive asynchronously; a fast typist (or a terminal delivering ``/debug\\r`` at once)
can press Enter while the list still shows the matches of an earlier prefix. Enter must not pick
from that stale list (``/de`` lists ``/model`` first; ``/debug`` lists nothing)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.tui.helpers import wait_for
from tests.tui.test_editor_widget import make_app, ready


def _slow_suggestions(app) -> None:  # type: ignore[no-untyped-def]
    provider = app.editor.autocomplete
    fetch = provider.get_suggestions

    async def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.3)
        return await fetch(*args, **kwargs)

    provider.get_suggestions = slow


def _notes(app) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(app.transcript.plain_lines())


async def test_enter_runs_the_command_typed_not_the_stale_first_match(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press("/")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        first = app.editor.suggestions.items[0].value
        assert first != "session"
        _slow_suggestions(app)
        await pilot.press(*"session", "enter")  # the list still shows every command
        await wait_for(pilot, lambda: "Session Info" in _notes(app))
        assert not app.main_screen.query("#settings-selector") and not app.editor_slot.is_replaced


async def test_enter_on_a_hidden_command_typed_faster_than_the_list(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/de")
        await wait_for(pilot, lambda: app.editor.autocomplete_open and app.editor.suggestions.items)
        _slow_suggestions(app)
        await pilot.press(*"bug", "enter")
        await wait_for(pilot, lambda: "Debug log written to" in _notes(app))
        assert not app.editor_slot.is_replaced and app.editor.text == ""
