"""The assistant message block: markdown text, thinking, and an error/abort line (R-TR-05).

Each text or thinking part keeps its own ``MarkdownSource``, so while a reply streams only the
unstable tail of the part that grew is rendered again (R-TR-09); everything else comes from the
chunk caches. Tool calls in the message are separate tool blocks (the transcript creates them).

Mermaid blocks and ``$…$`` math are drawn (``md_render.Drawings``); the expanded block (Ctrl+O,
``app.tools.expand``) shows their source instead, so the source is always one key away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.ai.types import TextContent, ThinkingContent
from pi_app.ai.util.content_text import message_text
from pi_app.terminal_text import visible_controls
from pi_app.tui.transcript.blocks.base import Block, estimate_text_height, indent, render_rich
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.markdown import MarkdownSource
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

if TYPE_CHECKING:
    from pi_app.ai.types import AssistantMessage
    from pi_app.tui.transcript.blocks.md_render import Drawings


class AssistantBlock(Block):
    kind = "assistant"

    def __init__(
        self, message: AssistantMessage | None = None, key: str | None = None, hide_thinking: bool = False
    ) -> None:
        super().__init__(key)
        self.message: AssistantMessage | None = None
        self.error_text: str | None = None
        self.hide_thinking = hide_thinking
        self._sources: dict[int, MarkdownSource] = {}
        self._stale = False
        self.streaming = False
        """True while the reply is arriving (``markdown.mermaid: final`` waits for the end)."""
        if message is not None:
            self.set_message(message)

    # -- content --------------------------------------------------------------------------------

    def set_message(self, message: AssistantMessage) -> None:
        """Take the (possibly partial) message; only parts whose text grew will re-render.

        Called for every streamed delta, so it only stores the message: the markdown sources
        take the new text when the block is next measured or painted (once per frame)."""
        self.message = message
        self._stale = True
        self.changed()

    def _sync(self) -> None:
        if not self._stale:
            return
        self._stale = False
        for index, part in enumerate(getattr(self.message, "content", None) or []):
            text = _part_text(part)
            if text is None:
                continue
            source = self._sources.get(index)
            if source is None:
                source = self._sources[index] = MarkdownSource()
            source.set_text(text)

    def finish(self, message: AssistantMessage) -> None:
        """The final message: adds the abort/error line when the turn did not end normally."""
        self.streaming = False
        stop_reason = getattr(message, "stop_reason", None)
        if stop_reason == "aborted":
            self.error_text = "Operation aborted"
        elif stop_reason == "error":
            self.error_text = f"Error: {getattr(message, 'error_message', None) or 'unknown error'}"
        self.set_message(message)

    def set_hide_thinking(self, hide: bool) -> None:
        if hide != self.hide_thinking:
            self.hide_thinking = hide
            self.changed()

    def plain_text(self) -> str:
        """The message's text parts joined by newlines (what `/copy` would take)."""
        return message_text(self.message, "\n")

    @property
    def chunk_renders(self) -> int:
        self._sync()
        return sum(source.chunk_renders for source in self._sources.values())

    # -- rendering ------------------------------------------------------------------------------

    def _drawings(self) -> Drawings:
        """Mermaid and math drawn, or their source when the block is expanded (Ctrl+O)."""
        from pi_app.tui.transcript.blocks.diagrams import draws_mermaid
        from pi_app.tui.transcript.blocks.md_render import SOURCE_ONLY, Drawings

        if self.expanded:
            return SOURCE_ONLY
        return Drawings(mermaid=draws_mermaid(self.streaming), math=True)

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        self._sync()
        pad = output_pad()  # outputPad: 0 or 1 column of margin on each side
        margin = pad if width > 2 * pad else 0
        width = max(1, width - 2 * margin)
        parts: list[list[Strip]] = []
        content = getattr(self.message, "content", None) or []
        thinking_style = fg(theme, "thinkingText") + Style(italic=True)
        drawings = self._drawings()
        for index, part in enumerate(content):
            source = self._sources.get(index)
            if source is None or not source.text.strip():
                continue  # empty or whitespace-only parts are skipped
            if isinstance(part, ThinkingContent):
                if self.hide_thinking:
                    parts.append(
                        indent(render_rich(Text("Thinking...", style=thinking_style), width), margin)
                    )
                else:
                    parts.append(source.render(width, theme, thinking_style, margin, drawings))
            else:
                parts.append(source.render(width, theme, margin=margin, drawings=drawings))
        if self.error_text:
            parts.append(indent(render_rich(Text(self.error_text, style=fg(theme, "error")), width), margin))
        strips: list[Strip] = []
        for part in parts:
            if part:
                strips.append(Strip.blank(0))
                strips.extend(part)
        return strips

    def estimate_height(self, width: int) -> int:
        self._sync()
        total = 0
        for source in self._sources.values():
            total += 1 + estimate_text_height(source.text, width)
        return max(1, total + (2 if self.error_text else 0))


def _part_text(part: Any) -> str | None:
    """The part's text with control characters made visible before layout (model text must not
    drive the terminal: issue 19 item 5)."""
    if isinstance(part, TextContent):
        return visible_controls(part.text)
    if isinstance(part, ThinkingContent):
        return visible_controls(part.thinking)
    return None
