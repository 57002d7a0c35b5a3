"""App-level keys a pi user presses (R-KEY-03, R-INT, R-TUI-04/09/10), driven through the real app.

The model is scripted (``pi_app.ai.testing.fake_provider``); the session, settings and editor are
the real ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pi_app.ai.testing import fake_model, hang, text, thinking
from pi_app.tui.transcript.blocks import AssistantBlock
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started


async def test_ctrl_t_hides_thinking_persists_the_setting_and_shows_it_again(tmp_path: Path) -> None:
    script = [[thinking("Weighing the options carefully."), text("The answer is 42.")]]
    models = [fake_model("thinker", reasoning=True)]
    app, _ = make_app(tmp_path, script, models=models, thinking_level="high")
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"why", "enter")
        await wait_for(pilot, lambda: "The answer is 42." in notes(app) and not app.is_working)
        assert "Weighing the options carefully." in notes(app)
        await pilot.press("ctrl+t")
        await pilot.pause()
        shown = notes(app)
        assert "Weighing the options carefully." not in shown and "Thinking..." in shown
        assert "Thinking blocks: hidden" in shown
        assert app.settings.get_hide_thinking_block() is True
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "Weighing the options carefully." in notes(app)
        assert "Thinking blocks: visible" in notes(app)
        assert app.settings.get_hide_thinking_block() is False


async def test_alt_up_pulls_every_queued_message_back_into_the_editor(tmp_path: Path) -> None:
    app, provider = make_app(tmp_path, [[text("Working on it", chunks=2), hang()]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: "No queued messages to restore" in notes(app))
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: app.is_working and "Working on it" in notes(app))
        await pilot.press(*"first steer", "enter", *"then follow", "alt+enter")
        await wait_for(pilot, lambda: "Follow-up: then follow" in str(app.pending.render()))
        await pilot.press(*"draft")
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: "Restored 2 queued message(s) to editor" in notes(app))
        assert app.editor.text == "first steer\n\nthen follow\n\ndraft"
        assert str(app.pending.render()) == ""
        assert app.is_working  # dequeuing does not abort the running turn
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_working)
        assert len(provider.calls) == 1  # the queued texts never reached the model


async def test_ctrl_p_and_shift_ctrl_p_cycle_models_with_the_thinking_level(tmp_path: Path) -> None:
    models = [
        fake_model("alpha-1", reasoning=True),
        fake_model("beta-2", reasoning=True),
        fake_model("gamma-3"),
    ]
    app, _ = make_app(tmp_path, models=models, thinking_level="medium")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        assert app.session.model.id == "alpha-1"
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.session.model.id == "beta-2")
        await wait_for(pilot, lambda: "Switched to" in notes(app))
        assert "(thinking: medium)" in notes(app).splitlines()[-1]
        assert "beta-2 • medium" in str(app.footer.render())
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.session.model.id == "gamma-3")
        await wait_for(pilot, lambda: notes(app).splitlines()[-1].strip() == "Switched to gamma-3")
        await pilot.press("ctrl+shift+p")
        await wait_for(pilot, lambda: app.session.model.id == "beta-2")
        await pilot.press("ctrl+shift+p", "ctrl+shift+p")
        await wait_for(pilot, lambda: app.session.model.id == "gamma-3")
        assert not app.screen.query("CommandPalette")  # Textual's palette stays off (R-TUI-04)


async def test_ctrl_p_with_one_model_says_so(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: "Only one model available" in notes(app))


async def test_textual_default_keys_do_not_quit_or_move_focus(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+q", "tab", "tab")
        await pilot.pause()
        assert app.is_running and app.editor.has_focus
        assert not app.screen.query("CommandPalette")


async def test_ctrl_g_edits_the_prompt_in_the_external_editor(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "fake-editor.py"
    script.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "old = open(path).read()\n"
        "open(path, 'w').write(old.upper() + ' edited\\n')\n"
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"draft")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.editor.text == "DRAFT edited")
        leftovers = list(Path(__import__("tempfile").gettempdir()).glob("pi-editor-*.pi.md"))
        assert not [p for p in leftovers if p.read_text(errors="ignore").startswith("DRAFT")]


async def test_ctrl_g_with_a_failing_editor_keeps_the_text(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("VISUAL", f"{sys.executable} -c 'raise SystemExit(3)'")
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"keep me", "ctrl+g")
        await pilot.pause(0.5)
        assert app.editor.text == "keep me"


async def test_ctrl_g_without_an_editor_explains_how_to_set_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setattr("pi_app.tui.commands.actions.platform_editor", lambda: None)  # no nano either
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: "No editor configured. Set externalEditor in settings" in notes(app))


async def test_ctrl_g_uses_the_external_editor_setting_first(tmp_path: Path, monkeypatch) -> None:
    # pi 1.6.0: externalEditor, then $VISUAL, then $EDITOR, then nano
    script = tmp_path / "setting-editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('from the setting\\n')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} -c 'raise SystemExit(3)'")
    app, _ = make_app(tmp_path, settings={"externalEditor": f"{sys.executable} {script}"})
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"draft", "ctrl+g")
        await wait_for(pilot, lambda: app.editor.text == "from the setting")


async def test_ctrl_z_suspends_the_process(tmp_path: Path, monkeypatch) -> None:
    app, _ = make_app(tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(app, "action_suspend_process", lambda: calls.append("suspend"))
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert calls == ["suspend"] and app.is_running


async def test_editing_keys_kill_yank_rotate_undo_and_move_by_words(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        editor = app.editor
        await pilot.press(*"one two three")
        await pilot.press("ctrl+w")  # kill "three"
        assert editor.text == "one two "
        await pilot.press("ctrl+a", "ctrl+k")  # kill the whole line: a new ring entry
        assert editor.text == ""
        await pilot.press("ctrl+y")
        assert editor.text == "one two "
        await pilot.press("alt+y")  # rotate to the older kill
        assert editor.text == "three"
        await pilot.press("ctrl+minus")
        assert editor.text == "one two "
        await pilot.press("ctrl+u")
        await pilot.press(*"alpha beta", "alt+b", "alt+d")
        assert editor.text == "alpha "
        await pilot.press("alt+b", "ctrl+e", "alt+backspace")
        assert editor.text == ""


async def test_escape_clears_a_bash_command_and_double_escape_opens_the_tree(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Hi.")]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"!ls -la", "escape")
        assert app.editor.text == ""
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "Hi." in notes(app) and not app.is_working)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: bool(app.screen.query("#tree-rows")))
        assert not app.editor.has_focus


async def test_remapped_app_actions_follow_the_user_file(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "keybindings.json").write_text(
        json.dumps({"app.tools.expand": "ctrl+x", "app.thinking.cycle": ["f2"], "app.model.select": []})
    )
    models = [fake_model("thinker", reasoning=True)]
    app, _ = make_app(tmp_path, models=models, thinking_level="low", agent_dir=agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        header = notes(app)
        assert "ctrl+x more" in header and "Press ctrl+x to show full startup help" in header
        await pilot.press("ctrl+x")  # expands the start-up header now
        await pilot.pause()
        assert "f2 to cycle thinking level" in notes(app)
        assert "to select model" not in notes(app)  # unbound: not advertised
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.session.thinking_level == "medium")
        await pilot.press("shift+tab", "ctrl+l")  # the old keys do nothing any more
        await pilot.pause(0.2)
        assert app.session.thinking_level == "medium"
        assert not app.screen.query("#model-selector")


async def test_a_streamed_answer_shows_while_it_arrives(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Partial words arrive", chunks=3), hang()]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "Partial words arrive" in notes(app))
        assert app.is_working and "Working" in str(app.status_line.render())
        assert [b.plain_text() for b in app.transcript.blocks_of(AssistantBlock)] == ["Partial words arrive"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_working)


async def test_shift_page_keys_and_the_mouse_wheel_scroll_the_transcript(tmp_path: Path) -> None:
    from textual import events

    long_answer = "\n\n".join(f"Paragraph {i}." for i in range(60))
    app, _ = make_app(tmp_path, [[text(long_answer)]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"long", "enter")
        await wait_for(pilot, lambda: "Paragraph 59." in notes(app) and not app.is_working)
        await pilot.pause()
        transcript = app.transcript
        bottom = transcript.max_scroll_y
        assert bottom > 0 and transcript.scroll_offset.y == bottom
        await pilot.press("shift+pageup")
        await pilot.pause()
        assert transcript.scroll_offset.y < bottom
        await pilot.press("shift+pagedown")
        await pilot.pause()
        assert transcript.scroll_offset.y == bottom
        transcript.post_message(events.MouseScrollUp(transcript, 5, 5, 0, 0, 0, False, False, False))
        await pilot.pause(0.3)
        assert transcript.scroll_offset.y < bottom
        assert app.editor.has_focus  # scrolling never takes the focus from the editor


async def test_page_keys_scroll_the_transcript_unless_the_editor_overflows(tmp_path: Path) -> None:
    """Issue 17, defect 4: PageUp/PageDown page the transcript as in pi 1.6.0; an editor with more
    lines than its box keeps them for itself, and an open completion list pages its items."""
    long_answer = "\n\n".join(f"Paragraph {i}." for i in range(80))
    app, _ = make_app(tmp_path, [[text(long_answer)]])
    async with app.run_test(size=(90, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"long", "enter")
        await wait_for(pilot, lambda: "Paragraph 79." in notes(app) and not app.is_working)
        await pilot.pause()
        transcript = app.transcript
        bottom = transcript.max_scroll_y
        assert bottom > 0 and transcript.scroll_offset.y == bottom
        await pilot.press("pageup")
        await pilot.pause()
        after_one = transcript.scroll_offset.y
        assert after_one < bottom
        for _ in range(20):
            await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_offset.y == 0  # the first message is back on screen
        await pilot.press("pagedown")
        await pilot.pause()
        assert transcript.scroll_offset.y > 0
        assert app.editor.has_focus

        # a tall draft: the keys move the editor's cursor, the transcript stays
        app.editor.set_text("\n".join(f"draft line {i}" for i in range(30)))
        await pilot.pause()
        assert app.editor.overflows()
        before = transcript.scroll_offset.y
        row = app.editor.buffer.cursor_line
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_offset.y == before and app.editor.buffer.cursor_line < row

        # an open completion list pages its items
        app.editor.set_text("")
        await pilot.press("/")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        before = transcript.scroll_offset.y
        await pilot.press("pagedown")
        await pilot.pause()
        suggestions = app.editor.suggestions
        assert suggestions is not None and suggestions.selected > 0
        assert transcript.scroll_offset.y == before
