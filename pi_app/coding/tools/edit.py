"""The ``edit`` tool (spec 50 §3.7, R-EDIT-01..19, decision D-46).

One call applies ``edits[]`` (each ``oldText`` matched against the *original* file) inside the
per-file mutation queue: read → check UTF-8 → strip BOM, remember line endings → normalise to LF →
match and apply (``edit_diff``) → restore line endings and BOM → write atomically. Bad input never
corrupts a file: invalid UTF-8, a missing file, a directory, a file changed on disk while the call
ran, or a failing write all raise a one-line error and leave the file byte-identical.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool, text_result
from pi_app.coding.tools.file_io import atomic_write_bytes, error_detail, open_regular_file
from pi_app.coding.tools.path_utils import resolve_to_cwd
from pi_app.coding.tools.support import maybe_await, raise_if_aborted

if TYPE_CHECKING:  # the edit engine loads with the first edit or preview (start-up cost)
    from pi_app.coding.tools.edit_diff import Edit

BOM = "\ufeff"
EMPTY_EDITS_MESSAGE = "Edit tool input is invalid. edits must contain at least one replacement."


# pi 0.73.1 sends additionalProperties: false; validation still ignores extra keys (spec 50 §2.6).
_EDIT_ENTRY_SCHEMA: dict[str, Any] = {
    "additionalProperties": False,
    "properties": {
        "oldText": {
            "description": (
                "Exact text to replace. It must occur exactly once in the original file and must not "
                "overlap the oldText of another edit in this call."
            ),
            "type": "string",
        },
        "newText": {"description": "Text that replaces oldText.", "type": "string"},
    },
    "required": ["oldText", "newText"],
    "type": "object",
}


class EditEntry(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = _EDIT_ENTRY_SCHEMA
    old_text: str
    new_text: str


class EditParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "additionalProperties": False,
        "properties": {
            "path": {"description": "Path to the file to edit (relative or absolute)", "type": "string"},
            "edits": {
                "description": (
                    "One or more targeted replacements, each matched against the original file (not against "
                    "the result of earlier edits). Overlapping or nested edits are rejected: when two changes "
                    "touch the same block or neighbouring lines, combine them into one edit."
                ),
                "items": _EDIT_ENTRY_SCHEMA,
                "type": "array",
            },
        },
        "required": ["path", "edits"],
        "type": "object",
    }
    path: str
    edits: list[EditEntry]


class EditOperations(Protocol):
    def read_file(self, absolute_path: str) -> bytes | Awaitable[bytes]: ...

    def write_file(self, absolute_path: str, content: str) -> None | Awaitable[None]: ...

    def access(
        self, absolute_path: str
    ) -> None | Awaitable[None]: ...  # raise OSError unless readable and writable


class LocalEditOperations:
    def read_file(self, absolute_path: str) -> bytes:
        with open(open_regular_file(absolute_path), "rb") as handle:
            return handle.read()

    def write_file(self, absolute_path: str, content: str) -> None:
        atomic_write_bytes(absolute_path, content.encode("utf-8", "surrogatepass"))

    def access(self, absolute_path: str) -> None:
        if os.path.isdir(absolute_path):
            raise IsADirectoryError(21, "Is a directory", absolute_path)
        os.close(open_regular_file(absolute_path, os.O_RDWR))

    def fingerprint(self, absolute_path: str) -> tuple[int, int]:
        """Size and mtime, compared before writing to detect a concurrent change (D-46)."""
        info = os.stat(absolute_path)
        return info.st_size, info.st_mtime_ns


def prepare_edit_arguments(raw: Any) -> Any:
    """Accept ``edits`` sent as a JSON string and the legacy top-level ``oldText``/``newText`` pair."""
    if not isinstance(raw, dict):
        return raw
    args = dict(raw)
    edits = args.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = edits = parsed
    old_text, new_text = args.get("oldText"), args.get("newText")
    if isinstance(old_text, str) and isinstance(new_text, str):
        args["edits"] = [
            *(edits if isinstance(edits, list) else []),
            {"oldText": old_text, "newText": new_text},
        ]
        del args["oldText"], args["newText"]
    return args


@dataclass
class DecodedFile:
    """A file's text in LF space plus what is needed to write it back the same way."""

    content: str
    bom: bool
    line_ending: str

    def encode(self, new_content: str) -> str:
        text = new_content.replace("\n", "\r\n") if self.line_ending == "\r\n" else new_content
        return (BOM if self.bom else "") + text


def decode_file(data: bytes, path: str) -> DecodedFile:
    from pi_app.coding.tools.edit_diff import EditError, detect_line_ending, normalize_to_lf

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EditError(f"Could not edit file: {path}. File is not valid UTF-8.") from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    return DecodedFile(normalize_to_lf(text), bom, detect_line_ending(text))


