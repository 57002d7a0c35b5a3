"""Transcript search, prompt jumps and half-page scrolling under 1.6.0's ``tui.altScreen.*`` ids
(issue 17, features)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from pi_app.ai.testing import text
from pi_app.tui.input.keybindings import Keybindings
from pi_app.tui.transcript.search import SearchState, find_in_line, find_matches, fold
from pi_app.tui.transcript.search_bar import SearchBar
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started

CJK_ANSWER = "第一步，找到「针」。😀 needle ！\n\nsecond paragraph NEEDLE here"


def test_matches_are_case_blind_cell_offsets_in_rendered_rows() -> None:
    lines = ["你好，needle。", "no", "Needle and NEEDLE"]
    matches = find_matches(lines, "NeEdLe", first_row=10)
    assert [(m.row, m.start, m.end) for m in matches] == [(10, 6, 12), (12, 0, 6), (12, 11, 17)]
    assert find_in_line("「针」😀针", "针") == [(2, 4), (8, 10)]
    assert find_matches(lines, "") == []


@given(st.text(min_size=0, max_size=30), st.text(min_size=1, max_size=4))
def test_every_match_covers_the_query_cells(line: str, query: str) -> None:
    for start, end in find_in_line(line, fold(query)):
        assert 0 <= start < end <= cell_len(line) or cell_len(query) == 0
    assert len(fold(line)) == len(line)


def test_state_counts_and_wraps() -> None:
    state = SearchState("x")
    assert state.counter() == "No matches"
    state.set_matches(find_matches(["x", "", "x", "x"], "x"), near_row=2)
    assert state.counter() == "2/3"
    state.step(1)
    state.step(1)
    assert state.counter() == "1/3"
    state.step(-1)
    assert state.counter() == "3/3"
    assert state.in_row(3) == [(0, 1, True)] and state.in_row(0) == [(0, 1, False)]


def test_default_keys_are_pi_1_6_s() -> None:
    kb = Keybindings()
    assert kb.keys("tui.altScreen.search") == ("ctrl+shift+f",)
    assert kb.keys("tui.altScreen.searchNext") == ("enter", "ctrl+g")
    assert kb.keys("tui.altScreen.searchPrevious") == ("shift+enter", "ctrl+shift+g")
    assert kb.keys("tui.altScreen.previousPrompt") == ("ctrl+shift+up",)
    assert kb.keys("tui.altScreen.top") == ("ctrl+home",)
    assert kb.keys("tui.altScreen.halfPageUp") == ()
    # this app's earlier ids still load
    assert Keybindings.load(None).keys("app.transcript.pageUp") == kb.keys("tui.altScreen.pageUp")


async def test_search_highlights_moves_and_closes(tmp_path: Path) -> None:
    filler = "\n\n".join(f"Filler {i}." for i in range(60))
    app, _ = make_app(tmp_path, [[text(CJK_ANSWER + "\n\n" + filler)], [text("last reply 针")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"first", "enter")
        await wait_for(pilot, lambda: "Filler 59." in notes(app) and not app.is_working)
        await pilot.press(*"again", "enter")
        await wait_for(pilot, lambda: "last reply" in notes(app) and not app.is_working)
        await pilot.pause()
        transcript = app.transcript
        await pilot.press("ctrl+shift+f")
        await wait_for(pilot, lambda: bool(app.screen.query(SearchBar)))
        bar = app.screen.query_one(SearchBar)
        await wait_for(pilot, lambda: bar.has_focus)
        for char in "针":
            await pilot.press(char)
        await pilot.pause()
        search = transcript.search
        assert search is not None and search.query == "针"
        assert len(search.matches) == 2
        assert search.counter() == "2/2"  # the last match above the view's bottom
        assert "2/2" in bar.render().plain
        await pilot.press("enter")  # next wraps to the first
        await pilot.pause()
        assert search.counter() == "1/2"
        first = search.current_match
        assert first is not None
        top = int(transcript.scroll_offset.y)
        assert top <= first.row < top + transcript.scrollable_content_region.height
        # the current match is drawn in the theme's searchMatchBg/searchMatchText (pi 1.6.0 tokens;
        # the built-in dark theme falls back to selectedBg and text), bold
        strip = transcript.render_line(first.row - top)
        match_bg = app.themes.current.bg["searchMatchBg"].bgcolor
        marked = [
            seg for seg in strip if seg.style is not None and seg.style.bold and seg.style.bgcolor == match_bg
        ]
        assert "".join(seg.text for seg in marked) == "针"
        await pilot.press("shift+enter")
        await pilot.pause()
        assert search.counter() == "2/2"
        # a case-blind ASCII query, typed after clearing with backspace
        await pilot.press("backspace", *"NEEDLE")
        await pilot.pause()
        assert search.counter().endswith("/2")
        await pilot.press(*"zz")
        await pilot.pause()
        assert "No matches" in bar.render().plain
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(SearchBar) and transcript.search is None
        assert app.editor.has_focus


async def test_prompt_jumps_and_half_pages(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "keybindings.json").write_text(
        json.dumps({"tui.altScreen.halfPageUp": "alt+u", "tui.altScreen.halfPageDown": "alt+d"})
    )
    long = "\n\n".join(f"Line {i}." for i in range(40))
    app, _ = make_app(tmp_path, [[text(long)], [text(long)], [text(long)]], agent_dir=agent_dir)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        for prompt in ("one", "two", "three"):
            await pilot.press(*prompt, "enter")
            await wait_for(pilot, lambda p=prompt: p in notes(app) and not app.is_working)
        await wait_for(pilot, lambda: notes(app).count("Line 39.") == 3)
        await pilot.pause()
        transcript = app.transcript
        from pi_app.tui.transcript.blocks.text import UserBlock

        starts = [transcript.block_rows(b)[0] for b in transcript.blocks_of(UserBlock)]
        assert len(starts) == 3
        await pilot.press("ctrl+shift+up")
        await pilot.pause()
        assert int(transcript.scroll_offset.y) == starts[2]
        assert not transcript.following
        await pilot.press("ctrl+shift+up")
        await pilot.pause()
        assert int(transcript.scroll_offset.y) == starts[1]
        await pilot.press("ctrl+shift+down")
        await pilot.pause()
        assert int(transcript.scroll_offset.y) == starts[2]
        height = transcript.scrollable_content_region.height
        await pilot.press("alt+u")
        await pilot.pause()
        assert int(transcript.scroll_offset.y) == starts[2] - height // 2
        await pilot.press("alt+d")
        await pilot.pause()
        assert int(transcript.scroll_offset.y) == starts[2]
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_offset.y == 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert transcript.following


async def test_a_long_transcript_is_measured_in_slices_while_typing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Past SYNC_MEASURE_LIMIT unmeasured blocks the search says ``searching…``, measures in time
    slices (the app keeps taking keys and painting), then shows every match."""
    from textual.app import App, ComposeResult

    from pi_app.ai.types import AssistantMessage, TextContent
    from pi_app.tui.transcript import view as transcript_module
    from pi_app.tui.transcript.view import Transcript

    monkeypatch.setattr(transcript_module, "SYNC_MEASURE_LIMIT", 5)
    monkeypatch.setattr(transcript_module, "MEASURE_SLICE_S", 0.0)  # one block per slice

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Transcript()

    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)
        for i in range(40):
            transcript.add_user(f"question {i}，好吗？")
            transcript.end_assistant(
                AssistantMessage(content=[TextContent(text=f"Answer {i} with a needle 😀")], timestamp=i)
            )
        await pilot.pause()
        state = transcript.set_search("NEEDLE")
        assert state is not None and state.pending and state.counter() == "searching…"
        await wait_for(pilot, lambda: not state.pending)
        assert len(state.matches) == 40 and state.counter() == "40/40"
        rows = [m.row for m in state.matches]
        assert rows == sorted(rows) and len(set(rows)) == 40
        # every match row really shows the word (heights were exact when rows were counted)
        transcript.scroll_to(y=0, animate=False)
        await pilot.pause()
        lines = transcript.plain_lines()
        assert all("needle" in lines[row] for row in rows)


