"""A user ``!cmd`` / ``!!cmd`` in the transcript (R-TR-05, R-INT-03).

Rules and the ``$ <command>`` header in ``bashMode`` (dim for ``!!``, whose output stays out of
the model's context), the output streaming in (collapsed: the last 20 lines and
``... N more lines (ctrl+o to expand)``), a ``Running... (esc to cancel)`` line while it runs,
then the status: ``(cancelled)`` in warning colour, ``(exit N)`` in error colour for a non-zero
exit, and ``Output truncated. Full output: <path>`` when the tail was cut.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.transcript.blocks.base import Block, indent, render_rich, text_strip
from pi_app.tui.transcript.blocks.layout import output_pad
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

PREVIEW_LINES = 20


class UserBashBlock(Block):
    kind = "user-bash"

    def __init__(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        expand_hint: str = "ctrl+o",
        cancel_hint: str = "escape",
        key: str | None = None,
    ) -> None:
        super().__init__(key)
        self.command = command
        self.exclude_from_context = exclude_from_context
        self.output = ""
        self.running = True
        self.exit_code: int | None = None
        self.cancelled = False
        self.full_output_path: str | None = None
        self.truncated = False
        self.expand_hint = expand_hint
        self.cancel_hint = cancel_hint

    def append(self, chunk: str) -> None:
        self.output += chunk
        self.changed()

    def finish(
        self,
        *,
        output: str | None = None,
        exit_code: int | None,
        cancelled: bool,
        truncated: bool = False,
        full_output_path: str | None = None,
    ) -> None:
        if output is not None:
            self.output = output
        self.running = False
        self.exit_code = exit_code
        self.cancelled = cancelled
        self.truncated = truncated
        self.full_output_path = full_output_path
        self.changed()

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        pad = output_pad()
        inner = max(1, width - 2 * pad)
        colour = fg(theme, "dim") if self.exclude_from_context else fg(theme, "bashMode")
        rule = text_strip("─" * width, colour)
        header = render_rich(Text(f"$ {self.command}", style=colour + Style(bold=True)), inner)
        lines = self.output.rstrip("\n").split("\n") if self.output.strip() else []
        shown = lines if self.expanded else lines[-PREVIEW_LINES:]
        body: list[Strip] = []
        hidden = len(lines) - len(shown)
        if hidden > 0:
            body += render_rich(
                Text(f"... {hidden} more lines ({self.expand_hint} to expand)", fg(theme, "muted")), inner
            )
        if shown:
            body += render_rich(Text("\n".join(shown), style=fg(theme, "toolOutput")), inner)
        status: list[Text] = []
        if self.running:
            status.append(Text(f"Running... ({self.cancel_hint} to cancel)", style=fg(theme, "muted")))
        elif self.cancelled:
            status.append(Text("(cancelled)", style=fg(theme, "warning")))
        elif self.exit_code not in (0, None):
            status.append(Text(f"(exit {self.exit_code})", style=fg(theme, "error")))
        if self.truncated and self.full_output_path:
            status.append(
                Text(f"Output truncated. Full output: {self.full_output_path}", style=fg(theme, "warning"))
            )
        for text in status:
            body += render_rich(text, inner)
        return [Strip.blank(0), rule, *indent(header, pad), *indent(body, pad), rule]

    def estimate_height(self, width: int) -> int:
        lines = self.output.count("\n") + 1
        return 5 + (lines if self.expanded else min(lines, PREVIEW_LINES + 1))
