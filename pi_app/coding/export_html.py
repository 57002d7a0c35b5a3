"""A session as one self-contained HTML page: ``pi --export``, RPC ``export_html`` and the TUI's ``/export``.

The page shows the active branch of the session tree (root to leaf): user and assistant messages
(Markdown rendered with markdown-it, raw HTML in messages escaped, code highlighted by Pygments),
thinking blocks collapsed in ``<details>``, tool calls with their arguments, tool results (an
``edit`` result's diff coloured line by line), user bash runs, compaction and branch summaries, and
custom messages. Images are inlined as ``data:`` URIs. Everything — styles included — is in the one
file: no scripts, no network, nothing fetched, so it opens the same anywhere.

Default output name (as pi): ``pi-session-<session file stem>.html`` in the current directory.
"""

from __future__ import annotations

import functools
import html
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_app.ai.util.content_text import content_text

if TYPE_CHECKING:
    from pi_app.coding.session.manager import SessionManager


class ExportError(Exception):
    """The session cannot be exported; the message is one line for the user."""


def default_output_path(session_file: str | None, session_id: str, cwd: str | None = None) -> Path:
    stem = Path(session_file).stem if session_file else session_id
    return Path(cwd or os.getcwd()) / f"pi-session-{stem}.html"


def export_session_to_html(
    session_manager: SessionManager, output_path: str | None = None, *, cwd: str | None = None
) -> Path:
    """Write the session's active branch to ``output_path`` (or the default name); returns the path."""
    header = session_manager.get_header()
    target = (
        Path(os.path.expanduser(output_path))
        if output_path
        else default_output_path(session_manager.get_session_file(), header.id, cwd)
    )
    if not target.is_absolute():
        target = Path(cwd or os.getcwd()) / target
    page = render_session_html(header.raw, session_manager.get_branch(), session_manager.get_session_name())
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target


def export_file_to_html(input_path: str, output_path: str | None = None, *, cwd: str | None = None) -> Path:
    """``pi --export <file> [output]``: read a session file and write its HTML page."""
    from pi_app.coding.session.manager import NotASessionFileError, SessionManager

    path = Path(os.path.expanduser(input_path))
    if not path.is_absolute():
        path = Path(cwd or os.getcwd()) / path
    if not path.is_file():
        raise ExportError(f"File not found: {input_path}")
    try:
        manager = SessionManager.open(str(path))
    except NotASessionFileError:
        raise ExportError(f"Not a session file or empty: {input_path}") from None
    if not manager.get_entries():
        raise ExportError(f"Not a session file or empty: {input_path}")
    return export_session_to_html(manager, output_path, cwd=cwd)


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

STYLE = """
:root { color-scheme: light dark; --bg:#fafafa; --fg:#1d1f21; --muted:#6a737d; --card:#fff;
  --border:#d0d7de; --user:#eef4ff; --tool:#f6f8fa; --err:#ffebe9; --add:#e6ffec; --del:#ffebe9; }
@media (prefers-color-scheme: dark) { :root { --bg:#16181d; --fg:#e6e6e6; --muted:#9aa4af; --card:#1e2128;
  --border:#363b45; --user:#1d2a40; --tool:#23262e; --err:#3d1f22; --add:#1c3325; --del:#3d1f22; } }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
  font:15px/1.5 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 24px 16px 64px; }
header.session { border-bottom:1px solid var(--border); margin-bottom:16px; padding-bottom:8px; }
header.session h1 { font-size:20px; margin:0 0 4px; }
.meta { color:var(--muted); font-size:13px; }
.msg { background:var(--card); border:1px solid var(--border); border-radius:8px; margin:12px 0; padding:10px 14px; }
.msg > .role { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.04em; margin-bottom:4px; }
.user { background:var(--user); }
.tool, .bash { background:var(--tool); }
.error { background:var(--err); }
pre { overflow-x:auto; padding:8px; border-radius:6px; background:rgba(127,127,127,.08); margin:6px 0;
  font:13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space:pre; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details.thinking { color:var(--muted); font-style:italic; margin:6px 0; }
details summary { cursor:pointer; }
.diff .add { background:var(--add); display:block; }
.diff .del { background:var(--del); display:block; }
.diff .ctx { display:block; }
img { max-width:100%; border-radius:6px; }
.bash > .role { text-transform:none; font-family: ui-monospace, monospace; }
.tool-name { font-weight:600; font-family: ui-monospace, monospace; }
.stop { color:var(--muted); font-size:12px; }
"""


