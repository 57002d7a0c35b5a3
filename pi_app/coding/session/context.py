"""Turning the root→leaf path of a session into the agent's messages (spec 30 R-TREE-04).

``build_session_context`` is a pure function over entry views: it walks the path, replays the
thinking level and model, and emits messages, starting from the latest compaction's summary and
its first kept entry when the path has been compacted.

pi 1.6.0's ``context_edit`` entries are applied to the selected range: for each target the latest
edit on the path wins; ``replacement: null`` leaves the target out, otherwise only its content is
replaced (text for an assistant or tool result becomes one text block). The raw entries are not
changed, so the transcript, exports and totals still show the original. ``usage`` entries and
``system`` messages (1.6.0's prompt checkpoints) contribute no context message here: this pi builds
the system prompt itself.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    ContextEditEntry,
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
        return _custom_message(entry, entry.raw.get("content"))
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
    if compaction_index < 0:
        selected: list[SessionEntry] = list(path)
    else:
        compaction = path[compaction_index]
        assert isinstance(compaction, CompactionEntry)
        first_kept = compaction.first_kept_entry_id
        before = path[:compaction_index]
        start = next((i for i, e in enumerate(before) if e.id == first_kept), len(before))
        kept = [e for e in before[start:] if not (isinstance(e, MessageEntry) and e.role == "system")]
        selected = [compaction, *kept, *path[compaction_index + 1 :]]
    edits = {e.target_id: e for e in selected if isinstance(e, ContextEditEntry)}
    for index, entry in enumerate(selected):
        if isinstance(entry, CompactionEntry) and index > 0:
            continue  # only the latest compaction contributes its summary
        msg = entry_to_message(entry)
        if msg is None:
            continue
        edit = edits.get(entry.id)
        if edit is not None:
            if edit.omits:
                continue
            msg = _edited(entry, msg, edit.replacement_content)
        ctx.messages.append(msg)
        ctx.entries.append(entry)
    return ctx


def _edited(entry: SessionEntry, message: AgentMessage, content: Any) -> AgentMessage:
    """``message`` with its content replaced as a ``context_edit`` says (roles other than user,
    assistant, tool result and custom keep theirs)."""
    if isinstance(entry, MessageEntry) and entry.role in ("user", "assistant", "toolResult"):
        raw = dict(entry.raw.get("message") or {})
        if isinstance(content, str) and entry.role != "user":
            content = [{"type": "text", "text": content}]
        raw["content"] = content
        return message_from_dict(raw)
    if isinstance(entry, CustomMessageEntry):
        return _custom_message(entry, content)
    return message


def _custom_message(entry: CustomMessageEntry, content: Any) -> AgentMessage:
    raw = entry.raw
    return CustomMessage.from_dict(
        {
            "customType": raw.get("customType"),
            "content": content,
            "display": raw.get("display", True),
            "details": raw.get("details"),
            "timestamp": entry.timestamp_ms,
        }
    )


__all__ = [
    "UNSET",
    "SessionContext",
    "build_session_context",
    "context_from_path",
    "entry_to_message",
    "message_from_dict",
    "path_to",
]
