"""The ``/tree`` model's cached, incremental rebuilds against a plain reference, on random trees.

The model caches filter results per mode, re-tests only earlier matches when a search narrows,
and warms search texts ahead of time. Whatever the sequence of keys, the visible rows must be
exactly the ones a straightforward definition picks (filter rule, every search token in the
entry's text, not inside a folded branch), and must read exactly like a freshly built model.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_app.ai.types import ToolCall
from pi_app.coding.session import SessionManager
from pi_app.coding.session.tree_filter import TREE_FILTER_MODES, entry_class, searchable_text, visible_in_mode
from pi_app.tui.selectors.tree_model import TreeNavModel
from tests.session.helpers import assistant, tool_result, user
from tests.tui_nav.helpers import branched_session, ticking_clock

WORDS = ("alpha", "beta", "Alp", "ls", "deploy")
LETTERS = "alpbe "
KINDS = ("user", "assistant", "empty", "tool", "model", "label")
ACTIONS = "letter letter backspace backspace word clear filter cycle fold unfold down label label".split()


def build(steps: list[tuple[int, str, int]]) -> SessionManager:
    sm = SessionManager("/p", None, persist=False, clock=ticking_clock())
    ids: list[str] = []
    for n, (parent, kind, word) in enumerate(steps):
        if ids and parent % (len(ids) + 1) < len(ids):  # branch from an earlier entry now and then
            sm.branch(ids[parent % (len(ids) + 1)])
        text = f"{WORDS[word % len(WORDS)]} {n}"
        if kind == "user":
            ids.append(sm.append_message(user(text)))
        elif kind == "assistant":
            ids.append(sm.append_message(assistant(text)))
        elif kind == "empty":
            ids.append(sm.append_message(assistant("")))
        elif kind == "tool":
            call = ToolCall(id=f"c{n}", name="bash", arguments={"command": text})
            ids.append(sm.append_message(assistant("", tool_calls=[call], stop_reason="toolUse")))
            ids.append(sm.append_message(tool_result(call.id, text)))
        elif kind == "model":
            ids.append(sm.append_model_change("fake", text.replace(" ", "-")))
        elif ids:
            ids.append(sm.append_label_change(ids[word % len(ids)], WORDS[word % len(WORDS)]))
    return sm


def everything(model: TreeNavModel) -> list[str]:
    start, end = 0, model.visible_count
    return [model.row_view(i).plain() for i in range(start, end)]


def reference_ids(model: TreeNavModel, roots: list[Any], leaf: str | None) -> list[str]:
    """Depth-first order and row texts from an unfiltered model; the rest by the definition."""
    full = TreeNavModel(roots, leaf, filter_mode="all")
    order = full.visible_ids()
    shown = {
        row.entry_id: "".join(text for text, _ in row.content)
        for row in map(full.row_view, range(len(order)))
    }
    nodes: dict[str, Any] = {}
    parent: dict[str, str | None] = {}
    stack = [(root, None) for root in roots]
    while stack:
        node, up = stack.pop()
        nodes[node.entry.id] = node
        parent[node.entry.id] = up
        stack.extend((child, node.entry.id) for child in node.children)
    tokens = model.search.lower().split()

    def folded_above(entry_id: str) -> bool:
        up = parent[entry_id]
        while up is not None:
            if up in model.folded:
                return True
            up = parent[up]
        return False

    result = []
    for entry_id in order:
        node = nodes[entry_id]
        shows = visible_in_mode(
            entry_class(node.entry),
            model.filter_mode,
            is_leaf=entry_id == leaf,
            labeled=node.label is not None,
        )
        text = f"{searchable_text(node)} {shown[entry_id]}".lower()
        if shows and all(token in text for token in tokens) and not folded_above(entry_id):
            result.append(entry_id)
    return result


@settings(max_examples=120, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 40), st.sampled_from(KINDS), st.integers(0, 20)), min_size=1, max_size=22
    ),
    actions=st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 20)), max_size=16),
    warm=st.booleans(),
)
def test_rows_match_the_reference_after_any_keys(steps, actions, warm) -> None:
    sm = build(steps)
    roots, leaf = sm.get_tree(), sm.get_leaf_id()
    model = TreeNavModel(roots, leaf, page_size=5)
    if warm:
        while not model.warm_search(3):
            pass
    for action, value in actions:
        word = WORDS[value % len(WORDS)]
        if action == "letter":
            model.type_text(LETTERS[value % len(LETTERS)])
        elif action == "word":
            model.type_text(word[: 1 + value % 3])
        elif action == "backspace":
            model.backspace()
        elif action == "clear":
            model.clear_search()
        elif action == "filter":
            model.set_filter(TREE_FILTER_MODES[value % len(TREE_FILTER_MODES)])
        elif action == "cycle":
            model.cycle_filter(1 if value % 2 else -1)
        elif action == "fold":
            model.fold_or_up()
        elif action == "unfold":
            model.unfold_or_down()
        elif action == "down":
            for _ in range(value % 4):
                model.move_down()
        elif model.selected_id:
            model.set_label(model.selected_id, None if value % 3 == 0 else word)
        assert model.visible_ids() == reference_ids(model, roots, leaf)
        if not model.folded:
            fresh = TreeNavModel(roots, leaf, page_size=5, filter_mode=model.filter_mode)
            fresh.type_text(model.search)
            fresh.select(model.selected_id or "")
            assert everything(model) == everything(fresh)


def test_a_label_change_reaches_cached_filters_and_search_texts() -> None:
    b = branched_session()
    model = TreeNavModel(b.sm.get_tree(), b.sm.get_leaf_id(), page_size=30)
    model.type_text("zebra")  # every row's search text is built and cached, none matches
    assert model.visible_ids() == []
    model.clear_search()
    model.set_filter("labeled-only")
    assert model.visible_ids() == []
    model.set_filter("default")
    model.set_label(b["plan"], "zebra")
    model.type_text("zebra")
    assert model.visible_ids() == [b["plan"]]
    model.clear_search()
    model.set_filter("labeled-only")
    assert model.visible_ids() == [b["plan"]]
    model.set_label(b["plan"], None)  # same filter and search: the cached result must not be reused
    assert model.visible_ids() == []
