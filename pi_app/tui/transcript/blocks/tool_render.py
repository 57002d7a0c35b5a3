"""What a tool block shows for each built-in tool (50-tools R-RENDER, 60 R-TR-05).

``tool_lines(view, width, theme)`` returns the lines inside the tool box: a header, the body and
the notices. Headers follow pi: ``$ <command>`` for bash; ``read <path>[:from-to]``, ``write``,
``edit``, ``ls`` with the path in the accent colour (a clickable ``file://`` link where the
terminal shows OSC 8 links: ``pi_app.tui.terminal.hyperlinks``); ``grep /<pattern>/ in <path>`` and
``find <pattern> in <path>``; any other tool shows its name and its arguments compactly.

Collapsed previews (until the expand key): read 10 lines (highlighted by file extension), write
10 lines of the content being written (highlighted, growing while the arguments stream), grep 15,
find and ls 20, bash the last 5 lines with ``... (N earlier lines, <key> to expand)`` above them;
a hidden rest is announced as ``... (N more lines, <key> to expand)``. ``read`` of a skill file,
a context file (AGENTS.md, CLAUDE.md) collapses to one line (R-RENDER-02). Edits show the diff
(``+`` success colour, ``-`` error colour, context dim; the changed part of a one-line change in
reverse video), first the preview computed while the call is pending, then the real result
(R-RENDER-06). A failed call shows its text plainly in the error colour (R-RENDER-03);
truncation notices come from ``details["truncation"]`` (R-RENDER-04); bash shows ``Took N.Ns``
(``Elapsed`` while running) and the full-output path when the output was cut (R-RENDER-05).

Extension tools may bring ``render_call(args, theme)`` / ``render_result(result, options,
theme)``; a renderer that fails or returns None falls back to the generic view (R-EXT-15).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pi_app.tui.chrome.footer import shorten_home
from pi_app.tui.transcript.blocks.base import render_rich
from pi_app.tui.transcript.blocks.syntax import highlight_lines
from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

log = logging.getLogger(__name__)

PREVIEW_LINES = {"bash": 5, "read": 10, "write": 10, "ls": 20, "find": 20, "grep": 15}
DEFAULT_PREVIEW_LINES = 10
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_CONTEXT_FILES = frozenset({"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"})


@dataclass
class ToolView:
    """Everything the renderer needs about one tool execution."""

    name: str
    args: dict[str, Any]
    output: str = ""
    is_error: bool = False
    done: bool = False
    details: Any = None
    expanded: bool = False
    expand_hint: str = "ctrl+o"
    elapsed_s: float | None = None
    preview: dict[str, Any] | None = None
    """Pending edit preview: ``{"diff", "firstChangedLine"}`` or ``{"error"}``."""
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None
    result: Any = None
    warned: set[str] = field(default_factory=set)


def sanitize(text: str) -> str:
    """Tool output as text: ANSI escapes and control characters (except newlines/tabs) removed."""
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


def _lines(text: str) -> list[str]:
    text = text.rstrip("\n")
    return text.split("\n") if text.strip() else []


def _more(hidden: int, hint: str, theme: BlockTheme, earlier: bool = False) -> Text:
    text = Text(f"... ({hidden} {'earlier' if earlier else 'more'} lines, ", fg(theme, "muted"))
    text.append(hint, fg(theme, "dim"))
    text.append(" to expand)", fg(theme, "muted"))
    return text


# -- headers -------------------------------------------------------------------------------------


def _link(path: str) -> str | None:
    """The path's ``file://`` URI while clickable links are on (``hyperlinks``), else None."""
    from pi_app.tui.terminal.hyperlinks import file_uri, link_base

    base = link_base()
    return file_uri(path, base) if base is not None else None


