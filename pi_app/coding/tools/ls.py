"""The ``ls`` tool (spec 50 §3.12, R-LS-01..06).

One directory, not recursive, dotfiles included, sorted case-insensitively, ``/`` after
directories (symlinks followed; entries that cannot be stat-ed, such as dangling links, are
skipped). Cut at the entry limit and 50KB. Ignore files do not apply.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Awaitable
from typing import Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool, text_result
from pi_app.coding.tools.path_utils import resolve_to_cwd
from pi_app.coding.tools.search_backend import display_text
from pi_app.coding.tools.support import maybe_await, raise_if_aborted
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, listing_text

DEFAULT_LS_LIMIT = 500


class LsParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "path": {"description": "Directory to list (default: current directory)", "type": "string"},
            "limit": {"description": "Maximum number of entries to return (default: 500)", "type": "number"},
        },
        "type": "object",
    }
    path: str | None = None
    limit: float | None = None


class LsOperations(Protocol):
    def exists(self, absolute_path: str) -> bool | Awaitable[bool]: ...

    def stat(self, absolute_path: str) -> Any: ...  # object with is_dir(); follows symlinks

    def readdir(self, absolute_path: str) -> list[str] | Awaitable[list[str]]: ...


class _Stat:
    def __init__(self, result: os.stat_result) -> None:
        self._result = result

    def is_dir(self) -> bool:
        return stat.S_ISDIR(self._result.st_mode)


class LocalLsOperations:
    def exists(self, absolute_path: str) -> bool:
        return os.path.exists(absolute_path)

    def stat(self, absolute_path: str) -> _Stat:
        return _Stat(os.stat(absolute_path))

    def readdir(self, absolute_path: str) -> list[str]:
        return os.listdir(absolute_path)


def create_ls_tool_definition(cwd: str, operations: LsOperations | None = None) -> ToolDefinition:
    ops = operations or LocalLsOperations()

    async def run(
        args: LsParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        raise_if_aborted(signal)
        directory = resolve_to_cwd(args.path or ".", cwd)
        limit = DEFAULT_LS_LIMIT if args.limit is None else max(1, math.floor(args.limit))
        if not await maybe_await(ops.exists(directory)):
            raise ValueError(f"Path not found: {directory}")
        if not (await maybe_await(ops.stat(directory))).is_dir():
            raise ValueError(f"Not a directory: {directory}")
        try:
            names = list(await maybe_await(ops.readdir(directory)))
        except OSError as exc:
            raise ValueError(f"Cannot read directory: {exc.strerror or exc}") from exc
        names.sort(key=lambda n: (n.casefold(), n))

        entries: list[str] = []
        limit_reached = False
        for name in names:
            raise_if_aborted(signal)
            if len(entries) >= limit:
                limit_reached = True
                break
            try:
                info = await maybe_await(ops.stat(os.path.join(directory, name)))
            except OSError:
                continue
            entries.append(display_text(name) + ("/" if info.is_dir() else ""))
        if not entries:
            return text_result("(empty directory)")

        if limit_reached:
            notice = [f"{limit} entries limit reached. Use limit={limit * 2} for more"]
            text, details = listing_text(entries, notice, {"entryLimitReached": limit})
        else:
            text, details = listing_text(entries, [], {})
        return text_result(text, details)

    return define_tool(
        "ls",
        (
            "List a directory's entries, sorted alphabetically, with '/' after directory names. Dotfiles "
            f"are included. Output is cut at {DEFAULT_LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB, "
            "whichever comes first."
        ),
        LsParams,
        run,
        prompt_snippet="List directory contents",
    )