def _edits_from(params: dict[str, Any]) -> list[Edit]:
    from pi_app.coding.tools.edit_diff import Edit

    entries = params.get("edits") or []
    return [Edit(e["oldText"], e["newText"]) for e in entries]


async def preview_edit(
    path: str, edits: list[dict[str, Any]] | list[Edit], cwd: str, operations: EditOperations | None = None
) -> tuple[str, str]:
    """The file's text before and after these edits (LF-normalised), without writing; raises
    ``EditError`` with the tool's own one-line message when the edit would fail."""
    from pi_app.coding.tools.edit_diff import Edit, EditError, apply_edits_to_normalized_content

    ops = operations or LocalEditOperations()
    absolute = resolve_to_cwd(path, cwd)
    items = [e if isinstance(e, Edit) else Edit(e["oldText"], e["newText"]) for e in edits]
    try:
        await maybe_await(ops.access(absolute))
        data = await maybe_await(ops.read_file(absolute))
    except OSError as exc:
        raise EditError(f"Could not edit file: {path}. {error_detail(exc)}") from exc
    decoded = decode_file(data, path)
    return apply_edits_to_normalized_content(decoded.content, items, path)


async def compute_edits_diff(
    path: str, edits: list[dict[str, Any]] | list[Edit], cwd: str, operations: EditOperations | None = None
) -> dict[str, Any]:
    """Preview an edit without writing: ``{"diff", "firstChangedLine"}`` or ``{"error"}``."""
    from pi_app.coding.tools.edit_diff import EditError, generate_diff_string

    try:
        old, new = await preview_edit(path, edits, cwd, operations)
    except EditError as exc:
        return {"error": str(exc)}
    diff, first_changed = generate_diff_string(old, new)
    return {"diff": diff, "firstChangedLine": first_changed}


def create_edit_tool_definition(cwd: str, operations: EditOperations | None = None) -> ToolDefinition:
    ops = operations or LocalEditOperations()

    async def edit_file(
        path: str, absolute: str, edits: list[Edit], signal: AbortSignal | None
    ) -> AgentToolResult:
        from pi_app.coding.tools.edit_diff import (
            EditError,
            LineDiff,
            apply_edits_to_normalized_content,
            generate_diff_string,
            generate_unified_patch,
        )

        raise_if_aborted(signal)
        fingerprint = getattr(ops, "fingerprint", None)
        try:
            await maybe_await(ops.access(absolute))
            before = await maybe_await(fingerprint(absolute)) if fingerprint else None
            raise_if_aborted(signal)
            data = await maybe_await(ops.read_file(absolute))
        except OSError as exc:
            raise EditError(f"Could not edit file: {path}. {error_detail(exc)}") from exc
        raise_if_aborted(signal)

        decoded = decode_file(data, path)
        old, new = apply_edits_to_normalized_content(decoded.content, edits, path)
        raise_if_aborted(signal)
        try:
            if fingerprint and await maybe_await(fingerprint(absolute)) != before:
                raise EditError(f"Could not edit file: {path}. File changed while editing; read it again.")
            await maybe_await(ops.write_file(absolute, decoded.encode(new)))
        except OSError as exc:
            raise EditError(f"Could not edit file: {path}. {error_detail(exc)}") from exc
        raise_if_aborted(signal)

        line_diff = LineDiff.of(old, new)
        diff, first_changed = generate_diff_string(old, new, line_diff=line_diff)
        details = {
            "diff": diff,
            "patch": generate_unified_patch(path, old, new, line_diff=line_diff),
            "firstChangedLine": first_changed,
        }
        return text_result(f"Successfully replaced {len(edits)} block(s) in {path}.", details)

    async def run(
        args: EditParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        from pi_app.coding.tools.edit_diff import Edit, EditError
        from pi_app.coding.tools.mutation_queue import with_file_mutation_queue

        if not args.edits:
            raise EditError(EMPTY_EDITS_MESSAGE)
        edits = [Edit(e.old_text, e.new_text) for e in args.edits]
        absolute = resolve_to_cwd(args.path, cwd)
        return await with_file_mutation_queue(absolute, lambda: edit_file(args.path, absolute, edits, signal))

    return define_tool(
        "edit",
        (
            "Edit one file by exact text replacement. Each edits[].oldText must match a unique region of "
            "the original file, and no two edits may overlap. When changes touch the same block or "
            "nearby lines, merge them into a single edit. Keep oldText short: do not pad it with large "
            "unchanged regions to bridge distant changes."
        ),
        EditParams,
        run,
        prompt_snippet=(
            "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"
        ),
        prompt_guidelines=[
            "Use edit for precise changes; each oldText must match the file exactly.",
            "To change several separate places in one file, make one edit call with several edits[] entries.",
            "Each oldText is matched against the original file, not after earlier edits: never overlap or "
            "nest edits, and merge nearby changes into one edit.",
            "Keep each oldText as small as possible while still unique in the file.",
        ],
        prepare_arguments=prepare_edit_arguments,
    )