def header(view: ToolView, theme: BlockTheme) -> Text:
    args = view.args
    title = fg(theme, "toolTitle") + Style(bold=True)
    accent = fg(theme, "accent")
    muted = fg(theme, "muted")
    name = view.name
    if name == "bash":
        text = Text(f"$ {args.get('command', '')}", title)
        if args.get("timeout"):
            text.append(f" (timeout {args['timeout']}s)", muted)
        return text
    text = Text(name, title)
    raw_path = str(args.get("path") or args.get("file_path") or "")
    path = shorten_home(raw_path)
    link = (
        _link(raw_path or ".")
        if name in ("read", "write", "edit", "ls") and (raw_path or name == "ls")
        else None
    )
    if link is not None:
        accent = accent + Style(link=link)
    if name == "read":
        text.append(f" {path}", accent)
        offset, limit = args.get("offset"), args.get("limit")
        if offset or limit:
            start = int(offset or 1)
            end = f"{start + int(limit) - 1}" if limit else ""
            text.append(f":{start}-{end}" if end else f":{start}", fg(theme, "warning"))
    elif name in ("write", "edit"):
        text.append(f" {path}", accent)
    elif name == "ls":
        text.append(f" {path or '.'}", accent)
    elif name == "grep":
        text.append(f" /{args.get('pattern', '')}/", accent)
        text.append(f" in {path or '.'}", muted)
        if args.get("glob"):
            text.append(f" ({args['glob']})", muted)
    elif name == "find":
        text.append(f" {args.get('pattern', '')}", accent)
        text.append(f" in {path or '.'}", muted)
    elif args:
        compact = json.dumps(args, ensure_ascii=False, separators=(", ", ": "))
        text.append(" " + (compact if len(compact) <= 200 else compact[:197] + "..."), muted)
    return text


# -- bodies --------------------------------------------------------------------------------------


def _preview(view: ToolView, lines: list[Text], theme: BlockTheme, *, tail: bool = False) -> list[Text]:
    limit = PREVIEW_LINES.get(view.name, DEFAULT_PREVIEW_LINES)
    if view.expanded or len(lines) <= limit:
        return lines
    hidden = len(lines) - limit
    if tail:
        return [_more(hidden, view.expand_hint, theme, earlier=True), *lines[-limit:]]
    return [*lines[:limit], _more(hidden, view.expand_hint, theme)]


def _plain(text: str, theme: BlockTheme, token: str = "toolOutput") -> list[Text]:
    style = fg(theme, token)
    return [Text(line, style) for line in _lines(text)]


def _resource_line(view: ToolView, theme: BlockTheme) -> Text | None:
    """R-RENDER-02: skill and context files read collapse to one line."""
    path = str(view.args.get("path") or "")
    base = os.path.basename(path)
    if base == "SKILL.md":
        label = f"[skill] {os.path.basename(os.path.dirname(path)) or path}"
    elif base in _CONTEXT_FILES:
        label = f"read resource {shorten_home(path)}"
    else:
        return None
    text = Text(label, fg(theme, "customMessageLabel"))
    text.append(" (", fg(theme, "muted"))
    text.append(view.expand_hint, fg(theme, "dim"))
    text.append(" to expand)", fg(theme, "muted"))
    return text


def _diff_lines(diff: str, theme: BlockTheme) -> list[Text]:
    added, removed, context = (
        fg(theme, "toolDiffAdded"),
        fg(theme, "toolDiffRemoved"),
        fg(theme, "toolDiffContext"),
    )
    raw = diff.split("\n")
    out: list[Text] = []
    i = 0
    while i < len(raw):
        line = raw[i]
        following = raw[i + 1] if i + 1 < len(raw) else ""
        if line.startswith("-") and following.startswith("+"):
            removed_text, added_text = _inline_pair(line, following, removed, added)
            out += [removed_text, added_text]
            i += 2
            continue
        if line.startswith("+"):
            out.append(Text(line, added))
        elif line.startswith("-"):
            out.append(Text(line, removed))
        else:
            out.append(Text(line, context))
        i += 1
    return out


def _inline_pair(old: str, new: str, old_style: Style, new_style: Style) -> tuple[Text, Text]:
    """A replaced line pair with the changed middle part of each in reverse video."""
    a, b = old[1:], new[1:]
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    reverse = Style(reverse=True)

    def build(sign: str, text: str, style: Style) -> Text:
        out = Text(sign + text[:prefix], style)
        middle = text[prefix : len(text) - suffix]
        if middle:
            out.append(middle, style + reverse)
        out.append(text[len(text) - suffix :], style)
        return out

    return build(old[0], a, old_style), build(new[0], b, new_style)


def _language_file(view: ToolView) -> str | None:
    return str(view.args.get("path") or "") or None


