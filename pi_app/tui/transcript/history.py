"""Rendering stored messages into the transcript: resumed sessions and rebuilds (R-TUI-14, R-TR-10).

Each message kind becomes the block the live event stream would have produced: user messages,
finished assistant messages with their tool calls, tool results (matched to their call), user
``!`` commands, extension messages, and compaction/branch-summary markers. ``rebuild_transcript``
clears the transcript and draws the header and the session's context again (after a compaction,
a move in the tree, ``/reload``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pi_app.ai.util.content_text import message_text
from pi_app.tui.transcript.blocks.custom import CustomMessageBlock
from pi_app.tui.transcript.blocks.summary import SummaryBlock
from pi_app.tui.transcript.blocks.user_bash import UserBashBlock

if TYPE_CHECKING:
    from pi_app.agent.types import AgentMessage
    from pi_app.coding.agent_session import AgentSession
    from pi_app.tui.host import HistoryHost, RebuildHost


def message_images(message: Any) -> list[Any]:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return []
    return [b for b in content if getattr(b, "type", "") == "image"]


def add_message(app: HistoryHost, message: Any) -> None:
    """Append the block(s) for one finished message."""
    transcript = app.transcript
    role = getattr(message, "role", None)
    hint = app.hint("app.tools.expand")
    if role == "user":
        transcript.add_user(message_text(message), message_images(message))
    elif role == "assistant":
        transcript.end_assistant(message)
    elif role == "toolResult":
        transcript.tool_updated(
            message.tool_call_id, message.tool_name, None, message, final=True, is_error=message.is_error
        )
    elif role == "bashExecution":
        block = UserBashBlock(
            message.command, exclude_from_context=bool(message.exclude_from_context), expand_hint=hint
        )
        block.finish(
            output=message.output,
            exit_code=message.exit_code,
            cancelled=message.cancelled,
            truncated=message.truncated,
            full_output_path=message.full_output_path,
        )
        transcript.append_block(block)
    elif role == "custom":
        if getattr(message, "display", True):
            transcript.append_block(CustomMessageBlock(message, app.ext.message_renderer(message)))
    elif role == "compactionSummary":
        transcript.append_block(
            SummaryBlock(message.summary, tokens_before=message.tokens_before, expand_hint=hint)
        )
    elif role == "branchSummary":
        transcript.append_block(SummaryBlock(message.summary, branch=True, expand_hint=hint))


def render_session_history(app: HistoryHost, messages: Iterable[Any]) -> None:
    for message in messages:
        add_message(app, message)


def context_messages(session: AgentSession | None) -> list[AgentMessage]:
    """The session's current context (empty while it starts)."""
    if session is None:
        return []
    try:
        return list(session.session_manager.build_session_context().messages)
    except Exception:  # a broken file still shows what the agent has in memory
        return list(session.messages)


def rebuild_transcript(
    app: RebuildHost, skip_roles: tuple[str, ...] = (), messages: list[Any] | None = None
) -> None:
    """Clear the transcript and render the session's current context again (R-TR-10);
    ``messages``: that context, when the bridge already read it on the agent loop."""
    app.ext.check_generation()
    transcript = app.transcript
    streaming = transcript.streaming
    transcript.clear_blocks()
    app.header.show()
    if app.session is not None:
        context = context_messages(app.session) if messages is None else messages
        render_session_history(app, [m for m in context if getattr(m, "role", None) not in skip_roles])
    if streaming is not None and app.is_working:
        transcript.append_block(streaming)
        transcript.streaming = streaming
