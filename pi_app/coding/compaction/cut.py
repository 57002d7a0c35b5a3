"""Where to cut a session path for compaction: never inside a tool result (spec 30 R-CMP-10…12)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_app.coding.compaction.estimate import estimate_tokens
from pi_app.coding.session.format import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)

CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
TURN_START_ROLES = frozenset({"user", "bashExecution"})


@dataclass
class CutPointResult:
    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


def is_valid_cut_point(entry: SessionEntry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.role in CUT_ROLES
    return isinstance(entry, BranchSummaryEntry | CustomMessageEntry)


def find_turn_start_index(entries: Sequence[SessionEntry], index: int, start: int) -> int:
    for i in range(index, start - 1, -1):
        entry = entries[i]
        if isinstance(entry, BranchSummaryEntry | CustomMessageEntry):
            return i
        if isinstance(entry, MessageEntry) and entry.role in TURN_START_ROLES:
            return i
    return -1


def find_cut_point(
    entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int
) -> CutPointResult:
    cut_points = [i for i in range(start, end) if is_valid_cut_point(entries[i])]
    if not cut_points:
        return CutPointResult(start, -1, False)
    cut = cut_points[0]
    total = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if not isinstance(entry, MessageEntry):
            continue
        total += estimate_tokens(entry.message)
        if total >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    while cut > start:
        previous = entries[cut - 1]
        if isinstance(previous, MessageEntry | CompactionEntry):
            break
        cut -= 1
    entry = entries[cut]
    if isinstance(entry, MessageEntry) and entry.role == "user":
        return CutPointResult(cut, -1, False)
    turn_start = find_turn_start_index(entries, cut, start)
    return CutPointResult(cut, turn_start, turn_start != -1)
