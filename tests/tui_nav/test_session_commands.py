"""Sessions as first-class objects in the real app: what every move repaints (transcript without
a half-built frame, footer, title), ``/new``, ``/name``, ``/session``, and the ``/resume`` picker's
all-projects toggle, rename and delete, checked against the files on disk."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.session import SessionManager
from pi_app.tui.chrome.footer import footer_lines
from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.sessions import SessionPicker
from pi_app.tui.selectors.tree import TreeNavigator
from pi_app.tui.transcript.blocks import AssistantBlock, UserBlock
from tests.session.helpers import assistant, user
from tests.tui_nav.app_helpers import CWD, file_entries, make_app, selector, send, submit, wait_for


def footer_text(app) -> str:
    return " ".join(str(line) for line in footer_lines(app.footer.state, 120))


def shown(app) -> str:
    return " ".join(" ".join(app.transcript.plain_lines()).split())


def conversation(app) -> tuple[str, ...]:
    """The kinds of the message blocks in the transcript, top to bottom."""
    return tuple(
        type(b).__name__ for b in app.transcript.blocks if isinstance(b, (UserBlock, AssistantBlock))
    )


async def test_a_move_repaints_transcript_in_one_frame_and_updates_footer() -> None:
    app, _ = make_app(None)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "one")
        await send(app, pilot, "two")
        used = app.footer.state.usage.input
        assert used > 0
        frames: list[tuple[str, ...]] = []
        transcript = app.transcript
        paint = transcript.render_lines

        def recording(crop):
            frames.append(conversation(app))
            return paint(crop)

        transcript.render_lines = recording  # every frame the compositor asks the transcript for
        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        # the latest exchange stays in view above the navigator, which took the editor's place
        await wait_for(pilot, lambda: transcript.max_scroll_y > 0)
        await pilot.pause(0.1)
        assert transcript.scroll_offset.y == transcript.max_scroll_y
        nav = selector(app, TreeNavigator)
        entries = file_entries(app.session.session_file)
        two = next(
            e for e in entries if e["type"] == "message" and e["message"]["content"][0]["text"] == "two"
        )
        nav.model.select(two["id"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("enter")  # no summary
        await wait_for(pilot, lambda: app.editor.text == "two")
        await pilot.pause(0.1)
        before, after = ("UserBlock", "AssistantBlock") * 2, ("UserBlock", "AssistantBlock")
        assert conversation(app) == after
        assert frames and set(frames) <= {before, after}, set(frames)  # never an empty or partial one
        assert frames[-1] == after
        # the footer's totals count every branch in the file; the context is the new path's
        assert app.footer.state.usage.input == used
        assert app.footer.state.context_tokens < app.session.get_context_usage().context_window


async def test_new_name_and_session_info(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "one")
        first_file = app.session.session_file

        await submit(app, pilot, "/name")
        await wait_for(pilot, lambda: "Usage: /name <name>" in shown(app))
        await submit(app, pilot, "/name Bug hunt")
        await wait_for(pilot, lambda: "Session name set: Bug hunt" in shown(app))
        info = file_entries(first_file)[-1]
        assert info["type"] == "session_info" and info["name"] == "Bug hunt"
        assert info["parentId"] == file_entries(first_file)[-2]["id"]
        assert "• Bug hunt" in footer_text(app) and "Bug hunt" in app.title
        await submit(app, pilot, "/name")
        await wait_for(pilot, lambda: "Session name: Bug hunt" in shown(app))

        await submit(app, pilot, "/session")
        await wait_for(pilot, lambda: "Session Info" in shown(app))
        report = shown(app)
        assert "Name: Bug hunt" in report and Path(first_file).stem[-12:] in report, report
        assert "User: 1" in report and "Assistant: 1" in report

        await submit(app, pilot, "/new")
        await wait_for(pilot, lambda: "New session started" in shown(app))
        assert app.session.session_file != first_file and "one" not in shown(app)
        assert "Bug hunt" not in footer_text(app) and app.footer.state.usage.input == 0
        await send(app, pilot, "fresh start")
        fresh = file_entries(app.session.session_file)
        assert fresh[0]["type"] == "session" and "parentSession" not in fresh[0]
        assert [e["message"]["role"] for e in fresh if e["type"] == "message"] == ["user", "assistant"]
        assert file_entries(first_file)[-1] == info  # the old file is untouched


def saved_session(cwd: str, first: str) -> str:
    """A session of ``cwd`` in the default sessions folder (under the test's agent dir)."""
    sm = SessionManager.create(cwd, None)
    sm.append_message(user(first))
    sm.append_message(assistant(f"about {first}"))
    return sm.get_session_file()


async def test_resume_picker_all_projects_rename_and_delete() -> None:
    older = saved_session(CWD, "older work")
    elsewhere = saved_session("/elsewhere/project", "other project work")
    app, _ = make_app(None)  # the default sessions folder, like ``pi``
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "current work")
        current = app.session.session_file

        await submit(app, pilot, "/resume")
        await wait_for(pilot, lambda: selector(app, SessionPicker) is not None)
        picker = selector(app, SessionPicker)
        await wait_for(pilot, lambda: len(picker.model.rows) == 2)
        assert picker.row_texts() == ["current work", "older work"]  # last activity first
        await pilot.press("tab")  # every project
        await wait_for(pilot, lambda: len(picker.model.rows) == 3)
        assert "other project work" in picker.row_texts() and picker.scope == "all"
        await pilot.press("tab")
        await wait_for(pilot, lambda: len(picker.model.rows) == 2)

        # rename a session that is not open: a session_info entry at the end of its file
        await pilot.press("down", "ctrl+r", *"Old", "enter")
        await wait_for(pilot, lambda: file_entries(older)[-1]["type"] == "session_info")
        assert file_entries(older)[-1]["name"] == "Old"
        await wait_for(pilot, lambda: "Old" in picker.row_texts())
        # rename the open session: through the session, and the footer shows it
        picker.model.cursor.select([r.info.path for r in picker.model.rows].index(current))
        await pilot.press("ctrl+r", *"Mine", "enter")
        await wait_for(pilot, lambda: file_entries(current)[-1].get("name") == "Mine")
        assert app.session.session_name == "Mine" and "• Mine" in footer_text(app)

        # delete another project's session (after confirming); the open one is refused
        await pilot.press("ctrl+d")
        assert picker.status == ("error", "Cannot delete the currently active session")
        await pilot.press("tab")
        await wait_for(pilot, lambda: len(picker.model.rows) == 3)
        picker.model.cursor.select([r.info.path for r in picker.model.rows].index(elsewhere))
        await pilot.press("ctrl+d")
        assert Path(elsewhere).exists()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not Path(elsewhere).exists())
        assert len(picker.model.rows) == 2 and Path(older).exists() and Path(current).exists()

        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, SessionPicker) is None)
        assert app.editor.display and app.session.session_file == current


async def test_double_escape_opens_the_configured_navigator() -> None:
    from pi_app.tui.selectors.fork import ForkSelector

    app, _ = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(app, pilot, "one")
        app.settings.set_tree_filter_mode("user-only")
        await pilot.press("escape", "escape")  # on an empty editor: /tree (doubleEscapeAction)
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        nav = selector(app, TreeNavigator)
        assert nav.model.filter_mode == "user-only"  # the initial filter is the setting's
        assert [r.plain() for r in nav.model.rows()] == ["› • user: one"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is None)

        app.settings.set_double_escape_action("fork")
        await pilot.pause(0.6)  # the closing Escape above does not count as the first of a pair
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is not None)
        assert [c.text for c in selector(app, ForkSelector).candidates] == ["one"]