def render_session_html(header: dict[str, Any], branch: Iterable[Any], name: str | None = None) -> str:
    from pygments.formatters import HtmlFormatter

    results = _tool_results(branch)
    parts: list[str] = []
    for entry in branch:
        parts.append(_render_entry(entry, results))
    title = name or f"Session {header.get('id', '')}"
    meta = " · ".join(
        html.escape(str(v)) for v in (header.get("cwd"), header.get("timestamp"), header.get("id")) if v
    )
    code_css = HtmlFormatter(style="default").get_style_defs("pre > code")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}\n{code_css}</style></head>\n<body><main>"
        f'<header class="session"><h1>{html.escape(title)}</h1><div class="meta">{meta}</div></header>\n'
        + "\n".join(p for p in parts if p)
        + "\n</main></body></html>\n"
    )


def _tool_results(branch: Iterable[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in branch:
        message = getattr(entry, "message", None) if entry.type == "message" else None
        if message is not None and getattr(message, "role", None) == "toolResult":
            out[message.tool_call_id] = message
    return out


def _render_entry(entry: Any, results: dict[str, Any]) -> str:
    kind = entry.type
    if kind == "message":
        return _render_message(entry.message, results)
    if kind == "compaction":
        return _card("compaction", "Compaction summary", _markdown(entry.summary))
    if kind == "branch_summary":
        return _card("compaction", "Branch summary", _markdown(entry.summary))
    if kind == "custom_message" and entry.display:
        return _card("custom", entry.custom_type or "custom", _markdown(content_text(entry.content, "\n")))
    if kind == "model_change":
        return f'<div class="stop">Model: {html.escape(entry.provider)}/{html.escape(entry.model_id)}</div>'
    return ""


def _render_message(message: Any, results: dict[str, Any]) -> str:
    role = getattr(message, "role", "")
    if role == "user":
        return _card("user", "User", _blocks(message.content))
    if role == "assistant":
        body = _assistant_body(message, results)
        stop = message.stop_reason
        if stop in ("error", "aborted"):
            text = message.error_message or f"Request {stop}"
            body += f'<div class="error"><pre>{html.escape(text)}</pre></div>'
        return _card("assistant", f"Assistant · {html.escape(message.model)}", body)
    if role == "bashExecution":
        title = f"$ {message.command}"
        status = "cancelled" if message.cancelled else f"exit {message.exit_code}"
        body = f'<pre>{html.escape(message.output)}</pre><div class="stop">{html.escape(status)}</div>'
        return _card("bash", html.escape(title), body)
    if role == "toolResult":
        return ""  # shown under its tool call
    if role in ("compactionSummary", "branchSummary"):
        return _card("compaction", "Summary", _markdown(getattr(message, "summary", "")))
    if role == "custom" and getattr(message, "display", True):
        return _card(
            "custom", html.escape(getattr(message, "custom_type", "custom")), _blocks(message.content)
        )
    return ""


def _assistant_body(message: Any, results: dict[str, Any]) -> str:
    out: list[str] = []
    for block in message.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append(_markdown(block.text))
        elif kind == "thinking" and block.thinking.strip():
            out.append(
                f'<details class="thinking"><summary>Thinking</summary>{_markdown(block.thinking)}</details>'
            )
        elif kind == "toolCall":
            out.append(_tool_call(block, results.get(block.id)))
    return "".join(out)


def _tool_call(call: Any, result: Any) -> str:
    args = json.dumps(call.arguments, indent=2, ensure_ascii=False)
    body = f'<div class="tool-name">{html.escape(call.name)}</div><pre>{html.escape(args)}</pre>'
    classes = "tool"
    if result is not None:
        if result.is_error:
            classes += " error"
        diff = result.details.get("diff") if isinstance(result.details, dict) else None
        if isinstance(diff, str) and diff:
            body += _diff(diff)
        body += _blocks(result.content, preformatted=True)
    return f'<div class="msg {classes}">{body}</div>'


def _diff(diff: str) -> str:
    lines = []
    for line in diff.split("\n"):
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
        lines.append(f'<span class="{css}">{html.escape(line) or " "}</span>')
    return f'<pre class="diff">{"".join(lines)}</pre>'


def _blocks(content: Any, preformatted: bool = False) -> str:
    if isinstance(content, str):
        return f"<pre>{html.escape(content)}</pre>" if preformatted else _markdown(content)
    out = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append(f"<pre>{html.escape(block.text)}</pre>" if preformatted else _markdown(block.text))
        elif kind == "image":
            mime = html.escape(block.mime_type, quote=True)
            out.append(f'<img alt="image" src="data:{mime};base64,{html.escape(block.data, quote=True)}">')
    return "".join(out)


def _card(css: str, title: str, body: str) -> str:
    return f'<section class="msg {css}"><div class="role">{title}</div>{body}</section>'


@functools.cache
def _renderer() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")


def _markdown(text: str) -> str:
    return str(_renderer().render(text))


def _highlight(code: str, lang: str, _attrs: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""  # markdown-it escapes it as plain code
    return str(highlight(code, lexer, HtmlFormatter(nowrap=True)))  # markdown-it adds <pre><code>
