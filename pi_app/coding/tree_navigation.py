"""Moving the session leaf to another entry of the tree, optionally summarising the branch left
behind (spec 30 R-NAV-01 steps 1–8; the agent session replaces the agent's messages afterwards).

Landing rules: a ``user`` or ``custom_message`` target moves the leaf to its parent and hands its
text back for the editor (so the user can edit and resend it); any other target becomes the leaf.
With a summary, a ``branch_summary`` entry is appended under the new leaf; a label then goes on
the summary entry, otherwise on the target.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import Model, UserMessage
from pi_app.ai.util.content_text import content_text
from pi_app.coding.session.format import CustomMessageEntry, MessageEntry, SessionEntry
from pi_app.coding.session.manager import EntryNotFoundError

if TYPE_CHECKING:
    from pi_app.coding.session.manager import SessionManager


class NavigationError(RuntimeError):
    pass


@dataclass
class TreePreparation:
    target_id: str
    old_leaf_id: str | None
    common_ancestor_id: str | None
    entries_to_summarize: list[SessionEntry]
    user_wants_summary: bool
    custom_instructions: str | None = None
    replace_instructions: bool = False
    label: str | None = None


@dataclass
class NavigateResult:
    editor_text: str | None = None
    cancelled: bool = False
    aborted: bool = False
    summary_entry: SessionEntry | None = None
    from_extension: bool = False
    old_leaf_id: str | None = None
    new_leaf_id: str | None = None


@dataclass
class TreeHookAnswer:
    """What a ``session_before_tree`` handler may return."""

    cancel: bool = False
    summary: dict[str, Any] | None = None  # {"summary": str, "details"?: any}
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


BeforeTreeHook = Callable[[TreePreparation, AbortSignal], Awaitable[Any] | Any]


def landing_for(entry: SessionEntry) -> tuple[str | None, str | None]:
    """(new leaf id, editor text) for selecting ``entry`` in the tree."""
    # a user message this version could not read (kept as UnknownMessage) lands like other entries
    if isinstance(entry, MessageEntry) and entry.role == "user" and isinstance(entry.message, UserMessage):
        return entry.parent_id, content_text(entry.message.content)
    if isinstance(entry, CustomMessageEntry):
        return entry.parent_id, content_text(entry.content)
    return entry.id, None


def _get(answer: Any, key: str) -> Any:
    if answer is None:
        return None
    if isinstance(answer, dict):
        return answer.get(key)
    return getattr(answer, key, None)


async def navigate_tree(
    session_manager: SessionManager,
    target_id: str,
    *,
    summarize: bool = False,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    model: Model | None = None,
    stream_fn: Callable[..., Any] | None = None,
    signal: AbortSignal | None = None,
    reserve_tokens: int = 16384,
    thinking_level: str | None = None,
    retry: Any = None,
    before_tree: BeforeTreeHook | None = None,
) -> NavigateResult:
    old_leaf = session_manager.get_leaf_id()
    if target_id == old_leaf:
        return NavigateResult(old_leaf_id=old_leaf, new_leaf_id=old_leaf)
    if summarize and model is None:
        raise NavigationError("No model available for summarization")
    target = session_manager.get_entry(target_id)
    if target is None:
        raise EntryNotFoundError(target_id)

    # the summariser loads on the first navigation, not with every session
    from pi_app.coding.compaction.branch_summary import (
        collect_entries_for_branch_summary,
        generate_branch_summary,
    )
    from pi_app.coding.compaction.summarize import SummaryRequest

    collected = collect_entries_for_branch_summary(session_manager, old_leaf, target_id)
    prep = TreePreparation(
        target_id=target_id,
        old_leaf_id=old_leaf,
        common_ancestor_id=collected.common_ancestor_id,
        entries_to_summarize=collected.entries,
        user_wants_summary=summarize,
        custom_instructions=custom_instructions,
        replace_instructions=replace_instructions,
        label=label,
    )
    hook_summary: dict[str, Any] | None = None
    if before_tree is not None and signal is not None:
        answer = before_tree(prep, signal)
        if inspect.isawaitable(answer):
            answer = await answer
        if _get(answer, "cancel"):
            return NavigateResult(cancelled=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
        if summarize and _get(answer, "summary"):
            hook_summary = _get(answer, "summary")
        custom_instructions = _get(answer, "custom_instructions") or custom_instructions
        override = _get(answer, "replace_instructions")
        replace_instructions = replace_instructions if override is None else bool(override)
        label = _get(answer, "label") or label

    summary_text: str | None = None
    details: Any = None
    usage: dict[str, Any] | None = None
    from_hook = False
    if hook_summary is not None:
        summary_text = str(hook_summary.get("summary") or "")
        details = hook_summary.get("details")
        from_hook = True
    elif summarize and collected.entries:
        assert model is not None and stream_fn is not None
        req = SummaryRequest(model=model, stream_fn=stream_fn, signal=signal, thinking_level=thinking_level)
        if retry is not None:
            req.retry_enabled = bool(getattr(retry, "enabled", True))
            req.max_retries = int(getattr(retry, "max_retries", 3))
            req.base_delay_ms = int(getattr(retry, "base_delay_ms", 2000))
        result = await generate_branch_summary(
            collected.entries, req, custom_instructions, replace_instructions, reserve_tokens
        )
        if result.aborted:
            return NavigateResult(cancelled=True, aborted=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
        if result.error:
            raise NavigationError(result.error)
        summary_text = result.summary
        details = {"readFiles": result.read_files, "modifiedFiles": result.modified_files}
        from pi_app.coding.compaction.run import summary_usage

        usage = summary_usage(req.usage)

    new_leaf, editor_text = landing_for(target)
    summary_entry = None
    if summary_text is not None:
        summary_id = session_manager.branch_with_summary(new_leaf, summary_text, details, from_hook, usage)
        summary_entry = session_manager.get_entry(summary_id)
        if label:
            session_manager.append_label_change(summary_id, label)
    else:
        if new_leaf is None:
            session_manager.reset_leaf()
        else:
            session_manager.branch(new_leaf)
        if label:
            session_manager.append_label_change(target_id, label)
    return NavigateResult(
        editor_text=editor_text,
        summary_entry=summary_entry,
        from_extension=from_hook,
        old_leaf_id=old_leaf,
        new_leaf_id=session_manager.get_leaf_id(),
    )
