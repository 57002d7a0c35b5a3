"""The ``/tree`` flow around the navigator: the summary question, custom instructions, aborting a
summary, and selecting the current leaf (spec 60 R-SEL-01, spec 30 R-NAV-02)."""

from __future__ import annotations

from pi_app.ai.testing import delay, text
from pi_app.tui.selectors.choice import BusyPanel, ChoiceSelector, TextPrompt
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import make_app, selector, submit, wait_for
from tests.tui_nav.helpers import branched_session


async def _open_tree(app, pilot) -> TreeNavigator:
    await submit(app, pilot, "/tree")
    await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
    return selector(app, TreeNavigator)


def _notes(app) -> str:
    return " ".join(app.transcript.plain_lines())


async def test_current_leaf_escape_on_question_and_custom_instructions() -> None:
    b = branched_session()
    app, provider = make_app(None, manager=b.sm, script=[[text("Summary: tests were written.")]])
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        nav = await _open_tree(app, pilot)
        await pilot.press("enter")  # the leaf is selected on open
        await wait_for(pilot, lambda: "Already at this point" in _notes(app))
        assert selector(app, TreeNavigator) is None and app.editor.display

        nav = await _open_tree(app, pilot)
        nav.model.select(b["planned"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("escape")  # back to the tree, same entry
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        assert selector(app, TreeNavigator).model.selected_id == b["planned"]

        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("down", "down", "enter")  # summarize with custom prompt
        await wait_for(pilot, lambda: selector(app, TextPrompt) is not None)
        await pilot.press("escape")  # cancelling the instructions asks the question again
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: selector(app, TextPrompt) is not None)
        selector(app, TextPrompt).area.text = "focus on tests"
        await pilot.press("enter")
        await wait_for(pilot, lambda: b.sm.get_leaf_entry().type == "branch_summary")
        await wait_for(pilot, lambda: "Navigated to selected point" in _notes(app))
        request = provider.calls[-1].context.messages[-1]
        assert "focus on tests" in request.content[0].text
        summary = b.sm.get_leaf_entry()
        assert summary.parent_id == b["planned"] and "tests were written" in summary.summary
        assert app.editor.text == ""  # an assistant entry puts nothing in the editor


async def test_escape_while_summarizing_aborts_and_reopens_the_tree() -> None:
    b = branched_session()
    app, provider = make_app(None, manager=b.sm, script=[[delay(30), text("too late")]])
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        nav = await _open_tree(app, pilot)
        nav.model.select(b["plan"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: selector(app, ChoiceSelector) is not None)
        await pilot.press("down", "enter")  # summarize
        await wait_for(pilot, lambda: selector(app, BusyPanel) is not None)
        assert "Summarizing branch..." in str(selector(app, BusyPanel).label.render())
        await wait_for(pilot, lambda: provider.calls)
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None, timeout=10)
        assert selector(app, TreeNavigator).model.selected_id == b["plan"]
        assert "Branch summarization cancelled" in _notes(app)
        assert b.sm.get_leaf_id() == b["written"]  # nothing moved, nothing written
        assert all(e.type != "branch_summary" for e in b.sm.get_entries())
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is None)
        assert app.editor.display