def body(view: ToolView, theme: BlockTheme) -> list[Text]:
    name = view.name
    output = sanitize(view.output)
    if view.is_error:
        return _plain(output, theme, "error")
    if name == "bash":
        return _preview(view, _plain(output, theme), theme, tail=True)
    if name == "read":
        if not view.expanded and (line := _resource_line(view, theme)) is not None:
            return [line]
        highlighted = highlight_lines(
            output.rstrip("\n"), theme, filename=_language_file(view), fallback="toolOutput"
        )
        return _preview(view, highlighted if output.strip() else [], theme)
    if name == "write":
        content = str(view.args.get("content") or "")
        if not content:
            return []
        highlighted = highlight_lines(
            content.rstrip("\n"), theme, filename=_language_file(view), fallback="toolOutput"
        )
        return _preview(view, highlighted, theme)
    if name == "edit":
        details = view.details if isinstance(view.details, dict) else {}
        diff = details.get("diff")
        if diff:
            return _diff_lines(diff, theme)
        if view.preview is not None and not view.done:
            if "error" in view.preview:
                return [Text(str(view.preview["error"]), fg(theme, "error"))]
            return _diff_lines(str(view.preview.get("diff") or ""), theme)
        return _plain(output, theme) if view.done else []
    return _preview(view, _plain(output, theme), theme)


def notices(view: ToolView, theme: BlockTheme) -> list[Text]:
    out: list[Text] = []
    details = view.details if isinstance(view.details, dict) else {}
    truncation = details.get("truncation")
    warning = fg(theme, "warning")
    if isinstance(truncation, dict) and truncation.get("truncated"):
        if truncation.get("firstLineExceedsLimit"):
            out.append(Text(f"[First line exceeds {_kb(truncation.get('maxBytes'))} limit]", warning))
        elif truncation.get("truncatedBy") == "lines":
            out.append(
                Text(
                    f"[Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines "
                    f"({truncation.get('maxLines')} line limit)]",
                    warning,
                )
            )
        else:
            out.append(
                Text(
                    f"[Truncated: {truncation.get('outputLines')} lines shown ({_kb(truncation.get('maxBytes'))} limit)]",
                    warning,
                )
            )
    path = details.get("fullOutputPath")
    if path:
        out.append(Text(f"Full output: {path}", warning))
    if view.name == "bash" and view.elapsed_s is not None:
        word = "Took" if view.done else "Elapsed"
        out.append(Text(f"{word} {view.elapsed_s:.1f}s", fg(theme, "muted")))
    return out


def _kb(value: Any) -> str:
    try:
        return f"{int(value) / 1024:.1f}KB"
    except (TypeError, ValueError):
        return "?"


# -- custom renderers (extension tools) ----------------------------------------------------------


@dataclass(frozen=True)
class RenderResultOptions:
    """``render_result``'s options (40 §2.4): ``options.expanded`` or ``options["expanded"]``."""

    expanded: bool = False
    is_partial: bool = False

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


def _custom(view: ToolView, which: str, width: int, theme: BlockTheme) -> list[Strip] | None:
    renderer = view.render_call if which == "call" else view.render_result
    if renderer is None:
        return None
    try:
        if which == "call":
            renderable = renderer(view.args, theme)
        else:
            options = RenderResultOptions(view.expanded, not view.done)
            renderable = renderer(view.result, options, theme)
    except Exception:
        if which not in view.warned:  # logged once per renderer, not per frame (R-EXT-15)
            view.warned.add(which)
            log.exception("custom %s renderer of tool %s failed", which, view.name)
        return None
    if renderable is None:
        return None
    return _strips(renderable, width)


def _strips(renderable: RenderableType | list[Strip], width: int) -> list[Strip]:
    if isinstance(renderable, list):
        return renderable
    if isinstance(renderable, str):
        renderable = Text(renderable)
    return render_rich(renderable, width)


def tool_strips(view: ToolView, width: int, theme: BlockTheme) -> list[Strip]:
    """Header, blank line, body, notices: the content of a tool box for ``width`` cells."""
    strips = _custom(view, "call", width, theme) or render_rich(header(view, theme), width)
    custom_body = _custom(view, "result", width, theme) if view.result is not None else None
    lines = [] if custom_body is not None else body(view, theme)
    tail = notices(view, theme)
    if custom_body or lines or tail:
        strips.append(Strip.blank(0))
    if custom_body is not None:
        strips.extend(custom_body)
    for line in lines + tail:
        strips.extend(render_rich(line, width))
    return strips
