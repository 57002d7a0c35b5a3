"""The status line (spinner + message) and the pending area above it (spec 60 §2.1 items 3–4).

``StatusLine`` shows a braille spinner ticking every 80 ms with a message (``Working...``,
``Retrying (1/3) in 2s...``, ``Compacting context...``) while something runs, and nothing when
idle (R-TUI-05). The spinner stops when the app is built with ``animate=False`` (snapshots and
tests), which keeps every frame deterministic.

``PendingArea`` lists the queued steering and follow-up messages, one dim line each, then a hint
naming the dequeue key (R-INT-04), then the user ``!`` commands started while the agent streams
(R-INT-03; they move into the transcript on the next submit); it collapses to zero height when
nothing is pending.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static

from pi_app.tui.editor.segments import truncate_cells

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_INTERVAL_S = 0.08


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: auto; padding: 0 1; color: $pi-muted; }
    StatusLine.-warning { color: $pi-warning; }
    StatusLine.-idle { height: 0; }
    """

    def __init__(self, *, animate: bool = True, id: str | None = None) -> None:
        super().__init__("", id=id, classes="-idle")
        self.animations = animate  # (not ``animate``: that is Textual's method)
        self.message: str | None = None
        self.frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        if self.animations:
            self._timer = self.set_interval(SPINNER_INTERVAL_S, self._tick, pause=True)

    @property
    def active(self) -> bool:
        return self.message is not None

    def show(self, message: str, *, warning: bool = False) -> None:
        """Start (or retitle) the spinner."""
        self.message = message
        self.set_class(warning, "-warning")
        self.remove_class("-idle")
        if self._timer is not None:
            self._timer.resume()
        self._paint()

    def hide(self) -> None:
        self.message = None
        self.add_class("-idle")
        self.remove_class("-warning")
        if self._timer is not None:
            self._timer.pause()
        self.update("")

    def _tick(self) -> None:
        if self.message is None:
            return
        self.frame = (self.frame + 1) % len(SPINNER_FRAMES)
        self._paint()

    def _paint(self) -> None:
        if self.message is not None:
            self.update(Text(f"{SPINNER_FRAMES[self.frame]} {self.message}"))


class PendingArea(Static):
    DEFAULT_CSS = """
    PendingArea { height: auto; padding: 0 1; color: $pi-dim; }
    PendingArea.-empty { height: 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="-empty")
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.dequeue_hint = "alt+up"
        self.bash_blocks: list[Any] = []
        """``UserBashBlock``s waiting for the next submit."""
        self.theme: Any = None
        """The pi render theme the bash blocks are drawn with (set by the app)."""

    def set_queues(self, steering: list[str], follow_up: list[str]) -> None:
        self.steering, self.follow_up = list(steering), list(follow_up)
        self._paint()

    def add_bash_block(self, block: Any) -> None:
        self.bash_blocks.append(block)
        self._paint()

    def take_bash_blocks(self) -> list[Any]:
        blocks, self.bash_blocks = self.bash_blocks, []
        self._paint()
        return blocks

    def repaint(self) -> None:
        self._paint()

    def _paint(self) -> None:
        if not self.steering and not self.follow_up and not self.bash_blocks:
            self.add_class("-empty")
            self.update("")
            return
        self.remove_class("-empty")
        width = max(10, (self.size.width or 80) - 2)
        out = Text()
        if self.steering or self.follow_up:
            lines = [f"Steering: {_one_line(text)}" for text in self.steering]
            lines += [f"Follow-up: {_one_line(text)}" for text in self.follow_up]
            lines = [truncate_cells(line, width) for line in lines]
            lines.append(f"↳ {self.dequeue_hint} to edit all queued messages")
            out.append("\n".join(lines))
        if self.theme is not None:
            for block in self.bash_blocks:
                if out:
                    out.append("\n")
                out.append_text(_strips_text(block.render(width, self.theme)))
        self.update(out)

    def on_resize(self) -> None:
        self._paint()


def _strips_text(strips: list[Strip]) -> Text:
    text = Text()
    for index, strip in enumerate(strips):
        if index:
            text.append("\n")
        for segment in strip:
            text.append(segment.text, segment.style)
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split())
