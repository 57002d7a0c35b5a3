"""The footer (R-FOOT-01…06): where you are, what it costs, which model.

Line 1 (dim): the working directory with ``~`` for home, `` (<git branch>)`` in a repository,
`` • <session name>`` when named; cut with ``...`` to the width.
Line 2: on the left ``↑input ↓output R<cacheRead> W<cacheWrite> $cost`` (each part only when not
zero; ``(sub)`` after the cost for subscription logins) and the context figure
``<pct>%/<window>`` (``?/<window>`` right after a compaction) with `` (auto)`` when
auto-compaction is on, in warning colour above 70 % and error colour above 90 %; on the right the
model id, `` • <thinking level>`` for reasoning models, prefixed ``(<provider>)`` when several
providers have models. Line 3 (only when set): extension statuses sorted by key.

The session's fields come from one ``SessionSnapshot`` (``show_snapshot``): never read from the
session, never mixed from two moments.

``FooterState`` + ``footer_lines(state, width)`` are pure (tested without Textual); the widget
only feeds them and repaints. The git branch comes from ``.git/HEAD`` (worktrees followed through
the ``gitdir:`` file) and is re-read when that file changes (``watch_branch``: watchfiles, from
right after the first frame until the footer goes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from pi_app.coding.session_port import SessionSnapshot, UsageTotals
from pi_app.tui.editor.segments import truncate_cells

if TYPE_CHECKING:
    from pi_app.tui.theme.watch import FileWatcher


def format_tokens(count: float) -> str:
    """R-FOOT-03: 999, 1.2k, 12k, 1.2M, 12M."""
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


def git_head_file(cwd: str) -> Path | None:
    """The HEAD file of the repository containing ``cwd`` (following a worktree's ``.git`` file)."""
    current = Path(cwd).resolve()
    for directory in (current, *current.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return dot_git / "HEAD"
        if dot_git.is_file():
            try:
                content = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if content.startswith("gitdir:"):
                target = Path(content[len("gitdir:") :].strip())
                if not target.is_absolute():
                    target = directory / target
                return target / "HEAD"
            return None
    return None


def git_branch(cwd: str) -> str | None:
    """The current branch, ``detached`` for a detached HEAD, None outside a repository."""
    head = git_head_file(cwd)
    if head is None:
        return None
    try:
        content = head.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if content.startswith("ref:"):
        return content.split("/", 2)[-1] if content.startswith("ref: refs/heads/") else content[4:].strip()
    return "detached"


Usage = UsageTotals
"""Token and cost totals over the session's assistant messages (summed by the session)."""


@dataclass
class FooterState:
    """Everything the footer shows; the app fills it and calls ``repaint``."""

    cwd: str
    branch: str | None = None
    session_name: str | None = None
    usage: Usage = field(default_factory=Usage)
    subscription: bool = False
    context_tokens: int | None = 0
    context_window: int = 0
    auto_compact: bool = True
    model_id: str | None = None
    provider: str | None = None
    reasoning: bool = False
    thinking_level: str = "off"
    show_provider: bool = False
    statuses: dict[str, str] = field(default_factory=dict)
    save_error: str | None = None
    """Why the session file is not being saved (shown in the error colour until a write works)."""
    starting: bool = False
    """The session is still being built: no model to name yet (not "no-model", which means none is set)."""


def _sanitize(text: str) -> str:
    return " ".join(text.replace("\t", " ").replace("\n", " ").split())


def footer_lines(state: FooterState, width: int, styles: dict[str, Style] | None = None) -> list[Text]:
    styles = styles or {}
    dim = styles.get("dim", Style(dim=True))
    width = max(1, width)
    line1 = shorten_home(state.cwd)
    if state.branch:
        line1 += f" ({state.branch})"
    if state.session_name:
        line1 += f" • {state.session_name}"
    lines = [Text(truncate_cells(line1, width), dim)]

    u = state.usage
    parts = []
    if u.input:
        parts.append(f"↑{format_tokens(u.input)}")
    if u.output:
        parts.append(f"↓{format_tokens(u.output)}")
    if u.cache_read:
        parts.append(f"R{format_tokens(u.cache_read)}")
    if u.cache_write:
        parts.append(f"W{format_tokens(u.cache_write)}")
    if u.cost or state.subscription:
        parts.append(f"${u.cost:.3f}" + (" (sub)" if state.subscription else ""))
    left = Text(" ".join(parts), dim)
    if state.model_id is not None:
        auto = " (auto)" if state.auto_compact else ""
        window = format_tokens(state.context_window)
        if state.context_tokens is None:
            figure, pct = f"?/{window}{auto}", 0.0
        else:
            pct = state.context_tokens / state.context_window * 100 if state.context_window else 0.0
            figure = f"{pct:.1f}%/{window}{auto}"
        style = dim
        if pct > 90:
            style = styles.get("error", style)
        elif pct > 70:
            style = styles.get("warning", style)
        if left.plain:
            left.append(" ", dim)
        left.append(figure, style)
    if cell_len(left.plain) > width:
        left = Text(truncate_cells(left.plain, width), dim)

    right = state.model_id or ("" if state.starting else "no-model")
    if state.model_id and state.reasoning:
        right += " • thinking off" if state.thinking_level == "off" else f" • {state.thinking_level}"
    room = width - cell_len(left.plain) - 2
    if state.show_provider and state.provider and cell_len(f"({state.provider}) {right}") <= room:
        right = f"({state.provider}) {right}"
    if room <= 0:
        right = ""
    elif cell_len(right) > room:
        right = truncate_cells(right, room)
    gap = max(2, width - cell_len(left.plain) - cell_len(right)) if right else 0
    line2 = left.copy()
    if right:
        line2.append(" " * gap + right, dim)
    lines.append(line2)

    if state.statuses:
        text = " ".join(_sanitize(state.statuses[key]) for key in sorted(state.statuses))
        lines.append(Text(truncate_cells(text, width), dim))
    if state.save_error:
        error = styles.get("error", Style(color="red"))
        lines.append(Text(truncate_cells(_sanitize(state.save_error), width), error))
    return lines


class Footer(Static):
    DEFAULT_CSS = """
    Footer { height: auto; padding: 0 0; }
    """

    def __init__(self, cwd: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.state = FooterState(cwd=cwd, branch=git_branch(cwd), starting=True)
        self.styles_map: dict[str, Style] = {}
        self._shown: Text | None = None
        self.shown_seq = 0
        """The ``seq`` of the snapshot the footer shows (0: none yet)."""
        self._head_watcher: FileWatcher | None = None

    def on_mount(self) -> None:
        self.repaint()

    def watch_branch(self) -> None:
        """Show the new branch whenever the repository's HEAD file changes (R-FOOT-06)."""
        from pi_app.tui.theme.watch import FileWatcher

        head = git_head_file(self.state.cwd)
        if head is not None and head.exists():
            app = self.app  # the watcher calls back on its own thread
            self._head_watcher = FileWatcher(head, lambda _path: app.call_from_thread(self._branch_changed))

    def _branch_changed(self) -> None:
        self.state.branch = git_branch(self.state.cwd)
        self.repaint()

    def on_unmount(self) -> None:
        if self._head_watcher is not None:
            self._head_watcher.stop()

    def show_snapshot(self, snapshot: SessionSnapshot, *, show_provider: bool) -> None:
        """Show what ``snapshot`` says (every session field from that one moment) and repaint."""
        state = self.state
        state.model_id = snapshot.model_id
        state.provider = snapshot.provider
        state.reasoning = snapshot.reasoning
        state.thinking_level = snapshot.thinking_level
        state.session_name = snapshot.session_name
        state.save_error = snapshot.save_error
        state.show_provider = show_provider
        state.usage = snapshot.usage
        state.subscription = snapshot.subscription
        state.context_window = snapshot.context_window
        state.context_tokens = snapshot.context_tokens
        state.auto_compact = snapshot.auto_compact
        self.shown_seq = snapshot.seq
        self.repaint()

    def set_theme_styles(self, styles: dict[str, Style]) -> None:
        self.styles_map = styles
        self.repaint()

    def repaint(self) -> None:
        width = self.size.width or 80
        lines = footer_lines(self.state, width, self.styles_map)
        text = Text("\n").join(lines)
        if text != self._shown:  # most refreshes change nothing (an update costs a layout)
            self._shown = text
            self.update(text)

    def on_resize(self) -> None:
        self.repaint()
