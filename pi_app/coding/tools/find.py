"""The ``find`` tool (spec 50 §3.11, R-FIND-01..07, decision D-28).

Lists candidate files with ``rg --files`` (or the fallback walker), then matches the glob in Python
against every file and every directory implied by the file paths, so both back ends agree (an
empty or fully ignored directory is therefore never listed). Paths are relative to the search
directory, ``/``-separated, directories end with ``/``, sorted; cut at the result limit and 50KB.
A custom ``FindOperations.glob`` replaces the local listing (e.g. a remote host).
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool, text_result
from pi_app.coding.tools.globs import find_pattern_matcher
from pi_app.coding.tools.path_utils import resolve_to_cwd
from pi_app.coding.tools.search_backend import (
    RG_COMMON_FLAGS,
    display_text,
    rg_failure,
    run_rg,
    selected_backend,
    to_posix,
    walk_files,
)
from pi_app.coding.tools.support import maybe_await, raise_if_aborted
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, listing_text

DEFAULT_FIND_LIMIT = 1000
CUSTOM_GLOB_IGNORE = ["**/node_modules/**", "**/.git/**"]


class FindParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "pattern": {
                "description": "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'",
                "type": "string",
            },
            "path": {"description": "Directory to search in (default: current directory)", "type": "string"},
            "limit": {"description": "Maximum number of results (default: 1000)", "type": "number"},
        },
        "required": ["pattern"],
        "type": "object",
    }
    pattern: str
    path: str | None = None
    limit: float | None = None


class FindOperations(Protocol):
    def exists(self, absolute_path: str) -> bool | Awaitable[bool]: ...

    # Optional: glob(pattern, search_dir, ignore, limit) -> list[str] replaces the local listing.


class LocalFindOperations:
    def exists(self, absolute_path: str) -> bool:
        return os.path.exists(absolute_path)


class _Collector:
    """Turns file paths (in walk order) into matching files and implied directories, up to a limit."""

    def __init__(self, pattern: str, limit: int) -> None:
        self.matches: Callable[[str], bool] = find_pattern_matcher(pattern)
        self.limit = limit
        self.results: list[str] = []
        self._seen_dirs: set[str] = set()

    @property
    def full(self) -> bool:
        return len(self.results) >= self.limit

    def add_file(self, rel: str) -> bool:
        """Returns False once the limit is reached."""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            directory = "/".join(parts[:depth])
            if directory in self._seen_dirs:
                continue
            self._seen_dirs.add(directory)
            if self.matches(directory):
                self.results.append(directory + "/")
                if self.full:
                    return False
        if self.matches(rel):
            self.results.append(rel)
        return not self.full


def _relative(path: str, root: str) -> str:
    prefix = root.rstrip(os.sep) + os.sep
    if path.startswith(prefix):
        rel = path[len(prefix) :]
    else:
        rel = os.path.relpath(path, root) if os.path.isabs(path) else path
    return display_text(to_posix(rel)).removeprefix("./")


async def _native_listing(root: str, base: str, collector: _Collector, signal: AbortSignal | None) -> None:
    def on_line(line: bytes) -> bool:
        if not line:
            return True
        return collector.add_file(_relative(os.fsdecode(line), base))

    run = await run_rg(["--files", *RG_COMMON_FLAGS, "--", root], on_line, signal, cwd=base)
    if not run.stopped and run.exit_code not in (0, 1) and not collector.results:
        raise rg_failure(run)


def _python_listing(root: str, base: str, collector: _Collector, signal: AbortSignal | None) -> None:
    if not os.path.isdir(root):
        collector.add_file(_relative(root, base))
        return
    for _rel, absolute in walk_files(root, signal):
        if not collector.add_file(_relative(absolute, base)):
            return


def _sort_key(path: str) -> list[str]:
    return path.rstrip("/").split("/")


def create_find_tool_definition(cwd: str, operations: FindOperations | None = None) -> ToolDefinition:
    ops = operations or LocalFindOperations()

    async def run(
        args: FindParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        raise_if_aborted(signal)
        search_path = resolve_to_cwd(args.path or ".", cwd)
        if not await maybe_await(ops.exists(search_path)):
            raise ValueError(f"Path not found: {search_path}")
        limit = DEFAULT_FIND_LIMIT if args.limit is None else max(1, math.floor(args.limit))

        custom_glob = getattr(ops, "glob", None)
        if custom_glob is not None:
            found = await maybe_await(custom_glob(args.pattern, search_path, CUSTOM_GLOB_IGNORE, limit))
            results = [_relative(p, search_path) for p in found][:limit]
        else:
            base = search_path if os.path.isdir(search_path) else os.path.dirname(search_path)
            collector = _Collector(args.pattern, limit)
            if selected_backend() == "native":
                await _native_listing(search_path, base, collector, signal)
            else:
                await asyncio.to_thread(_python_listing, search_path, base, collector, signal)
            results = collector.results
        raise_if_aborted(signal)
        if not results:
            return text_result("No files found matching pattern")

        results = sorted(results, key=_sort_key)
        if len(results) >= limit:
            notice = [f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"]
            text, details = listing_text(results, notice, {"resultLimitReached": limit})
        else:
            text, details = listing_text(results, [], {})
        return text_result(text, details)

    return define_tool(
        "find",
        (
            "Find files by glob pattern. Returns paths relative to the search directory and respects "
            f".gitignore. Output is cut at {DEFAULT_FIND_LIMIT} results or {DEFAULT_MAX_BYTES // 1024}KB, "
            "whichever comes first."
        ),
        FindParams,
        run,
        prompt_snippet="Find files by glob pattern (respects .gitignore)",
    )
