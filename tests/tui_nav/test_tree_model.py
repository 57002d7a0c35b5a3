"""The headless tree navigator model: what the user sees in ``/tree`` and how keys move it."""

from __future__ import annotations

from datetime import datetime

from pi_app.coding.session import SessionManager
from pi_app.tui.selectors.tree_model import TreeNavModel, format_label_time, format_tool_call
from tests.session.helpers import assistant, user
from tests.tui_nav.helpers import PI_REFERENCE, branched_session, ticking_clock


def model_for(b, **kwargs) -> TreeNavModel:
    kwargs.setdefault("page_size", 30)
    return TreeNavModel(b.sm.get_tree(), b.sm.get_leaf_id(), **kwargs)


def lines(model: TreeNavModel) -> list[str]:
    return [row.plain() for row in model.rows()]


def test_whole_tree_with_active_branch_first_and_connectors() -> None:
    model = model_for(branched_session())
    assert lines(model) == [
        "  • user: hello",
        "  • assistant: hi there",
        "  ├⊟ • user: write the tests",
        "› │     • assistant: tests written ← active",
        "  └⊟ user: plan the refactor",
        "        [bash: ls -la]",
        "        assistant: here is the plan",
    ]
    assert model.status_text() == "(4/7)"


def test_active_branch_is_listed_first_even_when_it_is_the_newer_one() -> None:
    b = branched_session()
    b.sm.branch(b["planned"])  # now the older branch is active
    model = model_for(b)
    texts = lines(model)
    assert texts[2] == "  ├⊟ • user: plan the refactor"
    assert texts[-2:] == ["  └⊟ user: write the tests", "        assistant: tests written"]


def test_filter_modes_cycle_and_toggle() -> None:
    b = branched_session()
    b.sm.append_label_change(b["plan"], "refactor")
    model = model_for(b)
    assert model.filter_mode == "default" and model.visible_count == 7
    model.cycle_filter()
    assert model.filter_mode == "no-tools" and "[bash: ls -la]" not in " ".join(lines(model))
    model.cycle_filter()
    assert model.filter_mode == "user-only"
    assert [r.content[-1][0] for r in model.rows()] == ["hello", "write the tests", "plan the refactor"]
    model.cycle_filter()
    assert model.filter_mode == "labeled-only"
    assert lines(model) == ["› [refactor] user: plan the refactor"]
    assert model.status_text() == "(1/1) [labeled]"
    model.cycle_filter()
    assert (
        model.filter_mode == "all" and model.visible_count == 11
    )  # + model, thinking, label, empty assistant
    model.cycle_filter(-1)
    assert model.filter_mode == "labeled-only"
    model.toggle_filter("labeled-only")
    assert model.filter_mode == "default"


def test_hidden_entries_leave_no_gap_and_selection_stays_on_the_same_entry() -> None:
    b = branched_session()
    model = model_for(b, selected_id=b["planned"])
    model.set_filter("user-only")
    # the selection walks up to the nearest visible ancestor
    assert model.selected_id == b["plan"]
    assert lines(model) == ["  • user: hello", "  ├─ • user: write the tests", "› └─ user: plan the refactor"]


def test_search_matches_every_token_and_escape_clears_it() -> None:
    b = branched_session()
    model = model_for(b)
    model.type_text("plan")
    assert [r.entry_id for r in model.rows()] == [b["plan"], b["planned"]]
    model.type_text(" here")
    assert [r.entry_id for r in model.rows()] == [b["planned"]]
    model.backspace()
    model.type_text("x")
    assert model.visible_count == 0 and model.status_text() == "(0/0)"
    assert model.clear_search() and model.visible_count == 7
    assert not model.clear_search()


def test_fold_unfold_and_jump_between_branches() -> None:
    b = branched_session()
    model = model_for(b, selected_id=b["plan"])
    model.fold_or_up()  # fold "plan the refactor"
    assert b["plan"] in model.folded
    assert lines(model)[-1] == "› └⊞ user: plan the refactor"
    assert model.visible_count == 5
    model.unfold_or_down()
    assert model.visible_count == 7
    # not foldable (a plain row): jumps
    model.select(b["planned"])
    model.fold_or_up()
    assert model.selected_id == b["plan"]  # start of this branch segment
    model.select(b["hello"])
    model.unfold_or_down()
    assert model.selected_id == b["tests"]  # first child of the branch point
    model.select(b["tests"])
    model.fold_or_up()  # foldable: folds instead of jumping
    assert b["tests"] in model.folded


