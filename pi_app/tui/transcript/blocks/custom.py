"""Custom (extension) messages in the transcript (R-TR-05, 40 §2.6).

Default rendering: a ``customMessageBg`` box with the ``[<customType>]`` label in
``customMessageLabel`` and the content as markdown in ``customMessageText``. An extension may
register a renderer for its type (``register_message_renderer``); it is called as
``renderer(message, options, theme)`` (``options.expanded``, ``options.output_pad``) and may return a string, a Rich renderable or a list of
strips. A renderer that raises (or returns nothing) falls back to the default, so a broken
extension never hides the message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.ai.util.content_text import message_text
from pi_app.tui.transcript.blocks.base import Block, estimate_text_height, indent, render_rich
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.markdown import render_markdown
from pi_app.tui.transcript.blocks.theme import BlockTheme, bg, fg

log = logging.getLogger(__name__)

MessageRenderer = Callable[[Any, "MessageRenderOptions", Any], "RenderableType | list[Strip] | str | None"]


@dataclass(frozen=True)
class MessageRenderOptions:
    """The ``options`` a message renderer receives (spec 40 §2.3): ``expanded`` and ``output_pad``."""

    expanded: bool = False
    output_pad: int = 1

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


class CustomMessageBlock(Block):
    kind = "custom"

    def __init__(self, message: Any, renderer: MessageRenderer | None = None, key: str | None = None) -> None:
        super().__init__(key)
        self.message = message
        self.renderer = renderer

    def _custom(self, width: int, theme: BlockTheme) -> list[Strip] | None:
        if self.renderer is None:
            return None
        try:
            result = self.renderer(self.message, MessageRenderOptions(self.expanded), theme)
        except Exception:
            log.exception("message renderer for %s failed", getattr(self.message, "custom_type", "?"))
            return None
        if result is None:
            return None
        if isinstance(result, list):
            return result
        if isinstance(result, str):
            result = Text(result)
        return render_rich(result, width)

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        pad = output_pad()
        inner = max(1, width - 2 * pad)
        custom = self._custom(inner, theme)
        if custom is not None:
            return [Strip.blank(0), *indent(custom, pad)]
        box = bg(theme, "customMessageBg")
        label = f"[{getattr(self.message, 'custom_type', '') or 'custom'}]"
        lines = render_rich(Text(label, style=fg(theme, "customMessageLabel") + Style(bold=True)), inner)
        lines.extend(
            render_markdown(message_text(self.message, "\n"), inner, theme, fg(theme, "customMessageText"))
        )
        return [Strip.blank(0), *(s.apply_style(box).crop_extend(0, width, box) for s in indent(lines, pad))]

    def estimate_height(self, width: int) -> int:
        return 3 + estimate_text_height(message_text(self.message, "\n"), width)
