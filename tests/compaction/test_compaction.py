"""Compaction pieces: estimation, cut points, preparation, summaries (spec 30 R-CMP, scenarios 11–12)."""

from __future__ import annotations

import pytest

from pi_app.ai.testing import error, fake_model, fake_provider, text
from pi_app.ai.types import ImageContent, TextContent, ToolCall, Usage, UserMessage
from pi_app.coding.compaction import (
    CompactionSettings,
    SummarizationError,
    SummaryRequest,
    compact,
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    format_file_operations,
    prepare_compaction,
    serialize_conversation,
    should_compact,
)
from pi_app.coding.compaction import estimate as estimate_module
from pi_app.coding.messages import BashExecutionMessage
from pi_app.coding.session import SessionManager
from tests.session.helpers import assistant, tool_result, user

BIG = "word " * 2000  # ~2000 tokens


def _read_call(call_id: str, path: str, name: str = "read") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments={"path": path})


def _session_with_turns(turns: int, filler: str = BIG) -> SessionManager:
    sm = SessionManager.in_memory("/p")
    sm.append_model_change("fake", "fake-model")
    for t in range(turns):
        sm.append_message(user(f"question {t} {filler}"))
        sm.append_message(
            assistant("", tool_calls=[_read_call(f"c{t}", f"file{t}.py")], stop_reason="toolUse")
        )
        sm.append_message(tool_result(f"c{t}", filler, name="read"))
        sm.append_message(assistant(f"answer {t}", total_tokens=1000 * (t + 1)))
    return sm


def _chat(turns: int) -> SessionManager:
    """Plain question/answer turns: every cut lands on a user message (no split turn)."""
    sm = SessionManager.in_memory("/p")
    for t in range(turns):
        sm.append_message(user(f"question {t} {BIG}"))
        sm.append_message(assistant(f"answer {t} {BIG}", total_tokens=5000 * (t + 1)))
    return sm


def test_estimate_counts_text_thinking_calls_and_images() -> None:
    plain = estimate_tokens(user("hello world"))
    assert 1 <= plain <= 4
    with_image = UserMessage(content=[TextContent(text="hello world"), ImageContent(data="x")], timestamp=0)
    assert estimate_tokens(with_image) == plain + 1200
    call = assistant("", tool_calls=[ToolCall(id="1", name="bash", arguments={"command": "ls -la"})])
    assert estimate_tokens(call) > 0
    assert estimate_tokens(BashExecutionMessage(command="ls", output="a b c")) > 0


def test_estimate_falls_back_to_chars_over_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(estimate_module, "_encoding", None)
    monkeypatch.setattr(estimate_module, "_encoding_loaded", True)
    estimate_module.count_text_tokens.cache_clear()
    try:
        assert estimate_tokens(user("x" * 9)) == 3
    finally:
        estimate_module.count_text_tokens.cache_clear()


def test_context_estimate_uses_last_real_usage_plus_trailing() -> None:
    messages = [user("a"), assistant("b", total_tokens=500), user("c" * 40)]
    est = estimate_context_tokens(messages)
    assert est.usage_tokens == 500 and est.last_usage_index == 1
    assert est.tokens == 500 + estimate_tokens(messages[2])
    errored = [user("a"), assistant("b", stop_reason="error", total_tokens=999)]
    assert estimate_context_tokens(errored).last_usage_index is None
    assert should_compact(90_000, 100_000, CompactionSettings())
    assert not should_compact(80_000, 100_000, CompactionSettings())
    assert not should_compact(99_000, 100_000, CompactionSettings(enabled=False))


def test_cut_point_never_lands_on_a_tool_result() -> None:
    sm = _session_with_turns(4)
    path = sm.get_branch()
    for keep in range(100, 9000, 700):
        cut = find_cut_point(path, 0, len(path), keep)
        entry = path[cut.first_kept_entry_index]
        assert entry.role != "toolResult"


def test_threshold_style_preparation_keeps_recent_and_tracks_files() -> None:
    sm = _session_with_turns(4)
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=3000))
    assert prep is not None and prep.first_kept_entry_id is not None
    assert prep.tokens_before > 0 and prep.messages_to_summarize
    assert "file0.py" in prep.file_ops.read


def test_nothing_to_do_when_last_entry_is_a_compaction() -> None:
    sm = _session_with_turns(1)
    first = sm.get_entries()[1].id
    sm.append_compaction("s", first, 10)
    assert prepare_compaction(sm.get_branch()) is None


