"""Summarising the branch the user is leaving in ``/tree`` (spec 30 R-BSUM).

``collect_entries_for_branch_summary`` finds what lies between the old leaf and the common ancestor
with the target; ``prepare_branch_entries`` turns it into messages newest-first within a token
budget; ``generate_branch_summary`` asks the model (same isolation and retry rules as compaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.coding.compaction.estimate import estimate_tokens
from pi_app.coding.compaction.fileops import (
    FileOperations,
    compute_file_lists,
    extract_file_ops,
    format_file_operations,
)
from pi_app.coding.compaction.serialize import serialize_conversation
from pi_app.coding.compaction.summarize import (
    SummarizationAborted,
    SummaryRequest,
    request_summary,
    summary_user_text,
)
from pi_app.coding.session.context import entry_to_message
from pi_app.coding.session.format import BranchSummaryEntry, CompactionEntry, MessageEntry, SessionEntry

if TYPE_CHECKING:
    from pi_app.coding.session.manager import SessionManager

BRANCH_SUMMARY_MAX_TOKENS = 2048
DEFAULT_CONTEXT_WINDOW = 128000

BRANCH_SUMMARY_PREAMBLE = (
    "The user explored another branch of this conversation before returning here. Summary of that branch:\n\n"
)

BRANCH_SUMMARY_PROMPT = (
    "The text inside <conversation> is a branch of work the user is now leaving. Summarise it so the "
    "work can continue from a different point with this knowledge.\n\nUse exactly this structure:\n\n"
    "## Goal\n[What the user was trying to achieve on this branch]\n\n"
    '## Constraints & Preferences\n- [Requirements and preferences stated, or "(none)"]\n\n'
    "## Progress\n### Done\n- [x] [Finished work]\n\n### In Progress\n- [ ] [Started work]\n\n"
    '### Blocked\n- [Open problems, or "(none)"]\n\n'
    "## Key Decisions\n- **[Decision]**: [why]\n\n"
    "## Next Steps\n1. [What would have come next]\n\n"
    "Be brief. Keep exact file paths, function names and error messages."
)


@dataclass
class CollectEntriesResult:
    entries: list[SessionEntry]
    common_ancestor_id: str | None


@dataclass
class BranchPreparation:
    messages: list[Any]
    file_ops: FileOperations
    total_tokens: int


@dataclass
class BranchSummaryResult:
    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None


def collect_entries_for_branch_summary(
    session: SessionManager, old_leaf_id: str | None, target_id: str | None
) -> CollectEntriesResult:
    """Entries between the old leaf and the deepest common ancestor with the target, oldest first.

    ``session`` is anything with ``get_entry(id)`` and ``get_branch(id)`` (a ``SessionManager``).
    """
    if old_leaf_id is None or session.get_entry(old_leaf_id) is None:
        return CollectEntriesResult([], None)
    old_path_ids = {e.id for e in session.get_branch(old_leaf_id)}
    common: str | None = None
    for entry in session.get_branch(target_id) if target_id is not None else []:
        if entry.id in old_path_ids:
            common = entry.id
    collected: list[SessionEntry] = []
    current = session.get_entry(old_leaf_id)
    seen: set[str] = set()
    while current is not None and current.id != common and current.id not in seen:
        seen.add(current.id)
        collected.append(current)
        current = session.get_entry(current.parent_id) if current.parent_id is not None else None
    collected.reverse()
    return CollectEntriesResult(collected, common)


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> BranchPreparation:
    ops = FileOperations()
    for entry in entries:
        if isinstance(entry, BranchSummaryEntry | CompactionEntry) and not entry.from_hook:
            ops.add_details(entry.details)
    messages: list[Any] = []
    total = 0
    for entry in reversed(entries):
        if isinstance(entry, MessageEntry) and entry.role == "toolResult":
            continue
        message = entry_to_message(entry)
        if message is None:
            continue
        extract_file_ops([message], ops)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            is_summary = isinstance(entry, BranchSummaryEntry | CompactionEntry)
            if is_summary and total < token_budget * 0.9:
                messages.insert(0, message)
                total += tokens
            break
        messages.insert(0, message)
        total += tokens
    return BranchPreparation(messages, ops, total)


async def generate_branch_summary(
    entries: Sequence[SessionEntry],
    req: SummaryRequest,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = 16384,
) -> BranchSummaryResult:
    window = req.model.context_window or DEFAULT_CONTEXT_WINDOW
    prepared = prepare_branch_entries(entries, max(0, window - reserve_tokens))
    read_files, modified_files = compute_file_lists(prepared.file_ops)
    if not prepared.messages:
        return BranchSummaryResult("No content to summarize", read_files, modified_files)
    if replace_instructions and custom_instructions:
        instructions, extra = custom_instructions, None
    else:
        instructions, extra = BRANCH_SUMMARY_PROMPT, custom_instructions
    text = summary_user_text(serialize_conversation(prepared.messages), instructions, None, extra)
    try:
        body = await request_summary(req, text, BRANCH_SUMMARY_MAX_TOKENS, "Branch summarization failed")
    except SummarizationAborted:
        return BranchSummaryResult(aborted=True)
    except Exception as exc:
        return BranchSummaryResult(error=str(exc))
    summary = BRANCH_SUMMARY_PREAMBLE + body + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary, read_files, modified_files)
