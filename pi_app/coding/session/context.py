"""Turning the root→leaf path of a session into the agent's messages (spec 30 R-TREE-04).

``build_session_context`` is a pure function over entry views: it walks the path, replays the
thinking level and model, and emits messages, starting from the latest compaction's summary and
its first kept entry when the path has been compacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.agent.types import AgentMessage
from pi_app.coding.messages import (
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    message_from_dict,
)
from pi_app.coding.session.format import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass
class SessionContext:
    """What the agent resumes with: the messages on the current branch, model and thinking level."""

    messages: list[AgentMessage] = field(default_factory=list)
    entries: list[SessionEntry] = field(default_factory=list)  # the entry behind each message
    thinking_level: str = "off"
    model: tuple[str, str] | None = None  # (provider, model_id)


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry contributes to the LLM context, or None (state/annotation entries)."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        raw = dict(entry.raw)
        return CustomMessage.from_dict(
            {
                "customType": raw.get("customType"),
                "content": raw.get("content"),
                "display": raw.get("display", True),
                "details": raw.get("details"),
                "timestamp": entry.timestamp_ms,
            }
        )
    if isinstance(entry, BranchSummaryEntry):
        if not entry.summary:
            return None
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=entry.timestamp_ms
        )
    if isinstance(entry, CompactionEntry):
        return CompactionSummaryMessage(
            summary=entry.summary, tokens_before=entry.tokens_before, timestamp=entry.timestamp_ms
        )
    return None


def path_to(leaf_id: str | None, by_id: dict[str, SessionEntry]) -> list[SessionEntry]:
    """Root→leaf path (guards against parent cycles in damaged files)."""
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        parent = current.parent_id
        current = by_id.get(parent) if parent is not None else None
    path.reverse()
    return path


def build_session_context(
    entries: Sequence[SessionEntry],
    leaf_id: str | None | Any = UNSET,
    by_id: dict[str, SessionEntry] | None = None,
) -> SessionContext:
    if leaf_id is None:
        return SessionContext()
    if by_id is None:
        by_id = {e.id: e for e in entries if e.id}
    if leaf_id is UNSET or leaf_id not in by_id:
        if not entries:
            return SessionContext()
        leaf_id = entries[-1].id
    path = path_to(leaf_id, by_id)
    return context_from_path(path)


def context_from_path(path: Sequence[SessionEntry]) -> SessionContext:
    thinking = "off"
    model: tuple[str, str] | None = None
    compaction_index = -1
    for i, entry in enumerate(path):
        if isinstance(entry, ThinkingLevelChangeEntry):
            thinking = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            model = (entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry) and entry.role == "assistant":
            raw = entry.raw.get("message") or {}
            model = (str(raw.get("provider") or ""), str(raw.get("model") or ""))
        elif isinstance(entry, CompactionEntry):
            compaction_index = i

    ctx = SessionContext(thinking_level=thinking, model=model)

    def emit(items: Iterable[SessionEntry]) -> None:
        for entry in items:
            if isinstance(entry, CompactionEntry):
                continue
            msg = entry_to_message(entry)
            if msg is not None:
                ctx.messages.append(msg)
                ctx.entries.append(entry)

    if compaction_index < 0:
        emit(path)
        return ctx
    compaction = path[compaction_index]
    assert isinstance(compaction, CompactionEntry)
    summary = entry_to_message(compaction)
    ctx.messages.append(summary)
    ctx.entries.append(compaction)
    first_kept = compaction.first_kept_entry_id
    before = path[:compaction_index]
    start = next((i for i, e in enumerate(before) if e.id == first_kept), len(before))
    emit(before[start:])
    emit(path[compaction_index + 1 :])
    return ctx


__all__ = [
    "UNSET",
    "SessionContext",
    "build_session_context",
    "context_from_path",
    "entry_to_message",
    "message_from_dict",
    "path_to",
]
