"""Compaction and branch summarisation: estimation, cut points, preparation, LLM summaries.

Everything except the summary requests is pure; the agent session does the I/O (appending entries,
replacing the agent's messages, emitting events).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_app.coding.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_app.coding.compaction.branch_summary import (
        BranchSummaryResult,
        collect_entries_for_branch_summary,
        generate_branch_summary,
        prepare_branch_entries,
    )
    from pi_app.coding.compaction.cut import CutPointResult, find_cut_point, find_turn_start_index
    from pi_app.coding.compaction.estimate import (
        CompactionSettings,
        ContextUsageEstimate,
        calculate_context_tokens,
        estimate_context_tokens,
        estimate_tokens,
        should_compact,
    )
    from pi_app.coding.compaction.fileops import (
        FileOperations,
        compute_file_lists,
        extract_file_ops,
        format_file_operations,
    )
    from pi_app.coding.compaction.prepare import CompactionPreparation, prepare_compaction
    from pi_app.coding.compaction.retry import backoff_delay_ms, is_retryable_error
    from pi_app.coding.compaction.serialize import serialize_conversation
    from pi_app.coding.compaction.summarize import (
        CompactionResult,
        SummarizationAborted,
        SummarizationError,
        SummaryRequest,
        compact,
        generate_summary,
    )

# Loaded on first use: a session imports only the estimate it checks after each turn until it
# actually compacts or summarises a branch.
_LAZY_EXPORTS: dict[str, str] = {
    "BranchSummaryResult": "branch_summary",
    "collect_entries_for_branch_summary": "branch_summary",
    "generate_branch_summary": "branch_summary",
    "prepare_branch_entries": "branch_summary",
    "CutPointResult": "cut",
    "find_cut_point": "cut",
    "find_turn_start_index": "cut",
    "ContextUsageEstimate": "estimate",
    "calculate_context_tokens": "estimate",
    "estimate_context_tokens": "estimate",
    "estimate_tokens": "estimate",
    "should_compact": "estimate",
    "FileOperations": "fileops",
    "compute_file_lists": "fileops",
    "extract_file_ops": "fileops",
    "format_file_operations": "fileops",
    "CompactionPreparation": "prepare",
    "CompactionSettings": "estimate",
    "prepare_compaction": "prepare",
    "backoff_delay_ms": "retry",
    "is_retryable_error": "retry",
    "serialize_conversation": "serialize",
    "CompactionResult": "summarize",
    "SummarizationAborted": "summarize",
    "SummarizationError": "summarize",
    "SummaryRequest": "summarize",
    "compact": "summarize",
    "generate_summary": "summarize",
}

__all__ = [
    "BranchSummaryResult",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "ContextUsageEstimate",
    "CutPointResult",
    "FileOperations",
    "SummarizationAborted",
    "SummarizationError",
    "SummaryRequest",
    "backoff_delay_ms",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compact",
    "compute_file_lists",
    "estimate_context_tokens",
    "estimate_tokens",
    "extract_file_ops",
    "find_cut_point",
    "find_turn_start_index",
    "format_file_operations",
    "generate_branch_summary",
    "generate_summary",
    "is_retryable_error",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
]

__getattr__ = lazy_exports(__name__, _LAZY_EXPORTS, globals())
