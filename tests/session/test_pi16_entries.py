"""pi 1.6.0 session entries: ``context_edit``, ``usage``, system messages, compaction checkpoints.

The fixture ``session-edits-compaction-branch-1.6.0.jsonl`` starts with what pi 1.6.0 wrote for two
prompts (model and thinking changes, its ``system`` prompt checkpoint, two turns) and goes on with
entries in 1.6.0's documented shapes: a ``usage`` entry, two ``context_edit`` replacements, a
thinking level of ``max``, a compaction with a ``systemMessage`` and ``usage``, a turn whose user
message a later ``context_edit`` drops, and a ``branch_summary`` back to the compaction whose
``fromId`` is that abandoned leaf. pi 1.6.0 continues it with the messages asserted here and
answers ``get_session_stats`` with the totals asserted here (both observed with 1.6.0 itself).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pi_app.ai.types import TextContent
from pi_app.coding.session.context import build_session_context
from pi_app.coding.session.format import ContextEditEntry, UsageEntry, parse_session_text
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.session_stats import compute_session_stats
from tests.session.helpers import copy_in

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "pi-reference-1.6"
    / "session-edits-compaction-branch-1.6.0.jsonl"
)


def _text(message: object) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.text for b in content if isinstance(b, TextContent))
    return getattr(message, "summary", "")


def _entries() -> list:
    parsed = parse_session_text(FIXTURE.read_text())
    return [item for item in parsed.items if hasattr(item, "parent_id")]


def test_entry_views() -> None:
    entries = _entries()
    usage = next(e for e in entries if isinstance(e, UsageEntry))
    assert usage.kind == "cache_warm" and usage.usage["cacheRead"] == 50000
    edits = [e for e in entries if isinstance(e, ContextEditEntry)]
    assert [e.omits for e in edits] == [False, False, True]
    assert edits[0].replacement_content == "two, edited"


def test_context_is_what_1_6_sends() -> None:
    ctx = build_session_context(_entries())
    got = [(m.role, _text(m)) for m in ctx.messages]
    assert got == [
        ("compactionSummary", "SUMMARY of one"),
        ("user", "two, edited"),
        ("assistant", "answer to two, edited"),
        ("branchSummary", "BRANCH tried three"),
    ]
    # a string replacement of an assistant message becomes one text block
    assert isinstance(ctx.messages[2].content, list) and len(ctx.messages[2].content) == 1
    assert ctx.thinking_level == "max"


def test_edits_are_branch_relative_and_leave_raw_entries_alone() -> None:
    entries = _entries()
    by_id = {e.id: e for e in entries}
    # on the abandoned branch the edit that drops "three" is on the path, so "three" is gone …
    ctx = build_session_context(entries, "e0000003", by_id)
    assert [_text(m) for m in ctx.messages][-1] == "answer to three"
    assert "three" not in [_text(m) for m in ctx.messages]
    # … and one step earlier it is back
    ctx = build_session_context(entries, "m0000002", by_id)
    assert [_text(m) for m in ctx.messages][-2:] == ["three", "answer to three"]
    # before the edits the original texts are sent
    ctx = build_session_context(entries, "u0000001", by_id)
    assert [_text(m) for m in ctx.messages][-2:] == ["two", "answer to two"]
    raw = next(
        e for e in entries if e.raw.get("message", {}).get("content") == [{"type": "text", "text": "two"}]
    )
    assert raw.message.content[0].text == "two"


def test_without_edits_the_file_context_is_unchanged() -> None:
    entries = [e for e in _entries() if not isinstance(e, ContextEditEntry)]
    assert all(e.type != "context_edit" for e in entries)


def test_session_stats_cover_the_whole_file_as_1_6(tmp_path: Path) -> None:
    path = copy_in(FIXTURE, tmp_path / "s.jsonl")
    manager = SessionManager.open(str(path))
    session = SimpleNamespace(
        session_manager=manager,
        session_file=str(path),
        session_id=manager.get_header().id,
        messages=[],
        get_context_usage=lambda: None,
    )
    stats = compute_session_stats(session).to_dict()
    # pi 1.6.0's get_session_stats on this file (the system message counts as a message; the
    # usage entry and the compaction and branch-summary generation count in the totals)
    assert (stats["userMessages"], stats["assistantMessages"], stats["totalMessages"]) == (3, 3, 7)
    assert stats["tokens"] == {
        "input": 180,
        "output": 45,
        "cacheRead": 50000,
        "cacheWrite": 0,
        "total": 50225,
    }
    assert stats["cost"] == pytest.approx(0.465)


def test_the_file_survives_a_rewrite_line_for_line(tmp_path: Path) -> None:
    path = copy_in(FIXTURE, tmp_path / "s.jsonl")
    manager = SessionManager.open(str(path))
    assert len(manager.get_entries()) == 16
    assert path.read_text() == FIXTURE.read_text()


def test_the_tree_hides_usage_by_default_and_names_context_edits() -> None:
    from pi_app.coding.session.tree_filter import raw_entry_class
    from pi_app.tui.selectors.tree_model import entry_segments

    entries = {e.id: e.raw for e in _entries()}
    assert raw_entry_class(entries["u0000001"]) == "hidden"  # as 1.6.0, usage stays out of the tree
    assert raw_entry_class(entries["e0000003"]) == "other"
    assert "".join(text for text, _ in entry_segments(entries["e0000003"], {})) == (
        "[context edit drops m0000001]"
    )
    assert "".join(text for text, _ in entry_segments(entries["e0000001"], {})).startswith(
        "[context edit rewrites"
    )
