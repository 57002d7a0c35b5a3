"""Rendering stored messages into the transcript: resumed sessions and rebuilds (R-TUI-14, R-TR-10).

Each message kind becomes the block the live event stream would have produced: user messages,
finished assistant messages with their tool calls, tool results (matched to their call), user
``!`` commands, extension messages, and compaction/branch-summary markers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pi_app.ai.util.content_text import message_text
from pi_app.tui.transcript.blocks.custom import CustomMessageBlock
from pi_app.tui.transcript.blocks.summary import SummaryBlock
from pi_app.tui.transcript.blocks.user_bash import UserBashBlock

if TYPE_CHECKING:
    from pi_app.tui.host import HistoryHost


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
