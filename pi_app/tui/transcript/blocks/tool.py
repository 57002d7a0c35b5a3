"""The tool execution block: the state-coloured box around one tool call (R-TR-05).

States: pending/partial (``toolPendingBg``), success (``toolSuccessBg``), error (``toolErrorBg``).
What goes inside the box — headers, collapsed previews, diffs, highlighting, truncation notices,
extension ``render_call`` / ``render_result`` — is ``tool_render.tool_strips`` (R-RENDER). Image
parts of a result (``read`` of an image) render below the text through the transcript's image
renderer.
"""

from __future__ import annotations

import time
from typing import Any

from textual.strip import Strip

from pi_app.ai.util.content_text import content_text
from pi_app.tui.transcript.blocks.base import Block
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.text import padded_box
from pi_app.tui.transcript.blocks.theme import BlockTheme, bg
from pi_app.tui.transcript.blocks.tool_render import (
    DEFAULT_PREVIEW_LINES,
    PREVIEW_LINES,
    ToolView,
    tool_strips,
)


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
        super().__init__()  # a serial key: call ids repeat across turns (tool_calls.py)
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
        self.details: Any = None
        self.result: Any = None
        self.preview: dict[str, Any] | None = None
        """The pending edit's diff preview (R-RENDER-06), set by the app once the arguments are complete."""
        self.definition: Any = None
        """The tool's ``ToolDefinition`` when known (extension ``render_call`` / ``render_result``)."""
        self.started_at = time.monotonic()
        self.finished_at: float | None = None
        self.show_timing = False
        """True once the tool is seen running (``tool_execution_start``); stored calls have no duration."""
        self._view = ToolView(name, self.args if isinstance(self.args, dict) else {})

    # -- content --------------------------------------------------------------------------------

    def set_args(self, args: Any) -> None:
        if args is not None and args != self.args:
            self.args = args
            self.changed()

    def set_result(self, result: Any, is_error: bool | None = None, final: bool = False) -> None:
        content = getattr(result, "content", None) or []
        self.output = content_text(content)
        image_parts = [part for part in content if getattr(part, "type", "") == "image"]
        if self._image_factory is not None and len(image_parts) != len(self.images):
            for image in self.images:
                image.dispose()
            self.images = [self._image_factory(part) for part in image_parts]
        if is_error is not None:
            self.is_error = is_error
        if result is not None:
            self.result = result
            self.details = getattr(result, "details", None)
        if final and not self.done:
            self.done = True
            if self.finished_at is None:
                self.finished_at = time.monotonic()
        self.changed()

    def set_preview(self, preview: dict[str, Any] | None) -> None:
        self.preview = preview
        self.changed()

    def body_lines(self) -> list[str]:
        return self.output.rstrip("\n").split("\n") if self.output.strip() else []

    def view(self) -> ToolView:
        """The renderer's view of this block (``tool_render``)."""
        view = self._view
        view.name = self.tool_name
        view.args = self.args if isinstance(self.args, dict) else {}
        view.output = self.output
        view.is_error = self.is_error
        view.done = self.done
        view.details = self.details
        view.result = self.result
        view.expanded = self.expanded
        view.expand_hint = self.expand_hint
        view.preview = self.preview
        end = self.finished_at if self.finished_at is not None else time.monotonic()
        timed = self.show_timing and (self.result is not None or self.done)
        view.elapsed_s = end - self.started_at if timed else None
        definition = self.definition
        view.render_call = getattr(definition, "render_call", None)
        view.render_result = getattr(definition, "render_result", None)
        return view

    # -- rendering ------------------------------------------------------------------------------

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        if self.is_error:
            box = bg(theme, "toolErrorBg")
        elif self.done:
            box = bg(theme, "toolSuccessBg")
        else:
            box = bg(theme, "toolPendingBg")
        pad = output_pad()
        inner = max(1, width - 2 * pad)
        content = tool_strips(self.view(), inner, theme)
        for image in self.images:
            content.extend(image.render(inner, theme))
        return [Strip.blank(0), *padded_box(content, width, box, pad_x=pad)]

    def estimate_height(self, width: int) -> int:
        lines = len(self.body_lines())
        limit = PREVIEW_LINES.get(self.tool_name, DEFAULT_PREVIEW_LINES)
        return 4 + (lines if self.expanded else min(lines, limit + 1))

    def dispose(self) -> None:
        for image in self.images:
            image.dispose()
