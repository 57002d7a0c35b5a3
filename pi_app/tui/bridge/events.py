"""How the app reacts to each ``AgentSessionEvent`` (spec 60 §2.11).

One function, ``handle_session_event(app, event)``, called on the UI thread for every event the
agent thread posts. It updates the transcript blocks, the status line, the pending area and the
editor border; the footer is recomputed by the caller after every event.
"""

from __future__ import annotations

import time
from typing import Any

from pi_app.ai.util.content_text import message_text
from pi_app.tui.transcript.blocks.custom import CustomMessageBlock
from pi_app.tui.transcript.history import message_images


def handle_session_event(app: Any, event: Any) -> None:
    handler = _HANDLERS.get(getattr(event, "type", ""))
    if handler is not None:
        handler(app, event)


def _agent_start(app: Any, event: Any) -> None:
    app.set_working(True)


def _agent_end(app: Any, event: Any) -> None:
    transcript = app.transcript
    if transcript.streaming is not None:  # a dangling streaming block: finish it as it is
        transcript.end_assistant(transcript.streaming.message)
    for tool in transcript.tools.values():
        if not tool.done:
            tool.set_result(None, is_error=tool.is_error, final=True)
            transcript.refresh_block(tool, immediate=True)
    app.set_working(False)
    app.refresh_pending()
    app.after_agent_end()


def _message_start(app: Any, event: Any) -> None:
    message = event.message
    role = getattr(message, "role", None)
    transcript = app.transcript
    if role == "user":
        transcript.add_user(message_text(message), message_images(message))
        app.refresh_pending()
    elif role == "assistant":
        transcript.start_assistant(message)
    elif role == "custom" and getattr(message, "display", True):
        transcript.append_block(CustomMessageBlock(message, app.message_renderer(message)))


def _message_update(app: Any, event: Any) -> None:
    if getattr(event.message, "role", None) == "assistant":
        app.transcript.update_assistant(event.message)


def _message_end(app: Any, event: Any) -> None:
    message = event.message
    if getattr(message, "role", None) != "assistant":
        return
    transcript = app.transcript
    transcript.end_assistant(message)
    _cache_miss_notice(app, message)
    stop_reason = getattr(message, "stop_reason", None)
    if stop_reason not in ("aborted", "error"):
        _preview_edits(app, message)
    if stop_reason in ("aborted", "error"):
        text = "Operation aborted" if stop_reason == "aborted" else (message.error_message or "Error")
        for tool in transcript.tools.values():
            if not tool.done:
                tool.set_result(None, is_error=True, final=True)
                tool.output = text
                tool.changed()
                transcript.refresh_block(tool, immediate=True)


def _cache_miss_notice(app: Any, message: Any) -> None:
    """``showCacheMissNotices`` (pi 1.6.0): a warning line when this answer re-paid a cached prompt."""
    settings = getattr(app, "settings", None)
    wanted = getattr(settings, "get_show_cache_miss_notices", None)
    if wanted is None or not wanted():
        return
    from pi_app.coding.cache_notices import detect_cache_miss, notice_text

    session = app.session
    previous = None
    for earlier in reversed(list(getattr(session, "messages", []) or [])):
        if earlier is message or getattr(earlier, "timestamp", None) == getattr(message, "timestamp", 0):
            continue  # the answer itself, already in the session's messages
        if getattr(earlier, "role", None) == "assistant":
            previous = earlier
            break
    text = notice_text(detect_cache_miss(previous, message, getattr(session, "model", None)))
    if text:
        app.show_warning(text)


def _tool_start(app: Any, event: Any) -> None:
    tool = app.transcript.tool_started(event.tool_call_id, event.tool_name, event.args)
    if not tool.show_timing:
        tool.show_timing = True
        tool.started_at = _event_time(app)
    if tool.definition is None:
        tool.definition = app.tool_definition(event.tool_name)


def _preview_edits(app: Any, message: Any) -> None:
    """R-RENDER-06: once an edit's arguments are complete, show the diff it would make."""
    from pi_app.ai.types import ToolCall

    for part in getattr(message, "content", None) or []:
        if not isinstance(part, ToolCall) or part.name != "edit":
            continue
        tool = app.transcript.tools.get(part.id)
        arguments = part.arguments if isinstance(part.arguments, dict) else {}
        if tool is None or tool.done or not arguments.get("path") or not arguments.get("edits"):
            continue
        app.run_worker(_compute_preview(app, tool, arguments), group="edit-preview", exit_on_error=False)


async def _compute_preview(app: Any, tool: Any, arguments: dict[str, Any]) -> None:
    from pi_app.coding.tools.edit import compute_edits_diff

    try:
        preview = await app.bridge.request(
            lambda s: compute_edits_diff(arguments["path"], list(arguments["edits"]), s.cwd)
        )
    except Exception as exc:
        preview = {"error": str(exc)}
    if not tool.done:
        tool.set_preview(preview)
        app.transcript.refresh_block(tool)


def _tool_update(app: Any, event: Any) -> None:
    app.transcript.tool_updated(event.tool_call_id, event.tool_name, event.args, event.partial_result)


def _tool_end(app: Any, event: Any) -> None:
    tool = app.transcript.tools.for_update(event.tool_call_id)
    if tool is not None:
        tool.finished_at = _event_time(app)  # set_result keeps a finish time it is given
    app.transcript.tool_updated(
        event.tool_call_id, event.tool_name, None, event.result, final=True, is_error=event.is_error
    )


def _event_time(app: Any) -> float:
    """When the event being handled happened on the agent thread (``SessionEvent.at``)."""
    return getattr(app, "event_time", None) or time.monotonic()


def _queue_update(app: Any, event: Any) -> None:
    app.refresh_pending(list(event.steering), list(event.follow_up))


def _compaction_start(app: Any, event: Any) -> None:
    app.compaction_started(event.reason)


def _compaction_end(app: Any, event: Any) -> None:
    app.compaction_ended(event)


def _retry_start(app: Any, event: Any) -> None:
    app.retry_started(event)


def _retry_end(app: Any, event: Any) -> None:
    app.retry_ended(event)


def _thinking_changed(app: Any, event: Any) -> None:
    app.editor.set_border_token(app.thinking_border_token())


def _session_info(app: Any, event: Any) -> None:
    app.update_title()


_HANDLERS = {
    "agent_start": _agent_start,
    "agent_end": _agent_end,
    "message_start": _message_start,
    "message_update": _message_update,
    "message_end": _message_end,
    "tool_execution_start": _tool_start,
    "tool_execution_update": _tool_update,
    "tool_execution_end": _tool_end,
    "queue_update": _queue_update,
    "compaction_start": _compaction_start,
    "compaction_end": _compaction_end,
    "auto_retry_start": _retry_start,
    "auto_retry_end": _retry_end,
    "thinking_level_changed": _thinking_changed,
    "session_info_changed": _session_info,
}
