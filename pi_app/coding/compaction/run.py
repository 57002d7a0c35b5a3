"""One compaction run, from ``compaction_start`` to ``compaction_end`` (spec 30 R-CMP-30…33).

``run_compaction`` is the common path of manual ``/compact``, threshold and overflow compaction:
emit ``compaction_start``, prepare from the current path, let an extension hook cancel or supply
the result, otherwise ask the model, then append the entry, rebuild the agent's messages and emit
``compaction_end`` (always paired with the start). It never raises for expected failures; the
outcome says what happened and ``error`` carries the user-facing text.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import Model, Usage
from pi_app.coding.compaction.estimate import CompactionSettings
from pi_app.coding.compaction.prepare import CompactionPreparation, prepare_compaction
from pi_app.coding.compaction.summarize import (
    CompactionResult,
    SummarizationAborted,
    SummaryRequest,
    compact,
)
from pi_app.coding.session.context import context_from_path

if TYPE_CHECKING:
    from pi_app.coding.session.manager import SessionManager

Emit = Callable[[Any], Awaitable[None]]
BeforeCompactHook = Callable[[CompactionPreparation, list[Any], str | None, AbortSignal], Awaitable[Any]]

ALREADY_COMPACTED = "Already compacted"
TOO_SMALL = "Nothing to compact (session too small)"
CANCELLED = "Compaction cancelled"


class CompactionSkipped(Exception):
    """Nothing to do; the message says why."""


@dataclass
class CompactionOutcome:
    result: CompactionResult | None = None
    aborted: bool = False
    error: str | None = None  # user-facing text, already prefixed per reason
    entry_id: str | None = None


def _failure_text(reason: str, message: str) -> str:
    if reason == "threshold":
        return f"Auto-compaction failed: {message}"
    if reason == "overflow":
        return f"Context overflow recovery failed: {message}"
    return (
        message if message in (ALREADY_COMPACTED, TOO_SMALL, CANCELLED) else f"Compaction failed: {message}"
    )


def summary_usage(usages: list[Usage]) -> dict[str, Any] | None:
    """The summed usage of a summary's requests, camelCase as the session stores it (None: none)."""
    return _sum_usage(usages)


def _sum_usage(usages: list[Usage]) -> dict[str, Any] | None:
    if not usages:
        return None
    total = Usage()
    for u in usages:
        total.input += u.input
        total.output += u.output
        total.cache_read += u.cache_read
        total.cache_write += u.cache_write
        total.total_tokens += u.total_tokens
        total.cost.input += u.cost.input
        total.cost.output += u.cost.output
        total.cost.cache_read += u.cost.cache_read
        total.cost.cache_write += u.cost.cache_write
        total.cost.total += u.cost.total
    from pi_app.ai.codec import to_dict

    return to_dict(total)


async def run_compaction(
    *,
    reason: str,
    session_manager: SessionManager,
    settings: CompactionSettings | Any,
    model: Model | None,
    stream_fn: Callable[..., Any],
    signal: AbortSignal,
    emit: Emit,
    replace_messages: Callable[[list[Any]], None],
    will_retry: bool = False,
    custom_instructions: str | None = None,
    thinking_level: str | None = None,
    retry: Any = None,
    api_key: str | None = None,
    before_compact: BeforeCompactHook | None = None,
    after_compact: Callable[[Any, bool], Awaitable[None]] | None = None,
) -> CompactionOutcome:
    from pi_app.coding.session_events import CompactionEndEvent, CompactionStartEvent

    await emit(CompactionStartEvent(reason))
    outcome = CompactionOutcome()
    try:
        outcome = await _compact_now(
            reason=reason,
            session_manager=session_manager,
            settings=CompactionSettings.from_any(settings),
            model=model,
            stream_fn=stream_fn,
            signal=signal,
            replace_messages=replace_messages,
            custom_instructions=custom_instructions,
            thinking_level=thinking_level,
            retry=retry,
            api_key=api_key,
            before_compact=before_compact,
            after_compact=after_compact,
        )
    except SummarizationAborted:
        outcome = CompactionOutcome(aborted=True, error=CANCELLED)
    except CompactionSkipped as exc:
        outcome = CompactionOutcome(error=_failure_text(reason, str(exc)))
    except Exception as exc:  # auto-compaction never crashes the session (R-CMP-33)
        outcome = CompactionOutcome(error=_failure_text(reason, str(exc) or type(exc).__name__))
    succeeded = outcome.result is not None
    await emit(
        CompactionEndEvent(
            reason=reason,
            result=outcome.result,
            aborted=outcome.aborted,
            will_retry=will_retry and succeeded,
            error_message=None if succeeded or outcome.aborted else outcome.error,
        )
    )
    return outcome


async def _compact_now(
    *,
    reason: str,
    session_manager: SessionManager,
    settings: CompactionSettings,
    model: Model | None,
    stream_fn: Callable[..., Any],
    signal: AbortSignal,
    replace_messages: Callable[[list[Any]], None],
    custom_instructions: str | None,
    thinking_level: str | None,
    retry: Any,
    api_key: str | None,
    before_compact: BeforeCompactHook | None,
    after_compact: Callable[[Any, bool], Awaitable[None]] | None,
) -> CompactionOutcome:
    if model is None:
        raise CompactionSkipped("No model selected")
    path = session_manager.get_branch()
    preparation = prepare_compaction(path, settings)
    if preparation is None:
        raise CompactionSkipped(ALREADY_COMPACTED if path else TOO_SMALL)
    if preparation.is_empty and not (reason == "overflow" and preparation.previous_summary):
        raise CompactionSkipped(TOO_SMALL)  # spec 30 §5.7: never summarise an empty conversation

    result: CompactionResult | None = None
    from_hook = False
    if before_compact is not None:
        hook = before_compact(preparation, list(path), custom_instructions, signal)
        answer = await hook if inspect.isawaitable(hook) else hook
        if answer is not None and getattr(answer, "cancel", False):
            return CompactionOutcome(aborted=True, error=CANCELLED)
        supplied = getattr(answer, "compaction", None) if answer is not None else None
        if supplied is not None:
            result, from_hook = supplied, True

    req = SummaryRequest(
        model=model, stream_fn=stream_fn, signal=signal, thinking_level=thinking_level, api_key=api_key
    )
    if retry is not None:
        req.retry_enabled = bool(getattr(retry, "enabled", True))
        req.max_retries = int(getattr(retry, "max_retries", 3))
        req.base_delay_ms = int(getattr(retry, "base_delay_ms", 2000))
    if result is None:
        kept = _kept_messages(path, preparation.first_kept_entry_id)
        result = await compact(preparation, req, custom_instructions, kept)
    if signal.aborted:
        return CompactionOutcome(aborted=True, error=CANCELLED)

    entry_id = session_manager.append_compaction(
        result.summary,
        result.first_kept_entry_id,
        result.tokens_before,
        result.details,
        from_hook,
        _sum_usage(req.usage),
    )
    replace_messages(session_manager.build_session_context().messages)
    if after_compact is not None:
        await after_compact(session_manager.get_entry(entry_id), from_hook)
    return CompactionOutcome(result=result, entry_id=entry_id)


def _kept_messages(path: list[Any], first_kept_id: str | None) -> list[Any]:
    start = next((i for i, e in enumerate(path) if e.id == first_kept_id), len(path))
    return context_from_path(path[start:]).messages
