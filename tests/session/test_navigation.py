"""Tree navigation (spec 30 R-NAV-01; scenarios 6, 7, 8 and 9)."""

from __future__ import annotations

import pytest

from pi_app.agent import AbortController
from pi_app.ai.testing import fake_model, fake_provider, hang, text
from pi_app.ai.types import ToolCall
from pi_app.coding.messages import convert_to_llm
from pi_app.coding.session import EntryNotFoundError, SessionManager
from pi_app.coding.tree_navigation import NavigationError, TreeHookAnswer, navigate_tree
from tests.session.helpers import assistant, tool_result, user


def _ten() -> tuple[SessionManager, list[str]]:
    """e1..e10: user/assistant pairs; e4 asked to read a file."""
    sm = SessionManager.in_memory("/p")
    ids = [sm.append_message(user("e1")), sm.append_message(assistant("e2"))]
    ids.append(sm.append_message(user("e3 text")))
    call = ToolCall(id="c", name="read", arguments={"path": "notes.md"})
    ids.append(sm.append_message(assistant("e4", tool_calls=[call], stop_reason="toolUse")))
    ids.append(sm.append_message(tool_result("c", "contents", name="read")))
    for i in range(6, 11):
        ids.append(sm.append_message(user(f"e{i}") if i % 2 == 1 else assistant(f"e{i}")))
    return sm, ids


async def test_in_place_branch_on_a_user_message_prefills_the_editor() -> None:
    sm, ids = _ten()
    before = [e.raw for e in sm.get_entries()]
    result = await navigate_tree(sm, ids[2])
    assert result.editor_text == "e3 text" and not result.cancelled
    assert sm.get_leaf_id() == ids[1]
    new = sm.append_message(user("edited e3"))
    assert sm.get_entry(new).parent_id == ids[1]
    texts = [m.content[0].text for m in sm.build_session_context().messages]
    assert texts == ["e1", "e2", "edited e3"]
    assert [e.raw for e in sm.get_entries()][:10] == before


async def test_branch_with_summary_on_an_assistant_message() -> None:
    sm, ids = _ten()
    provider = fake_provider(script=[[text("## Goal\nread notes")]])
    result = await navigate_tree(
        sm,
        ids[3],
        summarize=True,
        model=fake_model(),
        stream_fn=provider.stream_simple,
        signal=AbortController().signal,
    )
    entry = result.summary_entry
    assert entry is not None and entry.type == "branch_summary"
    assert (
        entry.raw["parentId"] == ids[3] and entry.raw["fromId"] == ids[-1] and entry.raw["fromHook"] is False
    )
    assert entry.raw["details"] == {"readFiles": [], "modifiedFiles": []}
    # pi 1.6.0: the summary's generation usage is on the entry (counted in the session totals)
    assert entry.raw["usage"]["totalTokens"] > 0 and list(entry.raw)[-2:] == ["usage", "fromHook"]
    assert result.editor_text is None
    summarized = provider.calls[0].context.messages[0].content[0].text
    assert "e10" in summarized and "e1\n" not in summarized  # only the abandoned branch
    last = convert_to_llm(sm.build_session_context().messages)[-1]
    assert (
        last.role == "user" and "<summary>" in last.content[0].text and "read notes" in last.content[0].text
    )


async def test_navigating_to_a_root_user_message_empties_the_context() -> None:
    sm, ids = _ten()
    result = await navigate_tree(sm, ids[0])
    assert sm.get_leaf_id() is None and result.editor_text == "e1"
    assert sm.build_session_context().messages == []
    new = sm.append_message(user("new root"))
    assert sm.get_entry(new).raw["parentId"] is None
    assert len(sm.get_tree()) == 2


async def test_labels_from_navigation_and_noop_on_current_leaf() -> None:
    sm, ids = _ten()
    assert (await navigate_tree(sm, ids[-1])).cancelled is False
    assert sm.get_leaf_id() == ids[-1] and len(sm.get_entries()) == 10
    await navigate_tree(sm, ids[5], label="checkpoint")
    assert sm.get_label(ids[5]) == "checkpoint"


async def test_errors_and_hooks() -> None:
    sm, ids = _ten()
    with pytest.raises(NavigationError, match="No model available"):
        await navigate_tree(sm, ids[3], summarize=True)
    with pytest.raises(EntryNotFoundError):
        await navigate_tree(sm, "missing")
    leaf = sm.get_leaf_id()
    signal = AbortController().signal
    cancelled = await navigate_tree(
        sm, ids[3], before_tree=lambda prep, sig: TreeHookAnswer(cancel=True), signal=signal
    )
    assert cancelled.cancelled and sm.get_leaf_id() == leaf
    supplied = await navigate_tree(
        sm,
        ids[3],
        summarize=True,
        model=fake_model(),
        signal=signal,
        before_tree=lambda prep, sig: {"summary": {"summary": "from ext", "details": {"x": 1}}},
    )
    assert supplied.from_extension and supplied.summary_entry.raw["fromHook"] is True


async def test_aborted_summary_changes_nothing() -> None:
    import asyncio

    sm, ids = _ten()
    leaf = sm.get_leaf_id()
    controller = AbortController()
    provider = fake_provider(script=[[hang()]])
    task = asyncio.ensure_future(
        navigate_tree(
            sm,
            ids[3],
            summarize=True,
            model=fake_model(),
            stream_fn=provider.stream_simple,
            signal=controller.signal,
        )
    )
    await asyncio.sleep(0.05)
    controller.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.cancelled and result.aborted and sm.get_leaf_id() == leaf and len(sm.get_entries()) == 10


def test_latest_compaction_follows_the_branch_and_new_entries() -> None:
    """Issue 20: the footer and the compaction check ask for the newest compaction on the branch
    on every refresh; the answer is cached, so it must change when the branch or entries do."""
    from pi_app.coding.session import SessionManager
    from tests.session.helpers import assistant, user

    sm = SessionManager("/home/user/project", None, persist=False)
    sm.append_message(user("one"))
    before = sm.append_message(assistant("first answer"))
    assert sm.latest_compaction() is None
    kept = sm.append_message(user("two"))
    sm.append_message(assistant("second answer"))
    first = sm.append_compaction("summary 1", kept, 1000)
    assert sm.latest_compaction().id == first
    sm.append_message(user("three"))
    second = sm.append_compaction("summary 2", kept, 2000)
    assert sm.latest_compaction().id == second
    sm.branch(before)  # back before either compaction
    assert sm.latest_compaction() is None
    sm.branch(first)
    assert sm.latest_compaction().id == first
