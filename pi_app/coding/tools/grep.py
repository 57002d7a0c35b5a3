"""The ``grep`` tool (spec 50 §3.10, R-GREP-01..11).

Searches file contents with ``rg --json`` or the pure-Python fallback (``search_backend``), both
honouring ignore files and returning matches in path order. Output lines are ``file:line: text``
(context lines ``file-line- text``), each cut to 500 characters, the whole cut to 50KB, with one
bracketed notice telling the model what was cut and how to get more.

``GrepOperations`` covers the file access (directory check, context lines); a remote back end may
also provide ``search(...)`` returning ``GrepMatch`` records to replace the local search entirely.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool, text_result
from pi_app.coding.tools.globs import grep_glob_matcher
from pi_app.coding.tools.path_utils import resolve_to_cwd
from pi_app.coding.tools.search_backend import (
    RG_COMMON_FLAGS,
    compile_search_regex,
    display_text,
    is_binary_file,
    rg_failure,
    run_rg,
    selected_backend,
    to_posix,
    walk_files,
)
from pi_app.coding.tools.support import maybe_await, raise_if_aborted
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, listing_text, truncate_line

DEFAULT_GREP_LIMIT = 100


class GrepParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "pattern": {"description": "Search pattern (regex or literal string)", "type": "string"},
            "path": {
                "description": "Directory or file to search (default: current directory)",
                "type": "string",
            },
            "glob": {
                "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'",
                "type": "string",
            },
            "ignoreCase": {"description": "Case-insensitive search (default: false)", "type": "boolean"},
            "literal": {
                "description": "Treat pattern as literal string instead of regex (default: false)",
                "type": "boolean",
            },
            "context": {
                "description": "Number of lines to show before and after each match (default: 0)",
                "type": "number",
            },
            "limit": {"description": "Maximum number of matches to return (default: 100)", "type": "number"},
        },
        "required": ["pattern"],
        "type": "object",
    }
    pattern: str
    path: str | None = None
    glob: str | None = None
    ignore_case: bool | None = None
    literal: bool | None = None
    context: float | None = None
    limit: float | None = None


@dataclass
class GrepMatch:
    path: str  # absolute
    line_number: int
    text: str


@dataclass
class GrepQuery:
    pattern: str
    search_path: str
    is_directory: bool
    glob: str | None
    ignore_case: bool
    literal: bool
    limit: int


class GrepOperations(Protocol):
    def is_directory(self, absolute_path: str) -> bool | Awaitable[bool]: ...  # raise if missing

    def read_file(self, absolute_path: str) -> str | Awaitable[str]: ...  # for context lines


class LocalGrepOperations:
    def is_directory(self, absolute_path: str) -> bool:
        os.stat(absolute_path)
        return os.path.isdir(absolute_path)

    def read_file(self, absolute_path: str) -> str:
        with open(absolute_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")


def _rg_text(field: Any) -> str:
    if not isinstance(field, dict):
        return ""
    if "text" in field:
        return field["text"]
    if "bytes" in field:
        return base64.b64decode(field["bytes"]).decode("utf-8", "replace")
    return ""


async def _native_search(query: GrepQuery, signal: AbortSignal | None) -> tuple[list[GrepMatch], bool]:
    args = ["--json", "--line-number", "--color=never", *RG_COMMON_FLAGS]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    if query.glob:
        args += ["--glob", query.glob]
    args += ["--", query.pattern, query.search_path]
    matches: list[GrepMatch] = []

    def on_line(line: bytes) -> bool:
        try:
            event = json.loads(line)
        except ValueError:
            return True
        if not isinstance(event, dict) or event.get("type") != "match":
            return True
        data = event.get("data") or {}
        text = _rg_text(data.get("lines")).rstrip("\n").rstrip("\r")
        matches.append(GrepMatch(_rg_text(data.get("path")), int(data.get("line_number") or 0), text))
        return len(matches) < query.limit

    root = query.search_path if query.is_directory else os.path.dirname(query.search_path)
    run = await run_rg(args, on_line, signal, cwd=root)
    if not run.stopped and run.exit_code not in (0, 1) and not matches:
        raise rg_failure(run)
    return matches, len(matches) >= query.limit


def _python_search(query: GrepQuery, signal: AbortSignal | None) -> tuple[list[GrepMatch], bool]:
    regex = compile_search_regex(query.pattern, query.ignore_case, query.literal)
    glob = grep_glob_matcher(query.glob) if query.glob else None
    negative_glob = glob if query.glob and query.glob.startswith("!") else None
    files: Iterator[tuple[str, str]]
    if query.is_directory:
        files = (
            (absolute, rel)
            for rel, absolute in walk_files(
                query.search_path,
                signal,
                prune_dir=(lambda rel: not negative_glob(rel)) if negative_glob else None,
            )
            if (glob is None or glob(rel)) and not is_binary_file(absolute)
        )
    else:
        files = iter([(query.search_path, os.path.basename(query.search_path))])
    matches: list[GrepMatch] = []
    for absolute, _rel in files:
        raise_if_aborted(signal)
        try:
            with open(absolute, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines, start=1):
            if regex.search(line):
                matches.append(GrepMatch(absolute, number, line.rstrip("\r")))
                if len(matches) >= query.limit:
                    return matches, True
    return matches, False


async def search(query: GrepQuery, signal: AbortSignal | None) -> tuple[list[GrepMatch], bool]:
    if selected_backend() == "native":
        return await _native_search(query, signal)
    return await asyncio.to_thread(_python_search, query, signal)


def _display_path(match_path: str, query: GrepQuery) -> str:
    if query.is_directory:
        rel = os.path.relpath(match_path, query.search_path)
        if not rel.startswith(".."):
            return display_text(to_posix(rel))
    return display_text(os.path.basename(match_path))


async def _format(
    matches: list[GrepMatch], query: GrepQuery, context: int, ops: Any
) -> tuple[list[str], bool]:
    cache: dict[str, list[str] | None] = {}
    out: list[str] = []
    truncated_any = False

    def emit(line: str) -> None:
        nonlocal truncated_any
        cut, was = truncate_line(line, GREP_MAX_LINE_LENGTH)
        truncated_any = truncated_any or was
        out.append(cut)

    for match in matches:
        shown = _display_path(match.path, query)
        if context <= 0:
            emit(f"{shown}:{match.line_number}: {match.text}")
            continue
        if match.path not in cache:
            try:
                text = await maybe_await(ops.read_file(match.path))
                cache[match.path] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            except Exception:
                cache[match.path] = None
        lines = cache[match.path]
        if lines is None:
            emit(f"{shown}:{match.line_number}: (unable to read file)")
            continue
        first = max(1, match.line_number - context)
        last = min(len(lines), match.line_number + context)
        for number in range(first, last + 1):
            text = lines[number - 1]
            sep = ":" if number == match.line_number else "-"
            emit(f"{shown}{sep}{number}{sep} {text}")
    return out, truncated_any


def create_grep_tool_definition(cwd: str, operations: GrepOperations | None = None) -> ToolDefinition:
    ops = operations or LocalGrepOperations()

    async def run(
        args: GrepParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        raise_if_aborted(signal)
        search_path = resolve_to_cwd(args.path or ".", cwd)
        try:
            is_directory = bool(await maybe_await(ops.is_directory(search_path)))
        except Exception:
            raise ValueError(f"Path not found: {search_path}") from None
        context = math.floor(args.context) if args.context and args.context > 0 else 0
        limit = DEFAULT_GREP_LIMIT if args.limit is None else max(1, math.floor(args.limit))
        query = GrepQuery(
            args.pattern,
            search_path,
            is_directory,
            args.glob,
            bool(args.ignore_case),
            bool(args.literal),
            limit,
        )
        remote_search = getattr(ops, "search", None)
        if remote_search is not None:
            matches, limit_reached = await maybe_await(remote_search(query, signal))
        else:
            matches, limit_reached = await search(query, signal)
        raise_if_aborted(signal)
        if not matches:
            return text_result("No matches found")

        lines, lines_truncated = await _format(matches, query, context, ops)
        raise_if_aborted(signal)
        head: list[str] = []
        tail: list[str] = []
        details: dict[str, Any] = {}
        if limit_reached:
            head.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
            details["matchLimitReached"] = limit
        if lines_truncated:
            tail.append(
                f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            )
            details["linesTruncated"] = True
        text, result_details = listing_text(lines, head, details, tail)
        return text_result(text, result_details)

    return define_tool(
        "grep",
        (
            "Search file contents for a pattern. Returns matching lines with file paths and line numbers. "
            "Respects .gitignore. Output is cut at "
            f"{DEFAULT_GREP_LIMIT} matches or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; "
            f"long lines are cut to {GREP_MAX_LINE_LENGTH} characters."
        ),
        GrepParams,
        run,
        prompt_snippet="Search file contents for patterns (respects .gitignore)",
    )
