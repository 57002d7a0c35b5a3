"""Pure preparation of a compaction from the current session path (spec 30 R-CMP-13)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.coding.compaction.cut import find_cut_point
from pi_app.coding.compaction.estimate import CompactionSettings, estimate_context_tokens
from pi_app.coding.compaction.fileops import FileOperations, extract_file_ops
from pi_app.coding.session.context import context_from_path, entry_to_message
from pi_app.coding.session.format import CompactionEntry, SessionEntry


@dataclass
class CompactionPreparation:
    first_kept_entry_id: str | None
    messages_to_summarize: list[Any]
    turn_prefix_messages: list[Any]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings = field(default_factory=CompactionSettings)

    @property
    def is_empty(self) -> bool:
        return not self.messages_to_summarize and not self.turn_prefix_messages


def _messages(entries: Sequence[SessionEntry]) -> list[Any]:
    out = []
    for entry in entries:
        if isinstance(entry, CompactionEntry):
            continue  # the previous summary travels separately
        message = entry_to_message(entry)
        if message is not None:
            out.append(message)
    return out


def prepare_compaction(path: Sequence[SessionEntry], settings: Any = None) -> CompactionPreparation | None:
    """None when the path ends in a compaction ("Already compacted") or is empty."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    cfg = CompactionSettings.from_any(settings)
    previous_index = next(
        (i for i in range(len(path) - 1, -1, -1) if isinstance(path[i], CompactionEntry)), -1
    )
    found = path[previous_index] if previous_index >= 0 else None
    previous = found if isinstance(found, CompactionEntry) else None
    boundary = 0
    if previous is not None:
        kept = previous.first_kept_entry_id
        boundary = next((i for i, e in enumerate(path) if e.id == kept), previous_index + 1)
    tokens_before = estimate_context_tokens(context_from_path(path).messages).tokens
    cut = find_cut_point(path, boundary, len(path), cfg.keep_recent_tokens)
    cut_entry = path[cut.first_kept_entry_index] if cut.first_kept_entry_index < len(path) else None
    first_kept = cut_entry.id if cut_entry is not None and cut_entry.id else None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(path[boundary:history_end])
    prefix = _messages(path[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    ops = FileOperations()
    if previous is not None and not previous.from_hook:
        ops.add_details(previous.details)
    extract_file_ops(to_summarize, ops)
    extract_file_ops(prefix, ops)
    return CompactionPreparation(
        first_kept_entry_id=first_kept,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous.summary if previous is not None else None,
        file_ops=ops,
        settings=cfg,
    )
