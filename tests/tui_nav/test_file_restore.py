"""``/tree`` in the app with file checkpoints: after moving back, pi asks whether to restore the
files (restore / keep / show diff), and a file edited by hand since is not overwritten without a
second question."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import text, tool_call
from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import make_app, selector, submit, wait_for

SCRIPT = [
    [text("Hello.")],
    [
        tool_call("edit", {"path": "a.txt", "edits": [{"oldText": "one", "newText": "two"}]}, id="c1"),
        tool_call("bash", {"command": "rm gone.txt"}, id="c2"),
    ],
    [text("Edited and removed.")],
]


def _notes(app) -> str:
    return " ".join(app.transcript.plain_lines())


async def _back_to_first_prompt(app, pilot) -> ChoiceSelector:
    await submit(app, pilot, "/tree")
    await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
    first_user = next(e for e in app.session.session_manager.get_entries() if e.type == "message")
    selector(app, TreeNavigator).model.select(first_user.id)
    await pilot.press("enter")
    await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
    await pilot.press("enter")  # "No summary"
    await wait_for(pilot, lambda: (s := selector(app, ChoiceSelector)) is not None and "Restore" in s.title)
    return selector(app, ChoiceSelector)


async def test_tree_back_offers_restore_with_a_diff_and_asks_before_overwriting_hand_edits(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("line one\n")
    (project / "gone.txt").write_text("keep me\n")
    (project / "hand.txt").write_text("untouched\n")
    app, _ = make_app(tmp_path / "sessions", cwd=str(project), script=SCRIPT)
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await submit(app, pilot, "hi")
        await wait_for(pilot, lambda: "Hello." in _notes(app) and not app.is_working)
        await submit(app, pilot, "change things")
        await wait_for(pilot, lambda: "Edited and removed." in _notes(app) and not app.is_working)
        assert (project / "a.txt").read_text() == "line two\n" and not (project / "gone.txt").exists()

        question = await _back_to_first_prompt(app, pilot)
        assert question.title == "2 files changed since this point. Restore them?"
        await pilot.press("down", "down", "enter")  # Show diff: into the transcript, then asked again
        await wait_for(pilot, lambda: "+line one" in _notes(app))
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("enter")  # Restore files
        await wait_for(pilot, lambda: "Restored 2 files" in _notes(app))
        assert (project / "a.txt").read_text() == "line one\n"
        assert (project / "gone.txt").read_text() == "keep me\n"

        # forward again, after editing a.txt by hand: it is kept unless the user says overwrite
        (project / "a.txt").write_text("my own words\n")
        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        last = [e for e in app.session.session_manager.get_entries() if e.type == "message"][-1]
        selector(app, TreeNavigator).model.select(last.id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("enter")  # No summary
        await wait_for(
            pilot, lambda: (s := selector(app, ChoiceSelector)) is not None and "Restore" in s.title
        )
        await pilot.press("enter")  # Restore files
        await wait_for(
            pilot, lambda: (s := selector(app, ChoiceSelector)) is not None and "outside pi" in s.title
        )
        assert "a.txt" in selector(app, ChoiceSelector).title
        await pilot.press("enter")  # keep those files
        await wait_for(pilot, lambda: "kept 1 file changed outside pi" in _notes(app))
        assert (project / "a.txt").read_text() == "my own words\n"
        assert not (project / "gone.txt").exists()
        assert (project / "hand.txt").read_text() == "untouched\n"


async def test_fork_at_the_changing_prompt_offers_the_files_as_they_were_before_it(tmp_path: Path) -> None:
    from pi_app.tui.selectors.fork import ForkSelector

    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("line one\n")
    (project / "gone.txt").write_text("keep me\n")
    app, _ = make_app(tmp_path / "sessions", cwd=str(project), script=SCRIPT)
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await submit(app, pilot, "hi")
        await wait_for(pilot, lambda: "Hello." in _notes(app) and not app.is_working)
        await submit(app, pilot, "change things")
        await wait_for(pilot, lambda: "Edited and removed." in _notes(app) and not app.is_working)
        first_file = app.session.session_file

        await submit(app, pilot, "/fork")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is not None)
        await pilot.press("enter")  # the newest prompt, "change things": the fork holds what came before
        await wait_for(
            pilot, lambda: (s := selector(app, ChoiceSelector)) is not None and "Restore" in s.title
        )
        assert app.session.session_file != first_file and app.editor.text == "change things"
        await pilot.press("enter")  # Restore files
        await wait_for(pilot, lambda: "Restored 2 files" in _notes(app))
        assert (project / "a.txt").read_text() == "line one\n"
        assert (project / "gone.txt").read_text() == "keep me\n"
