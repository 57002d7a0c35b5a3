"""Which tree nodes the ``/tree`` navigator shows, and search over them (spec 30 R-TREE-09)."""

from __future__ import annotations

import json
from typing import Any

from pi_app.ai.types import TextContent
from pi_app.coding.session.format import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)

TREE_FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
_HIDDEN_BY_DEFAULT = frozenset({"label", "custom", "model_change", "thinking_level_change"})


def _is_empty_assistant(entry: SessionEntry) -> bool:
    if not isinstance(entry, MessageEntry) or entry.role != "assistant":
        return False
    message = entry.message
    if getattr(message, "stop_reason", None) in ("error", "aborted"):
        return False
    return not any(isinstance(b, TextContent) and b.text.strip() for b in getattr(message, "content", []))


def tree_filter(node: Any, mode: str, current_leaf_id: str | None) -> bool:
    """True when ``node`` (a ``SessionTreeNode``) is visible in ``mode``."""
    entry: SessionEntry = node.entry
    if mode == "all":
        return True
    if _is_empty_assistant(entry) and entry.id != current_leaf_id:
        return False
    if mode == "user-only":
        return isinstance(entry, MessageEntry) and entry.role == "user"
    if mode == "labeled-only":
        return node.label is not None
    if entry.type in _HIDDEN_BY_DEFAULT:
        return False
    if mode == "no-tools" and isinstance(entry, MessageEntry) and entry.role == "toolResult":
        return False
    return True


def searchable_text(node: Any) -> str:
    entry: SessionEntry = node.entry
    parts = [node.label or ""]
    if isinstance(entry, MessageEntry):
        raw = entry.raw.get("message") or {}
        content = raw.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    parts.append(str(block.get("text") or block.get("thinking") or ""))
                    if block.get("type") == "toolCall":
                        parts.append(str(block.get("name", "")) + " " + json.dumps(block.get("arguments")))
        for key in ("command", "output", "toolName"):
            if isinstance(raw.get(key), str):
                parts.append(raw[key])
    elif isinstance(entry, BranchSummaryEntry | CompactionEntry):
        parts.append(entry.summary)
    elif isinstance(entry, CustomMessageEntry):
        content = entry.content
        parts.append(content if isinstance(content, str) else json.dumps(content))
    else:
        parts.append(entry.type)
    return " ".join(p for p in parts if p)


def matches_search(node: Any, query: str) -> bool:
    haystack = searchable_text(node).lower()
    return all(token in haystack for token in query.lower().split())
