"""Branch summarisation when leaving a branch in /tree (spec 30 R-BSUM)."""

from __future__ import annotations

from pi_app.agent import AbortController
from pi_app.ai.testing import fake_model, fake_provider, hang, text
from pi_app.ai.types import ToolCall
from pi_app.coding.compaction import (
    SummaryRequest,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_app.coding.session import SessionManager
from tests.session.helpers import assistant, tool_result, user


def _forked() -> tuple[SessionManager, dict[str, str]]:
    sm = SessionManager.in_memory("/p")
    ids = {"u1": sm.append_message(user("start")), "a1": sm.append_message(assistant("ok"))}
    ids["u2"] = sm.append_message(user("try editing"))
    call = ToolCall(id="c", name="edit", arguments={"path": "src/x.py"})
    ids["a2"] = sm.append_message(assistant("", tool_calls=[call], stop_reason="toolUse"))
    ids["t2"] = sm.append_message(tool_result("c", "edited", name="edit"))
    ids["a3"] = sm.append_message(assistant("edited x.py"))
    return sm, ids


def test_collect_walks_from_old_leaf_to_common_ancestor() -> None:
    sm, ids = _forked()
    result = collect_entries_for_branch_summary(sm, ids["a3"], ids["a1"])
    assert result.common_ancestor_id == ids["a1"]
    assert [e.id for e in result.entries] == [ids["u2"], ids["a2"], ids["t2"], ids["a3"]]
    assert collect_entries_for_branch_summary(sm, None, ids["a1"]).entries == []


def test_prepare_skips_tool_results_and_collects_files() -> None:
    sm, ids = _forked()
    entries = collect_entries_for_branch_summary(sm, ids["a3"], ids["a1"]).entries
    prepared = prepare_branch_entries(entries)
    assert [m.role for m in prepared.messages] == ["user", "assistant", "assistant"]
    assert prepared.file_ops.edited == {"src/x.py"}
    newest_only = prepare_branch_entries(entries, token_budget=3)
    assert [m.role for m in newest_only.messages] == ["assistant"]


async def test_generate_branch_summary_with_files_and_instructions() -> None:
    sm, ids = _forked()
    entries = collect_entries_for_branch_summary(sm, ids["a3"], ids["a1"]).entries
    provider = fake_provider(script=[[text("## Goal\nedit x")], [text("custom only")]])
    req = SummaryRequest(model=fake_model(), stream_fn=provider.stream_simple)
    result = await generate_branch_summary(entries, req, custom_instructions="mention tests")
    assert result.summary.endswith("## Goal\nedit x\n\n<modified-files>\nsrc/x.py\n</modified-files>")
    assert result.modified_files == ["src/x.py"] and not result.aborted and result.error is None
    body = provider.calls[0].context.messages[0].content[0].text
    assert (
        "## Next Steps" in body
        and "Critical Context" not in body
        and body.endswith("Additional focus: mention tests")
    )
    assert provider.calls[0].options.max_tokens == 2048
    await generate_branch_summary(entries, req, custom_instructions="ONLY THIS", replace_instructions=True)
    assert provider.calls[1].context.messages[0].content[0].text.endswith("ONLY THIS")


async def test_empty_branch_and_abort() -> None:
    req = SummaryRequest(model=fake_model(), stream_fn=fake_provider().stream_simple)
    assert (await generate_branch_summary([], req)).summary == "No content to summarize"
    sm, ids = _forked()
    entries = collect_entries_for_branch_summary(sm, ids["a3"], ids["a1"]).entries
    controller = AbortController()
    provider = fake_provider(script=[[hang()]])
    req = SummaryRequest(model=fake_model(), stream_fn=provider.stream_simple, signal=controller.signal)
    import asyncio

    task = asyncio.ensure_future(generate_branch_summary(entries, req))
    await asyncio.sleep(0.05)
    controller.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.aborted and result.summary is None
