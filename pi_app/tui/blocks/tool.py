"""The tool execution block: title, output preview, state background (R-TR-05, generic form).

States: pending/partial (``toolPendingBg``), success (``toolSuccessBg``), error (``toolErrorBg``).
Collapsed previews show the first (``bash``: last) N lines per tool; the remainder is announced as
``... (N more lines, <expand key> to expand)``. Image parts of a result (``read`` of an image)
render below the text through the transcript's image renderer.

Tool-specific renderers (edit diffs, syntax-highlighted writes, extension ``render_call`` /
``render_result``) belong in their own block kinds or in ``title_text`` / ``body_lines``
overrides; this module is the fallback every tool gets.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.blocks.base import Block, render_rich
from pi_app.tui.blocks.text import padded_box
from pi_app.tui.blocks.theme import BlockTheme, bg, fg

PREVIEW_LINES = {"bash": 5, "read": 10, "write": 10, "ls": 20, "find": 20, "grep": 15}
DEFAULT_PREVIEW_LINES = 10
TAIL_PREVIEW_TOOLS = frozenset({"bash"})


class ToolBlock(Block):
    kind = "tool"

    def __init__(
        self,
        call_id: str,
        name: str,
        args: Any = None,
        *,
        expand_hint: str = "ctrl+o",
        image_factory: Any = None,
    ) -> None:
        super().__init__(key=call_id or None)
        self.call_id = call_id
        self.tool_name = name
        self.args: Any = args or {}
        self.output = ""
        self.images: list[Any] = []
        self.is_error = False
        self.done = False
        self.expand_hint = expand_hint
        self._image_factory = image_factory
        """Callable ``(ImageContent) -> image part`` supplied by the transcript (None: no images)."""

    # -- content --------------------------------------------------------------------------------

    def set_args(self, args: Any) -> None:
        if args is not None and args != self.args:
            self.args = args
            self.changed()

    def set_result(self, result: Any, is_error: bool | None = None, final: bool = False) -> None:
        content = getattr(result, "content", None) or []
        self.output = "".join(
            getattr(part, "text", "") for part in content if getattr(part, "type", "") == "text"
        )
        image_parts = [part for part in content if getattr(part, "type", "") == "image"]
        if self._image_factory is not None and len(image_parts) != len(self.images):
            for image in self.images:
                image.dispose()
            self.images = [self._image_factory(part) for part in image_parts]
        if is_error is not None:
            self.is_error = is_error
        if final:
            self.done = True
        self.changed()

    def title_text(self) -> str:
        args = self.args if isinstance(self.args, dict) else {}
        if self.tool_name == "bash":
            return f"$ {args.get('command', '')}"
        target = args.get("path") or args.get("file_path") or args.get("pattern") or ""
        return f"{self.tool_name} {target}".rstrip()

    def body_lines(self) -> list[str]:
        return self.output.rstrip("\n").split("\n") if self.output.strip() else []

    # -- rendering ------------------------------------------------------------------------------

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        if self.is_error:
            box = bg(theme, "toolErrorBg")
        elif self.done:
            box = bg(theme, "toolSuccessBg")
        else:
            box = bg(theme, "toolPendingBg")
        inner = max(1, width - 2)
        content = render_rich(Text(self.title_text(), style=fg(theme, "toolTitle") + Style(bold=True)), inner)
        lines = self.body_lines()
        limit = PREVIEW_LINES.get(self.tool_name, DEFAULT_PREVIEW_LINES)
        shown = lines
        if not self.expanded and len(lines) > limit:
            shown = lines[-limit:] if self.tool_name in TAIL_PREVIEW_TOOLS else lines[:limit]
        if shown:
            content.append(Strip.blank(0))
            output_style = fg(theme, "error") if self.is_error else fg(theme, "toolOutput")
            content.extend(render_rich(Text("\n".join(shown), style=output_style), inner))
        hidden = len(lines) - len(shown)
        if hidden > 0:
            note = f"... ({hidden} more lines, {self.expand_hint} to expand)"
            content.extend(render_rich(Text(note, style=fg(theme, "muted")), inner))
        for image in self.images:
            content.extend(image.render(inner, theme))
        return [Strip.blank(0), *padded_box(content, width, box)]

    def estimate_height(self, width: int) -> int:
        lines = len(self.body_lines())
        limit = PREVIEW_LINES.get(self.tool_name, DEFAULT_PREVIEW_LINES)
        return 4 + (lines if self.expanded else min(lines, limit + 1))

    def dispose(self) -> None:
        for image in self.images:
            image.dispose()
