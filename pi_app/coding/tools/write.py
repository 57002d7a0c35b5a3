"""The ``write`` tool (spec 50 §3.6, R-WRITE-01..05).

Creates parent directories and replaces the whole file with the given UTF-8 text, inside the
per-file mutation queue. The local back end writes atomically (temp file + ``os.replace``, mode
kept, symlinks followed; [DEV] R-WRITE-05), so an interrupted or failed write never truncates the
previous content. No append mode, no line-ending or BOM adaptation.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool, text_result
from pi_app.coding.tools.file_io import atomic_write_bytes, error_detail
from pi_app.coding.tools.path_utils import resolve_to_cwd
from pi_app.coding.tools.support import maybe_await, raise_if_aborted


class WriteParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "path": {"description": "Path to the file to write (relative or absolute)", "type": "string"},
            "content": {"description": "Content to write to the file", "type": "string"},
        },
        "required": ["path", "content"],
        "type": "object",
    }
    path: str
    content: str


class WriteOperations(Protocol):
    def write_file(self, absolute_path: str, content: str) -> None | Awaitable[None]: ...

    def mkdir(self, directory: str) -> None | Awaitable[None]: ...  # recursive, exists-ok


class LocalWriteOperations:
    def write_file(self, absolute_path: str, content: str) -> None:
        atomic_write_bytes(absolute_path, content.encode("utf-8", "surrogatepass"))

    def mkdir(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)


def create_write_tool_definition(cwd: str, operations: WriteOperations | None = None) -> ToolDefinition:
    ops = operations or LocalWriteOperations()

    async def run(
        args: WriteParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        from pi_app.coding.tools.mutation_queue import with_file_mutation_queue

        absolute = resolve_to_cwd(args.path, cwd)

        async def mutate() -> AgentToolResult:
            raise_if_aborted(signal)
            try:
                await maybe_await(ops.mkdir(os.path.dirname(absolute)))
                raise_if_aborted(signal)
                await maybe_await(ops.write_file(absolute, args.content))
            except OSError as exc:
                raise OSError(f"Could not write file: {args.path}. {error_detail(exc)}") from exc
            raise_if_aborted(signal)
            size = len(args.content.encode("utf-8", "surrogatepass"))
            return text_result(f"Successfully wrote {size} bytes to {args.path}")

        return await with_file_mutation_queue(absolute, mutate)

    return define_tool(
        "write",
        (
            "Write content to a file. Creates the file when it is missing and overwrites it when it "
            "exists; parent directories are created as needed."
        ),
        WriteParams,
        run,
        prompt_snippet="Create or overwrite files",
        prompt_guidelines=["Use write only for new files or complete rewrites."],
    )