async def test_repeated_compaction_summarises_previous_survivors_with_update_prompt() -> None:
    sm = _session_with_turns(3)
    entries = sm.get_entries()
    kept_from = entries[5]  # the second user message
    sm.append_compaction(
        "FIRST SUMMARY", kept_from.id, 5000, {"readFiles": ["old.txt"], "modifiedFiles": ["m.txt"]}, False
    )
    for t in range(3, 6):
        sm.append_message(user(f"question {t} {BIG}"))
        sm.append_message(assistant(f"answer {t}", total_tokens=9000))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=2500))
    assert prep is not None and prep.previous_summary == "FIRST SUMMARY"
    summarized_text = serialize_conversation(prep.messages_to_summarize)
    assert "question 1" in summarized_text  # survivors of the first compaction are summarised, not dropped
    assert "question 0" not in summarized_text  # already inside the previous summary
    provider = fake_provider(script=[[text("## Goal\nsecond")]])
    model = fake_model()
    result = await compact(prep, SummaryRequest(model=model, stream_fn=provider.stream_simple))
    request = provider.calls[0].context.messages[0].content[0].text
    assert "<previous-summary>\nFIRST SUMMARY\n</previous-summary>" in request
    assert "<conversation>\n" in request and "Update that summary" in request
    assert result.details == {"readFiles": ["file1.py", "file2.py", "old.txt"], "modifiedFiles": ["m.txt"]}
    assert "<read-files>\nfile1.py\nfile2.py\nold.txt\n</read-files>" in result.summary
    assert "<modified-files>\nm.txt\n</modified-files>" in result.summary
    options = provider.calls[0].options
    assert options.cache_retention == "none" and options.max_tokens == min(int(0.8 * 16384), model.max_tokens)


@pytest.mark.parametrize("earlier_turn", [True, False])
async def test_split_turn_runs_two_summaries_and_merges_them(earlier_turn: bool) -> None:
    sm = SessionManager.in_memory("/p")
    if earlier_turn:
        sm.append_message(user("an earlier question"))
        sm.append_message(assistant("an earlier answer"))
    sm.append_message(user("do a long task"))
    for i in range(6):
        sm.append_message(assistant("", tool_calls=[_read_call(f"c{i}", f"f{i}")], stop_reason="toolUse"))
        sm.append_message(tool_result(f"c{i}", BIG, name="read"))
    sm.append_message(assistant("finished", total_tokens=20000))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=4000))
    assert prep is not None and prep.is_split_turn and prep.turn_prefix_messages
    kept = sm.get_entry(prep.first_kept_entry_id)
    assert kept.role == "assistant"

    def reply(model, context, options):
        body = context.messages[0].content[0].text
        return [text("PREFIX" if "## Original Request" in body else "HISTORY")]

    provider = fake_provider(script=[reply, reply])
    result = await compact(prep, SummaryRequest(model=fake_model(), stream_fn=provider.stream_simple))
    history = "HISTORY" if earlier_turn else "No prior history."
    assert len(provider.calls) == (2 if earlier_turn else 1)
    assert result.summary.startswith(f"{history}\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")
    assert [
        o.options.max_tokens
        for o in provider.calls
        if "Original Request" in o.context.messages[0].content[0].text
    ] == [8192]


async def test_summary_requests_retry_transient_errors_then_fail_clearly() -> None:
    sm = _chat(3)
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=3000))
    assert prep is not None and not prep.is_split_turn
    provider = fake_provider(script=[[error("529 overloaded")], [text("ok summary")]])
    req = SummaryRequest(model=fake_model(), stream_fn=provider.stream_simple, base_delay_ms=1)
    result = await compact(prep, req)
    assert result.summary.startswith("ok summary") and len(provider.calls) == 2
    provider = fake_provider(script=[[error("invalid request: bad")]])
    with pytest.raises(SummarizationError, match="Summarization failed: invalid request: bad"):
        await compact(
            prep, SummaryRequest(model=fake_model(), stream_fn=provider.stream_simple, base_delay_ms=1)
        )


async def test_custom_instructions_and_reasoning_level() -> None:
    sm = _chat(2)
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=3000))
    assert prep is not None and not prep.is_split_turn
    provider = fake_provider(script=[[text("s")]])
    model = fake_model(reasoning=True)
    await compact(
        prep,
        SummaryRequest(model=model, stream_fn=provider.stream_simple, thinking_level="low"),
        "focus on tests",
    )
    body = provider.calls[0].context.messages[0].content[0].text
    assert body.endswith("\n\nAdditional focus: focus on tests")
    assert provider.calls[0].options.reasoning == "low"


def test_serialize_conversation_shapes_and_truncation() -> None:
    call = ToolCall(id="1", name="bash", arguments={"command": "ls", "n": 2})
    messages = [
        user("hi"),
        assistant("answer", tool_calls=[call]),
        tool_result("1", "x" * 2500),
    ]
    out = serialize_conversation(messages)
    assert out.startswith(
        '[User]: hi\n\n[Assistant]: answer\n\n[Assistant tool calls]: bash(command="ls", n=2)'
    )
    assert out.endswith("x" * 10 + "\n\n[... 500 more characters truncated]")


def test_format_file_operations() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a"], []) == "\n\n<read-files>\na\n</read-files>"
    assert format_file_operations(["a"], ["b"]).count("\n\n<") == 2


def test_usage_of_summary_requests_is_collected() -> None:
    req = SummaryRequest(model=fake_model(), stream_fn=lambda *a: None)
    req.usage.append(Usage(input=1))
    assert req.usage[0].input == 1
