"""The prompt editor inside the app: keys, newlines, history, autocomplete, paste (R-ED, R-AC)."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Offset

from pi_app.ai.testing import text
from pi_app.tui.app import PiApp
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for


def make_app(tmp_path: Path) -> PiApp:
    factory, _ = fake_session_factory(str(tmp_path))
    return PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")


async def ready(pilot, app: PiApp) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.session is not None)


async def test_shift_enter_ctrl_j_and_backslash_enter_insert_newlines(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"a", "shift+enter", "b", "ctrl+j", *"c\\", "enter")
        assert app.editor.text == "a\nb\nc\n"
        assert app.transcript.blocks[-1].kind != "user"  # nothing was submitted


async def test_up_recalls_history_with_the_cursor_at_the_end(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/hotkeys", "enter")
        await pilot.press("up")
        assert app.editor.text == "/hotkeys"
        buffer = app.editor.buffer
        assert (buffer.cursor_line, buffer.cursor_col) == (0, len("/hotkeys"))
        await pilot.press("down")
        assert app.editor.text == ""


async def test_slash_opens_command_completion_and_enter_runs_the_command(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/se")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        suggestions = app.editor.suggestions
        assert suggestions is not None and suggestions.kind == "command"
        assert suggestions.items[suggestions.selected].value == "settings"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        await pilot.press("escape")
        await pilot.pause()
        assert app.editor.has_focus and app.editor.text == ""


async def test_escape_closes_the_completion_list_before_anything_else(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press("/")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        await pilot.press("escape")
        assert not app.editor.autocomplete_open and app.editor.text == "/"


async def test_at_completion_lists_files_and_tab_inserts_the_path(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"look at @app")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        suggestions = app.editor.suggestions
        assert suggestions is not None
        labels = [(item.label, item.description) for item in suggestions.items]
        assert ("app.py", "src/app.py") in labels
        await pilot.press("tab")  # a list still showing "@ap" is fetched again before Tab applies
        await wait_for(pilot, lambda: app.editor.text == "look at @src/app.py ")


async def test_tab_completes_a_path_with_a_single_candidate(tmp_path: Path) -> None:
    (tmp_path / "notes-for-you.md").write_text("hi\n")
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"cat ./notes-f", "tab")
        await wait_for(pilot, lambda: app.editor.text == "cat ./notes-for-you.md")


async def test_a_large_paste_becomes_a_marker_and_is_sent_in_full(tmp_path: Path) -> None:
    factory, provider = fake_session_factory(str(tmp_path), [[text("ok")]])
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")
    pasted = "\n".join(f"line {i}" for i in range(30))
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        app.editor.paste(pasted)
        assert app.editor.text == "[paste #1 +30 lines]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(provider.calls) == 1)
        assert provider.calls[0].context.messages[-1].content[0].text == pasted


async def test_ctrl_c_clears_and_twice_quits(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"draft", "ctrl+c")
        assert app.editor.text == ""
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0


async def test_ctrl_d_deletes_forward_unless_the_editor_is_empty(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"ab", "left", "ctrl+d")
        assert app.editor.text == "a" and app.is_running
        await pilot.press("backspace", "ctrl+d")
        await wait_for(pilot, lambda: not app.is_running)


async def test_bang_text_turns_the_border_bash_coloured(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"!ls")
        assert app.editor.effective_border_token() == "bashMode"
        await pilot.press("escape")  # Escape in bash mode clears the editor (R-INT-07)
        await pilot.pause()
        assert app.editor.text == ""


async def test_user_bash_runs_and_shows_its_output(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"!echo hello-from-bash", "enter")
        await wait_for(pilot, lambda: app.user_bash is not None and not app.user_bash.running)
        lines = [line.strip() for line in app.transcript.plain_lines()]
        assert "$ echo hello-from-bash" in lines and "hello-from-bash" in lines
        assert [getattr(m, "role", None) for m in app.session.messages] == ["bashExecution"]


async def test_ime_anchor_follows_double_width_text(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"你好")
        await pilot.pause()
        region = app.editor.content_region
        assert app.cursor_position == Offset(region.x + 4, region.y + 1)


async def test_enter_on_an_empty_completion_list_submits_the_text(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/debug")  # a hidden command: the list says "No matching commands"
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        assert app.editor.suggestions is not None and not app.editor.suggestions.items
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Debug log written to" in "\n".join(app.transcript.plain_lines()))
        assert app.editor.text == ""
