"""pi's session events as ACP ``session/update`` notifications (the Agent Client Protocol).

``UpdateMapper`` turns the events of one ``AgentSession`` into the ACP updates an editor shows:
text and thinking deltas become ``agent_message_chunk`` / ``agent_thought_chunk``; a tool call
becomes ``tool_call`` (kind, title, file locations, raw input, and for ``write``/``edit`` a diff)
then ``tool_call_update`` while it runs (its partial output) and when it ends (``completed`` or
``failed`` with its output). ``history_updates`` replays a loaded session's messages the same way
(``user_message_chunk`` for the user's turns), which is what ``session/load`` must send.

Only what a user sees goes out: pi's own session events (queues, compaction, retries) have no ACP
counterpart and are left out; a retry simply continues the same prompt.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from acp import helpers as h
from acp import schema as s

from pi_app.agent.events import (
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_app.agent.types import AgentToolResult
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.ai.util.content_text import content_text

SessionUpdate = (
    s.UserMessageChunk | s.AgentMessageChunk | s.AgentThoughtChunk | s.ToolCallStart | s.ToolCallProgress
)

TOOL_KINDS: dict[str, s.ToolKind] = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
}


def tool_kind(name: str) -> s.ToolKind:
    return TOOL_KINDS.get(name, "other")


def tool_title(name: str, args: Any, cwd: str) -> str:
    """What the editor shows as the call's headline: ``Read src/a.py``, ``Run `ls -la```."""
    args = args if isinstance(args, dict) else {}
    path = args.get("path")
    shown = _relative(path, cwd) if isinstance(path, str) else ""
    if name == "bash":
        command = str(args.get("command", "")).strip().splitlines()
        return f"Run `{command[0]}`" if command else "Run a command"
    if name in ("read", "write", "edit", "ls") and shown:
        verb = {"read": "Read", "write": "Write", "edit": "Edit", "ls": "List"}[name]
        return f"{verb} {shown}"
    if name in ("grep", "find"):
        pattern = args.get("pattern", "")
        return f"{'Search' if name == 'grep' else 'Find'} {pattern!s}" + (f" in {shown}" if shown else "")
    return name


def tool_locations(name: str, args: Any, cwd: str) -> list[s.ToolCallLocation] | None:
    args = args if isinstance(args, dict) else {}
    path = args.get("path")
    if name in ("read", "write", "edit", "ls", "grep", "find") and isinstance(path, str) and path:
        line = args.get("offset") if name == "read" and isinstance(args.get("offset"), int) else None
        return [s.ToolCallLocation(path=absolute(path, cwd), line=line)]
    return None


def absolute(path: str, cwd: str) -> str:
    expanded = os.path.expanduser(path[1:] if path.startswith("@") else path)
    return os.path.normpath(os.path.join(cwd, expanded))


def _relative(path: str, cwd: str) -> str:
    full = absolute(path, cwd)
    try:
        rel = os.path.relpath(full, cwd)
    except ValueError:
        return full
    return full if rel.startswith("..") else rel


def result_content(result: AgentToolResult | None) -> list[s.ContentToolCallContent]:
    """A tool result's text and images as ACP tool-call content."""
    out: list[s.ContentToolCallContent] = []
    for block in (result.content if result is not None else None) or []:
        if isinstance(block, TextContent) and block.text:
            out.append(h.tool_content(h.text_block(block.text)))
        elif isinstance(block, ImageContent):
            out.append(h.tool_content(h.image_block(block.data, block.mime_type)))
    return out


def result_text(result: AgentToolResult | None) -> str:
    return content_text(result.content if result else [], "\n")


class UpdateMapper:
    """Maps one session's events to ACP updates; ``diffs`` holds the diff computed for a pending
    ``write``/``edit`` call (by the permission step) so the ``tool_call`` update can carry it."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.diffs: dict[str, s.FileEditToolCallContent] = {}
        self.announced: set[str] = set()

    def tool_call_start(
        self, call_id: str, name: str, args: Any, status: s.ToolCallStatus
    ) -> s.ToolCallStart:
        content: list[Any] = [self.diffs[call_id]] if call_id in self.diffs else []
        self.announced.add(call_id)
        return h.start_tool_call(
            call_id,
            tool_title(name, args, self.cwd),
            kind=tool_kind(name),
            status=status,
            content=content or None,
            locations=tool_locations(name, args, self.cwd),
            raw_input=args,
        )

    def map(self, event: object) -> list[SessionUpdate]:
        if isinstance(event, MessageUpdateEvent):
            inner = event.assistant_message_event
            kind = getattr(inner, "type", None)
            delta = getattr(inner, "delta", "")
            if kind == "text_delta" and delta:
                return [h.update_agent_message_text(delta)]
            if kind == "thinking_delta" and delta:
                return [h.update_agent_thought_text(delta)]
            return []
        if isinstance(event, ToolExecutionStartEvent):
            if event.tool_call_id in self.announced:  # already shown by its permission request
                return [h.update_tool_call(event.tool_call_id, status="in_progress")]
            return [self.tool_call_start(event.tool_call_id, event.tool_name, event.args, "in_progress")]
        if isinstance(event, ToolExecutionUpdateEvent):
            content = result_content(event.partial_result)
            return [h.update_tool_call(event.tool_call_id, content=content)] if content else []
        if isinstance(event, ToolExecutionEndEvent):
            return [self.tool_call_end(event.tool_call_id, event.result, event.is_error)]
        return []

    def tool_call_end(
        self, call_id: str, result: AgentToolResult | None, is_error: bool
    ) -> s.ToolCallProgress:
        content: list[Any] = list(result_content(result))
        diff = self.diffs.pop(call_id, None)
        if diff is not None and not is_error:
            content.insert(0, diff)
        self.announced.discard(call_id)
        return h.update_tool_call(
            call_id,
            status="failed" if is_error else "completed",
            content=content,
            raw_output={"text": result_text(result)},
        )


def history_updates(messages: Sequence[object], cwd: str) -> Iterator[SessionUpdate]:
    """A loaded session's conversation as the updates that would have shown it live."""
    mapper = UpdateMapper(cwd)
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            if isinstance(content, str):
                if content:
                    yield h.update_user_message_text(content)
                continue
            for block in content:
                if isinstance(block, TextContent) and block.text:
                    yield h.update_user_message_text(block.text)
                elif isinstance(block, ImageContent):
                    yield h.update_user_message(h.image_block(block.data, block.mime_type))
        elif isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, TextContent) and part.text:
                    yield h.update_agent_message_text(part.text)
                elif isinstance(part, ThinkingContent) and part.thinking:
                    yield h.update_agent_thought_text(part.thinking)
                elif isinstance(part, ToolCall):
                    calls[part.id] = part
                    yield mapper.tool_call_start(part.id, part.name, part.arguments, "pending")
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in calls:
            result = AgentToolResult(content=list(message.content))
            yield mapper.tool_call_end(message.tool_call_id, result, message.is_error)
