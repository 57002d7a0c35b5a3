"""Navigator filters and search (R-TREE-09); project trust (R-TRUST)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.coding.session import SessionManager
from pi_app.coding.session.tree_filter import matches_search, tree_filter
from pi_app.coding.trust import TrustStore, decide_project_trust, has_trust_requiring_resources
from tests.session.helpers import assistant, tool_result, user


def _visible(sm: SessionManager, mode: str) -> list[str]:
    out, stack = [], list(reversed(sm.get_tree()))
    while stack:
        node = stack.pop()
        if tree_filter(node, mode, sm.get_leaf_id()):
            out.append(node.entry.type if node.entry.type != "message" else node.entry.role)
        stack.extend(reversed(node.children))
    return out


def test_filter_modes() -> None:
    sm = SessionManager.in_memory("/p")
    sm.append_model_change("p", "m")
    first = sm.append_message(user("find the bug"))
    sm.append_message(assistant("", stop_reason="toolUse"))  # no text: hidden
    sm.append_message(tool_result("c", "output"))
    sm.append_message(assistant("found it"))
    sm.append_label_change(first, "bug hunt")
    assert _visible(sm, "default") == ["user", "toolResult", "assistant"]
    assert _visible(sm, "no-tools") == ["user", "assistant"]
    assert _visible(sm, "user-only") == ["user"]
    assert _visible(sm, "labeled-only") == ["user"]
    assert len(_visible(sm, "all")) == 6
    node = sm.get_tree()[0].children[0]
    assert (
        matches_search(node, "BUG find")
        and matches_search(node, "hunt")
        and not matches_search(node, "bug zebra")
    )


def test_trust_nearest_ancestor_and_order(tmp_path: Path) -> None:
    project = tmp_path / "work" / "proj"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text("{}")
    store = TrustStore(tmp_path / "trust.json")
    assert has_trust_requiring_resources(project)
    assert not has_trust_requiring_resources(tmp_path)
    undecided = decide_project_trust(project, store, "ask", interactive=False)
    assert not undecided.trusted and "--approve" in undecided.notice
    assert decide_project_trust(project, store, "ask", interactive=True).needs_prompt
    assert decide_project_trust(project, store, "always").trusted
    assert decide_project_trust(project, store, "ask", approve=True).trusted
    store.save(tmp_path / "work", True)
    assert decide_project_trust(project, store, "never").trusted  # saved beats the default
    store.save(project, False)
    assert not decide_project_trust(project, store, "always").trusted  # nearest entry wins
    data = json.loads((tmp_path / "trust.json").read_text())
    assert data == {str(tmp_path / "work"): True, str(project): False}


def test_broken_trust_file_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    path.write_text("{nope")
    store = TrustStore(path)
    assert store.decision_for(tmp_path) is None and store.error
    assert store.save(tmp_path, True) is False
    assert path.read_text() == "{nope"
