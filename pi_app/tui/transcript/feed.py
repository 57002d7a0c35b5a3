"""The transcript part: what the session's messages and tool runs do to the transcript (spec 60 §2.11).

``TranscriptFeed`` owns the mapping from the bridge's typed messages (``bridge.messages``) to the
``Transcript`` widget's blocks: a user message, a streaming reply and its end, a custom message
with its extension renderer, a tool's start, partial output and result (with the agent thread's
times, so ``Took N.Ns`` measures the tool), the diff an edit would make (R-RENDER-06), at the
end of a run the blocks left dangling, and after a compaction its notes, the redrawn context and
what it cost (``showCacheMissNotices``, also for branch summaries). ``PiApp`` routes each message
to it in arrival order. Nothing here reads the session: the lookups it needs come through
``FeedHost`` (``pi_app.tui.host``), the diff preview through the bridge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_app.ai.util.content_text import message_text
from pi_app.tui.transcript.blocks.custom import CustomMessageBlock
from pi_app.tui.transcript.blocks.summary import SummaryBlock
from pi_app.tui.transcript.history import message_images, rebuild_transcript
from pi_app.tui.transcript.view import Transcript

if TYPE_CHECKING:
    from pi_app.tui.bridge.messages import (
        AgentEnded,
        CompactionEnded,
        MessageEnded,
        MessageStarted,
        MessageUpdated,
        ToolEnded,
        ToolStarted,
        ToolUpdated,
    )
    from pi_app.tui.host import FeedHost
    from pi_app.tui.transcript.blocks.tool import ToolBlock


class TranscriptFeed:
    """Turns the session's messages and tool runs into transcript blocks (UI thread)."""

    def __init__(self, host: FeedHost) -> None:
        self._host = host

    @property
    def transcript(self) -> Transcript:
        return self._host.transcript

    def message_started(self, message: MessageStarted) -> None:
        msg = message.event.message
        role = getattr(msg, "role", None)
        transcript = self.transcript
        if role == "user":
            transcript.add_user(message_text(msg), message_images(msg))
        elif role == "assistant":
            transcript.start_assistant(msg)
        elif role == "custom" and getattr(msg, "display", True):
            transcript.append_block(CustomMessageBlock(msg, self._host.ext.message_renderer(msg)))

    def message_updated(self, message: MessageUpdated) -> None:
        if getattr(message.event.message, "role", None) == "assistant":
            self.transcript.update_assistant(message.event.message)

    def message_ended(self, message: MessageEnded) -> None:
        msg: Any = message.event.message
        if getattr(msg, "role", None) != "assistant":
            return
        transcript = self.transcript
        transcript.end_assistant(msg)
        if message.cache_notice:
            self._host.show_warning(message.cache_notice)
        stop_reason = getattr(msg, "stop_reason", None)
        if stop_reason not in ("aborted", "error"):
            self._preview_edits(msg)
            return
        text = "Operation aborted" if stop_reason == "aborted" else (msg.error_message or "Error")
        for tool in transcript.tools.values():
            if not tool.done:
                tool.set_result(None, is_error=True, final=True)
                tool.output = text
                tool.changed()
                transcript.refresh_block(tool, immediate=True)

    def tool_started(self, message: ToolStarted) -> None:
        event = message.event
        tool = self.transcript.tool_started(event.tool_call_id, event.tool_name, event.args)
        if not tool.show_timing:
            tool.show_timing = True
            tool.started_at = message.at
        if tool.definition is None:
            tool.definition = self._host.ext.tool_definition(event.tool_name)

    def tool_updated(self, message: ToolUpdated) -> None:
        event = message.event
        self.transcript.tool_updated(event.tool_call_id, event.tool_name, event.args, event.partial_result)

    def tool_ended(self, message: ToolEnded) -> None:
        event = message.event
        transcript = self.transcript
        tool = transcript.tools.for_update(event.tool_call_id)
        if tool is not None:
            tool.finished_at = message.at  # set_result keeps a finish time it is given
        transcript.tool_updated(
            event.tool_call_id, event.tool_name, None, event.result, final=True, is_error=event.is_error
        )

    def agent_ended(self, message: AgentEnded) -> None:
        """The run is over: a dangling streaming block or unfinished tool is finished as it is."""
        transcript = self.transcript
        if transcript.streaming is not None:
            transcript.end_assistant(transcript.streaming.message)
        for tool in transcript.tools.values():
            if not tool.done:
                tool.set_result(None, is_error=tool.is_error, final=True)
                transcript.refresh_block(tool, immediate=True)

    def compaction_ended(self, message: CompactionEnded) -> None:
        """The notes and the redraw after a compaction (what was typed during it is the router's)."""
        event = message.event
        host = self._host
        if event.aborted:
            host.show_status(
                "Compaction cancelled" if event.reason == "manual" else "Auto-compaction cancelled"
            )
        elif event.result is not None and event.reason != "manual":
            # auto-compaction: context order, so the retried or next answer follows the summary
            rebuild_transcript(host, messages=message.context)
        elif event.result is not None:
            # /compact: the summary goes at the bottom where the user is looking (as pi does)
            result = event.result
            rebuild_transcript(host, skip_roles=("compactionSummary",), messages=message.context)
            hint = host.hint("app.tools.expand")
            self.transcript.append_block(
                SummaryBlock(result.summary, tokens_before=result.tokens_before, expand_hint=hint)
            )
        elif event.error_message:
            host.show_error(event.error_message)
        if event.result is not None and not event.aborted:
            self.show_summary_cost("Compaction", message.usage)

    def show_summary_cost(self, label: str, usage: Any) -> None:
        """``showCacheMissNotices`` (pi 1.6.0) also says what a compaction or branch summary cost."""
        settings = self._host.settings
        if settings is None or not settings.get_show_cache_miss_notices():
            return
        from pi_app.coding.cache_notices import summary_cost_text

        text = summary_cost_text(label, usage)
        if text:
            self._host.show_warning(text)

    def _preview_edits(self, message: Any) -> None:
        """R-RENDER-06: once an edit's arguments are complete, show the diff it would make."""
        for part in getattr(message, "content", None) or []:
            if getattr(part, "type", None) != "toolCall" or part.name != "edit":
                continue
            tool = self.transcript.tools.get(part.id)
            arguments = part.arguments if isinstance(part.arguments, dict) else {}
            if tool is None or tool.done or not arguments.get("path") or not arguments.get("edits"):
                continue
            self._host.run_worker(
                self._compute_preview(tool, arguments), group="edit-preview", exit_on_error=False
            )

    async def _compute_preview(self, tool: ToolBlock, arguments: dict[str, Any]) -> None:
        """The diff the edit would make, computed on the agent loop."""
        from pi_app.coding.tools.edit import compute_edits_diff

        try:
            preview = await self._host.bridge.request(
                lambda s: compute_edits_diff(arguments["path"], list(arguments["edits"]), s.cwd)
            )
        except Exception as exc:
            preview = {"error": str(exc)}
        if not tool.done:
            tool.set_preview(preview)
            self.transcript.refresh_block(tool)
