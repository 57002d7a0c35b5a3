"""The conversation transcript: an ordered list of blocks that follows the tail while streaming.

Blocks: the start-up header, user messages, assistant messages (Markdown, thinking shown dim and
italic), tool executions (title plus output preview), and one-line status/warning/error notes.
Streaming text is coalesced: deltas mark a block dirty and the block repaints at most once per
frame (``FRAME_INTERVAL``), so typing stays responsive while a reply streams (R-TUI-05).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from pi_app.ai.types import TextContent, ThinkingContent, ToolCall

FRAME_INTERVAL = 1 / 60
TOOL_PREVIEW_LINES = 10


class Block(Static):
    """One transcript entry."""

    DEFAULT_CSS = """
    Block { padding: 0 1; margin: 1 0 0 0; }
    """


class HeaderBlock(Block):
    DEFAULT_CSS = """
    HeaderBlock { margin: 0; color: $text-muted; }
    """


class UserBlock(Block):
    DEFAULT_CSS = """
    UserBlock { background: $boost; color: $text; padding: 1 1; }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Text(text))


class NoteBlock(Block):
    """A status, warning or error line."""

    DEFAULT_CSS = """
    NoteBlock.-error { color: $error; }
    NoteBlock.-warning { color: $warning; }
    NoteBlock.-status { color: $text-muted; }
    """

    def __init__(self, text: str, kind: str = "status") -> None:
        super().__init__(Text(text), classes=f"-{kind}")


class AssistantBlock(Block):
    """An assistant message; re-rendered from its content at most once per frame while streaming."""

    def __init__(self) -> None:
        super().__init__("")
        self.message: Any = None
        self._dirty = False
        self.error_text: str | None = None

    def update_message(self, message: Any) -> None:
        self.message = message
        if not self._dirty:
            self._dirty = True
            self.set_timer(FRAME_INTERVAL, self._flush)

    def finish(self, message: Any) -> None:
        self.message = message
        if message.stop_reason == "aborted":
            self.error_text = "Operation aborted"
        elif message.stop_reason == "error":
            self.error_text = f"Error: {message.error_message or 'unknown error'}"
        self._dirty = False
        self.update(self.render_message())

    def _flush(self) -> None:
        if self._dirty:
            self._dirty = False
            self.update(self.render_message())

    def plain_text(self) -> str:
        if self.message is None:
            return ""
        return "\n".join(b.text for b in self.message.content if isinstance(b, TextContent))

    def render_message(self) -> RenderableType:
        parts: list[RenderableType] = []
        if self.message is not None:
            for block in self.message.content:
                if isinstance(block, TextContent) and block.text.strip():
                    parts.append(Markdown(block.text))
                elif isinstance(block, ThinkingContent) and block.thinking.strip():
                    parts.append(Text(block.thinking, style="italic dim"))
        if self.error_text:
            parts.append(Text(self.error_text, style="red"))
        return Group(*parts) if parts else Text("")


class ToolBlock(Block):
    """A tool call: ``$ command`` / ``read path`` title and a preview of its output."""

    DEFAULT_CSS = """
    ToolBlock { background: $panel; }
    ToolBlock.-error { background: $error 20%; }
    ToolBlock.-done { background: $success 10%; }
    """

    def __init__(self, call_id: str, name: str, args: Any) -> None:
        super().__init__("")
        self.call_id = call_id
        self.tool_name = name
        self.args = args or {}
        self.output = ""
        self.is_error = False
        self.refresh_view()

    def title(self) -> str:
        args = self.args if isinstance(self.args, dict) else {}
        if self.tool_name == "bash":
            return f"$ {args.get('command', '')}"
        target = args.get("path") or args.get("pattern") or ""
        return f"{self.tool_name} {target}".rstrip()

    def set_result(self, result: Any, is_error: bool | None = None, final: bool = False) -> None:
        content = getattr(result, "content", None) or []
        self.output = "".join(getattr(b, "text", "") for b in content)
        if is_error is not None:
            self.is_error = is_error
        if final:
            self.set_class(self.is_error, "-error")
            self.set_class(not self.is_error, "-done")
        self.refresh_view()

    def refresh_view(self) -> None:
        lines = self.output.rstrip("\n").splitlines()
        shown = lines[-TOOL_PREVIEW_LINES:] if self.tool_name == "bash" else lines[:TOOL_PREVIEW_LINES]
        body = Text("\n".join(shown))
        hidden = len(lines) - len(shown)
        parts: list[RenderableType] = [Text(self.title(), style="bold")]
        if shown:
            parts.append(Text(""))
            parts.append(body)
        if hidden > 0:
            parts.append(Text(f"... ({hidden} more lines)", style="dim"))
        self.update(Group(*parts))


class Transcript(VerticalScroll):
    """Follows the tail while the user is at the bottom; never moves the view otherwise."""

    DEFAULT_CSS = """
    Transcript { height: 1fr; scrollbar-gutter: stable; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.streaming: AssistantBlock | None = None
        self.tools: dict[str, ToolBlock] = {}

    def _append(self, block: Block) -> Block:
        follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        self.mount(block)
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)
        return block

    def add_header(self, text: str) -> None:
        self._append(HeaderBlock(Text(text)))

    def add_user(self, text: str) -> None:
        self._append(UserBlock(text))

    def add_note(self, text: str, kind: str = "status") -> None:
        self._append(NoteBlock(text, kind))

    def start_assistant(self, message: Any) -> AssistantBlock:
        block = AssistantBlock()
        self._append(block)
        block.update_message(message)
        self.streaming = block
        return block

    def update_assistant(self, message: Any) -> None:
        block = self.streaming or self.start_assistant(message)
        block.update_message(message)
        for part in message.content:
            if isinstance(part, ToolCall) and part.id and part.id not in self.tools:
                self.tools[part.id] = ToolBlock(part.id, part.name, part.arguments)
        self._follow()

    def end_assistant(self, message: Any) -> None:
        block = self.streaming or self.start_assistant(message)
        block.finish(message)
        self.streaming = None
        for part in message.content:
            if isinstance(part, ToolCall):
                tool = self.tools.get(part.id)
                if tool is not None:
                    tool.args = part.arguments
                    if not tool.is_mounted:
                        self._append(tool)
        self._follow()

    def tool_started(self, call_id: str, name: str, args: Any) -> ToolBlock:
        tool = self.tools.get(call_id)
        if tool is None:
            tool = self.tools[call_id] = ToolBlock(call_id, name, args)
        tool.args = args
        if not tool.is_mounted:
            self._append(tool)
        tool.refresh_view()
        return tool

    def tool_updated(
        self,
        call_id: str,
        name: str,
        args: Any,
        partial: Any,
        final: bool = False,
        is_error: bool | None = None,
    ) -> None:
        tool = self.tools.get(call_id) or self.tool_started(call_id, name, args)
        tool.set_result(partial, is_error=is_error, final=final)
        self._follow()

    def _follow(self) -> None:
        if self.is_vertical_scroll_end or self.max_scroll_y == 0:
            self.call_after_refresh(self.scroll_end, animate=False)

    def clear_blocks(self) -> None:
        self.streaming = None
        self.tools.clear()
        self.remove_children()
