"""Which tree nodes the ``/tree`` navigator shows, and search over them (spec 30 R-TREE-09).

Both functions read the entry's raw dict only, so filtering a 20,000-entry tree never decodes a
message into dataclasses. Besides the kinds the spec lists, ``default`` and ``no-tools`` also hide
``session_info`` entries, as pi 0.73.1 does (they are bookkeeping, like model changes), and pi
1.6.0's ``usage`` entries (cache warming and the like), which 1.6.0 keeps out of its tree.

Searchable text is the label, the entry's kind words (``user``, ``assistant``, ``branch summary``,
``model``, …) and its text, so ``user deploy`` finds user messages that mention deploy.
"""

from __future__ import annotations

import json
from typing import Any

from pi_app.ai.util.content_text import content_text
from pi_app.coding.session.format import SessionEntry

TREE_FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
_HIDDEN_BY_DEFAULT = frozenset(
    {"label", "custom", "model_change", "thinking_level_change", "session_info", "usage"}
)


def entry_class(entry: SessionEntry) -> str:
    """What the filters care about in one entry: ``user``, ``toolResult``, ``empty-assistant``
    (no text, not an error or abort), ``hidden`` (bookkeeping kinds) or ``other``.

    A navigator may compute it once per entry and filter with ``visible_in_mode``."""
    return raw_entry_class(entry.raw)


def raw_entry_class(raw: dict[str, Any]) -> str:
    """``entry_class`` over an entry's on-disk dict (no ``SessionEntry`` needed)."""
    kind = raw.get("type")
    if kind == "message":
        message = raw.get("message")
        message = message if isinstance(message, dict) else {}
        role = message.get("role")
        if role in ("user", "toolResult"):
            return str(role)
        if role == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            if not content_text(message.get("content")).strip():
                return "empty-assistant"
        return "other"
    return "hidden" if kind in _HIDDEN_BY_DEFAULT else "other"


def visible_in_mode(entry_class: str, mode: str, *, is_leaf: bool, labeled: bool) -> bool:
    """The filter rules of R-TREE-09 over a precomputed ``entry_class``."""
    if mode == "all":
        return True
    if entry_class == "empty-assistant" and not is_leaf:
        return False
    if mode == "user-only":
        return entry_class == "user"
    if mode == "labeled-only":
        return labeled
    if entry_class == "hidden":
        return False
    return not (mode == "no-tools" and entry_class == "toolResult")


def tree_filter(node: Any, mode: str, current_leaf_id: str | None) -> bool:
    """True when ``node`` (a ``SessionTreeNode``) is visible in ``mode``."""
    entry: SessionEntry = node.entry
    return visible_in_mode(
        entry_class(entry), mode, is_leaf=entry.id == current_leaf_id, labeled=node.label is not None
    )


def searchable_text(node: Any) -> str:
    """What search looks in; the ``/tree`` navigator builds it for every row on the first search
    letter, so the common message path stays lean."""
    raw = node.entry.raw
    kind = raw.get("type")
    parts = [node.label or ""]
    if kind == "message":
        message = raw.get("message")
        if not isinstance(message, dict):
            message = {}
        parts.append(str(message.get("role") or ""))
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    parts.append(str(block.get("text") or block.get("thinking") or ""))
                    if block.get("type") == "toolCall":
                        parts.append(str(block.get("name", "")) + " " + json.dumps(block.get("arguments")))
        for key in ("command", "output", "toolName"):
            value = message.get(key)
            if isinstance(value, str):
                parts.append(value)
    elif kind == "branch_summary":
        parts += ["branch summary", str(raw.get("summary") or "")]
    elif kind == "compaction":
        parts += ["compaction", str(raw.get("summary") or "")]
    elif kind == "custom_message":
        content = raw.get("content")
        parts += [str(raw.get("customType") or ""), content_text(content) or json.dumps(content)]
    elif kind == "model_change":
        parts += ["model", str(raw.get("modelId") or "")]
    elif kind == "thinking_level_change":
        parts += ["thinking", str(raw.get("thinkingLevel") or "")]
    elif kind == "session_info":
        parts += ["title", str(raw.get("name") or "")]
    elif kind == "custom":
        parts += ["custom", str(raw.get("customType") or "")]
    elif kind == "label":
        parts += ["label", str(raw.get("label") or "")]
    else:
        parts.append(str(kind or ""))
    return " ".join(filter(None, parts))


def matches_search(node: Any, query: str) -> bool:
    haystack = searchable_text(node).lower()
    return all(token in haystack for token in query.lower().split())