def test_moves_wrap_and_pages_clamp() -> None:
    b = branched_session()
    model = model_for(b, page_size=3)
    model.select(b["hello"])
    model.move_up()
    assert model.selected_id == b["planned"]  # wrapped to the bottom
    model.move_down()
    assert model.selected_id == b["hello"]
    model.page_down()
    assert model.selected == 3
    model.page_down()
    model.page_down()
    assert model.selected == 6
    assert model.window() == (4, 7)  # the last page, selection visible
    model.page_up()
    assert model.window() == (2, 5)


def test_labels_show_and_filter_and_can_be_cleared() -> None:
    b = branched_session()
    model = model_for(b)
    model.set_label(b["hi"], "checkpoint")
    assert "[checkpoint] assistant: hi there" in lines(model)[1]
    model.set_filter("labeled-only")
    assert [r.entry_id for r in model.rows()] == [b["hi"]]
    model.type_text("check")
    assert model.visible_count == 1
    model.set_label(b["hi"], None)
    assert model.visible_count == 0


def test_label_timestamps_toggle() -> None:
    b = branched_session()
    b.sm.append_label_change(b["hello"], "start")
    tree = b.sm.get_tree()
    model = TreeNavModel(tree, b.sm.get_leaf_id(), now=lambda: datetime(2030, 1, 1))
    model.toggle_label_timestamps()
    row = next(r for r in model.rows() if r.label == "start")
    assert row.label_time and "/" in row.label_time
    assert model.status_text().endswith("[+label time]")
    assert format_label_time("2026-03-09T14:05:00.000Z", datetime(2026, 3, 9, 20)).count(":") == 1


def test_several_roots_are_branches_of_an_invisible_root() -> None:
    sm = SessionManager("/p", None, persist=False, clock=ticking_clock())
    first = sm.append_message(user("first root"))
    sm.append_message(assistant("answer one"))
    sm.reset_leaf()
    sm.append_message(user("second root"))
    model = TreeNavModel(sm.get_tree(), sm.get_leaf_id())
    # roots sit at the left edge (no connector); what hangs below each root is indented
    assert lines(model) == [
        "› • user: second root ← active",
        "  user: first root",
        "     assistant: answer one",
    ]
    model.select(first)
    model.fold_or_up()
    assert lines(model)[-1] == "› ⊞ user: first root"


def test_tool_calls_summarised_like_pi() -> None:
    assert format_tool_call("read", {"path": "/x/a.py", "offset": 10, "limit": 5}) == "[read: /x/a.py:10-14]"
    assert format_tool_call("bash", {"command": "x" * 60}) == f"[bash: {'x' * 50}...]"
    assert format_tool_call("grep", {"pattern": "foo"}) == "[grep: /foo/ in .]"
    assert format_tool_call("mytool", {"a": 1}) == '[mytool: {"a":1}]'


def test_a_session_written_by_typescript_pi_opens() -> None:
    sm = SessionManager.open(PI_REFERENCE / "session-tui-0.58.3.jsonl")
    model = TreeNavModel(sm.get_tree(), sm.get_leaf_id())
    assert lines(model) == [
        "  • user: hello",
        "  • assistant: Hello! I am the **fake model**.  - item one - item two  ```python print('hi') ```",
        "  • user: list the files",
        "  • assistant: Let me list the files.",
        "  • [bash: ls]",
        "› • assistant: The directory contains a.txt and b.txt. ← active",
    ]


def test_a_deep_linear_session_builds_without_recursion() -> None:
    sm = SessionManager("/p", None, persist=False, clock=ticking_clock())
    for i in range(3000):
        sm.append_message(user(f"question {i}") if i % 2 == 0 else assistant(f"answer {i}"))
    model = TreeNavModel(sm.get_tree(), sm.get_leaf_id(), page_size=10)
    assert model.visible_count == 3000 and model.selected == 2999
    model.fold_or_up()  # a long chain: jump to its start
    assert model.selected == 0
    model.unfold_or_down()
    assert model.selected == 2999
