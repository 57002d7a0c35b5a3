"""Counts and totals over a session's messages, as pi's ``get_session_stats`` reports them.

``compute_session_stats(session)`` reads only the public ``AgentSession`` surface (messages,
session id and file, and ``get_context_usage`` when the session offers it) and returns a
``SessionStats`` whose ``to_dict`` is pi 0.73.1's camelCase shape: user/assistant/tool counts,
token totals summed over assistant usage, total cost, and the context usage of the last reply.
Shared by RPC (``get_session_stats``) and the TUI's ``/session``.

As pi 1.6.0, the counts and totals cover the whole session file (every branch, and what a
compaction summarised away), not only the messages still in the context: every ``message`` entry
counts in ``totalMessages`` (1.6.0's ``system`` messages too); tokens and cost add assistant usage,
tool-result usage, ``usage`` entries and the usage of compaction and branch-summary generation.
A session without a session manager falls back to its messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession


@dataclass
class TokenTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass
class SessionStats:
    session_file: str | None
    session_id: str
    user_messages: int = 0
    assistant_messages: int = 0
    tool_calls: int = 0
    tool_results: int = 0
    total_messages: int = 0
    tokens: TokenTotals = field(default_factory=TokenTotals)
    cost: float = 0.0
    context_usage: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.session_file is not None:
            out["sessionFile"] = self.session_file
        out.update(
            sessionId=self.session_id,
            userMessages=self.user_messages,
            assistantMessages=self.assistant_messages,
            toolCalls=self.tool_calls,
            toolResults=self.tool_results,
            totalMessages=self.total_messages,
            tokens={
                "input": self.tokens.input,
                "output": self.tokens.output,
                "cacheRead": self.tokens.cache_read,
                "cacheWrite": self.tokens.cache_write,
                "total": self.tokens.total,
            },
            cost=self.cost,
        )
        if self.context_usage is not None:
            out["contextUsage"] = self.context_usage
        return out


def _add_usage(stats: SessionStats, usage: Any) -> None:
    """Add an L1 ``Usage`` or a raw camelCase usage dict to the totals."""
    if usage is None:
        return
    if isinstance(usage, dict):
        cost = found if isinstance(found := usage.get("cost"), dict) else {}
        values = (usage.get("input"), usage.get("output"), usage.get("cacheRead"), usage.get("cacheWrite"))
        total_cost = cost.get("total")
    else:
        values = (usage.input, usage.output, usage.cache_read, usage.cache_write)
        total_cost = usage.cost.total
    numbers = [v if isinstance(v, int | float) and not isinstance(v, bool) else 0 for v in values]
    stats.tokens.input += int(numbers[0])
    stats.tokens.output += int(numbers[1])
    stats.tokens.cache_read += int(numbers[2])
    stats.tokens.cache_write += int(numbers[3])
    if isinstance(total_cost, int | float) and not isinstance(total_cost, bool):
        stats.cost += total_cost


def _count_message(stats: SessionStats, message: Any) -> None:
    role = getattr(message, "role", None)
    stats.total_messages += 1
    if role == "user":
        stats.user_messages += 1
    elif role == "toolResult":
        stats.tool_results += 1
        _add_usage(stats, getattr(message, "usage", None))
    elif role == "assistant":
        stats.assistant_messages += 1
        stats.tool_calls += sum(1 for b in message.content if getattr(b, "type", None) == "toolCall")
        _add_usage(stats, message.usage)


def compute_session_stats(session: AgentSession) -> SessionStats:
    from pi_app.coding.session.format import (
        BranchSummaryEntry,
        CompactionEntry,
        MessageEntry,
        UsageEntry,
    )

    stats = SessionStats(session_file=session.session_file, session_id=session.session_id)
    manager = getattr(session, "session_manager", None)
    entries = manager.get_entries() if manager is not None and hasattr(manager, "get_entries") else None
    if entries is None:
        for message in session.messages:
            _count_message(stats, message)
    else:
        for entry in entries:
            if isinstance(entry, MessageEntry):
                _count_message(stats, entry.message)
            elif isinstance(entry, UsageEntry | CompactionEntry | BranchSummaryEntry):
                _add_usage(stats, entry.raw.get("usage"))
    stats.context_usage = _context_usage(session)
    return stats


def _context_usage(session: AgentSession) -> dict[str, Any] | None:
    get_usage = getattr(session, "get_context_usage", None)
    if callable(get_usage):
        usage = get_usage()
        if usage is None:
            return None
        return {"tokens": usage.tokens, "contextWindow": usage.context_window, "percent": usage.percent}
    model = session.model
    if model is None:
        return None
    from pi_app.coding.compaction import estimate_context_tokens

    tokens = estimate_context_tokens(list(session.messages)).tokens
    window = model.context_window
    return {"tokens": tokens, "contextWindow": window, "percent": tokens / window * 100 if window else None}