async def test_the_search_key_works_while_a_selector_has_the_keyboard(tmp_path: Path) -> None:
    """As 1.6.0: with /settings open, Ctrl+Shift+F still searches the transcript; closing the
    search gives the keyboard back to the settings list."""
    app, _ = make_app(tmp_path, [[text("an answer with 针 in it")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"ask", "enter")
        await wait_for(pilot, lambda: "针" in notes(app) and not app.is_working)
        await pilot.press(*"/settings", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        settings = app.screen.query_one("#settings-selector")
        await wait_for(pilot, lambda: settings.has_focus or settings.has_focus_within)
        await pilot.press("ctrl+shift+f")
        await wait_for(pilot, lambda: bool(app.screen.query(SearchBar)))
        bar = app.screen.query_one(SearchBar)
        await wait_for(pilot, lambda: bar.has_focus)
        await pilot.press("针")
        await wait_for(
            pilot, lambda: app.transcript.search is not None and app.transcript.search.counter() == "1/1"
        )
        assert settings.model.query == ""  # the typing went to the search, not the list
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.screen.query(SearchBar))
        await wait_for(pilot, lambda: settings.has_focus or settings.has_focus_within)


async def test_scrolled_up_the_last_row_says_how_to_jump_back(tmp_path: Path) -> None:
    """1.6.0's "↓ Jump to latest message · Ctrl+End" while the view is away from the end; the key
    follows the keybindings; back at the end it is gone."""
    long = "\n\n".join(f"Line {i}." for i in range(60))
    app, _ = make_app(tmp_path, [[text(long)]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"long", "enter")
        await wait_for(pilot, lambda: "Line 59." in notes(app) and not app.is_working)
        transcript = app.transcript
        last = transcript.scrollable_content_region.height - 1
        assert "Jump to latest" not in transcript.render_line(last).text
        await pilot.press("pageup")
        await pilot.pause()
        row = transcript.render_line(last).text
        assert "↓ Jump to latest message · Ctrl+End" in row
        assert len(row) == transcript.scrollable_content_region.width
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert "Jump to latest" not in transcript.render_line(last).text
