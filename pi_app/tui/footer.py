"""The footer: working directory on line 1; token usage, cost, context use and model on line 2.

The numbers are formatted as pi does (R-FOOT-02..04): ``↑input ↓output R<cacheRead> W<cacheWrite>
$cost`` (each only when non-zero), then ``<pct>%/<window>`` of the context window, and the model
on the right, ``(provider) id``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static


def format_tokens(count: float) -> str:
    if count < 1000:
        return str(int(count))
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def shorten_home(path: str) -> str:
    home = os.path.expanduser("~")
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


@dataclass
class FooterStats:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    context_tokens: int = 0


def collect_stats(messages: list[Any]) -> FooterStats:
    stats = FooterStats()
    last_usage = None
    for message in messages:
        if getattr(message, "role", None) != "assistant":
            continue
        usage = message.usage
        stats.input += usage.input
        stats.output += usage.output
        stats.cache_read += usage.cache_read
        stats.cache_write += usage.cache_write
        stats.cost += usage.cost.total
        if message.stop_reason not in ("error", "aborted"):
            last_usage = usage
    if last_usage is not None:
        stats.context_tokens = (
            last_usage.input + last_usage.output + last_usage.cache_read + last_usage.cache_write
        )
    return stats


class Footer(Static):
    DEFAULT_CSS = """
    Footer { height: 2; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, cwd: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.cwd = cwd
        self.model: Any = None
        self.model_label = "no-model"
        self.thinking_level: str | None = None
        self.session_name: str | None = None
        self.stats = FooterStats()

    def on_mount(self) -> None:
        self.refresh_footer()

    def set_state(
        self, *, model: Any, thinking_level: str | None, messages: list[Any], session_name: str | None = None
    ) -> None:
        self.model = model
        self.thinking_level = thinking_level
        self.session_name = session_name
        self.stats = collect_stats(messages)
        self.refresh_footer()

    def left_text(self) -> str:
        s = self.stats
        parts = []
        if s.input:
            parts.append(f"↑{format_tokens(s.input)}")
        if s.output:
            parts.append(f"↓{format_tokens(s.output)}")
        if s.cache_read:
            parts.append(f"R{format_tokens(s.cache_read)}")
        if s.cache_write:
            parts.append(f"W{format_tokens(s.cache_write)}")
        if s.cost:
            parts.append(f"${s.cost:.3f}")
        if self.model is not None:
            window = self.model.context_window or 0
            pct = (s.context_tokens / window * 100) if window else 0.0
            parts.append(f"{pct:.1f}%/{format_tokens(window)} (auto)")
        return " ".join(parts)

    def right_text(self) -> str:
        if self.model is None:
            return "no-model"
        text = f"({self.model.provider}) {self.model.id}"
        if self.model.reasoning:
            level = self.thinking_level or "off"
            text += " • thinking off" if level == "off" else f" • {level}"
        return text

    def refresh_footer(self) -> None:
        width = max(20, (self.size.width or 80) - 2)
        line1 = shorten_home(self.cwd)
        if self.session_name:
            line1 += f" • {self.session_name}"
        if len(line1) > width:
            line1 = line1[: max(0, width - 3)] + "..."
        left, right = self.left_text(), self.right_text()
        gap = width - len(left) - len(right)
        if gap < 2:
            room = width - len(left) - 2
            right = right[:room] if room > 0 else ""
            gap = max(2, width - len(left) - len(right))
        line2 = left + " " * gap + right
        self.update(Text(f"{line1}\n{line2}"))

    def on_resize(self) -> None:
        self.refresh_footer()
