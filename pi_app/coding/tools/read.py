"""The ``read`` tool (spec 50 §3.5, R-READ-01..19).

Text files come back as numbered-by-position slices with actionable notices (where to continue,
what limit was hit); images are sniffed by magic bytes and attached; files with NUL bytes in their
first 8 KiB are refused with a short notice instead of being dumped as garbage ([DEV] R-READ-18).
All file access goes through ``ReadOperations`` so an extension can read from elsewhere; the built-in
local one is read in chunks by ``read_scan`` so a huge file never sits in memory whole (issue 12
item 6), with the same output as the whole-bytes path a custom ``ReadOperations`` keeps.
"""

from __future__ import annotations

import asyncio
import base64
import math
import os
import threading
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import ImageContent, TextContent
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool
from pi_app.coding.tools.file_io import error_detail, open_regular_file
from pi_app.coding.tools.path_utils import resolve_read_path
from pi_app.coding.tools.support import (
    OperationAborted,
    format_number,
    maybe_await,
    raise_if_aborted,
    shell_quote,
)
from pi_app.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    iter_lines,
    truncate_head,
    utf8_len,
)

if TYPE_CHECKING:
    from pi_app.coding.tools.read_scan import LocalFile, TextScan

NO_VISION_NOTE = "[Current model does not support images. The image will be omitted from this request.]"
IMAGE_OMITTED_NOTE = "[Image omitted: could not be resized below the inline image size limit.]"


class ReadParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "path": {"description": "Path to the file to read (relative or absolute)", "type": "string"},
            "offset": {"description": "Line number to start reading from (1-indexed)", "type": "number"},
            "limit": {"description": "Maximum number of lines to read", "type": "number"},
        },
        "required": ["path"],
        "type": "object",
    }
    path: str
    offset: float | None = None
    limit: float | None = None


class ReadOperations(Protocol):
    def read_file(self, absolute_path: str) -> bytes | Awaitable[bytes]: ...

    def access(self, absolute_path: str) -> None | Awaitable[None]: ...  # raise OSError if unreadable


class LocalReadOperations:
    def read_file(self, absolute_path: str) -> bytes:
        with open(open_regular_file(absolute_path), "rb") as handle:
            return handle.read()

    def access(self, absolute_path: str) -> None:
        if os.path.isdir(absolute_path):
            raise IsADirectoryError(21, "Is a directory", absolute_path)
        os.close(open_regular_file(absolute_path))


@dataclass
class ReadToolOptions:
    """Options of the read tool: image resizing and the file back end."""

    auto_resize_images: bool = True
    operations: Any = field(default=None)


def model_lacks_vision(ctx: Any) -> bool:
    model = getattr(ctx, "model", None) if ctx is not None else None
    return model is not None and "image" not in (getattr(model, "input", None) or [])


def _read_description() -> str:
    return (
        "Read a file's contents. Text files and images (jpg, png, gif, webp, bmp) are supported; "
        "images are sent as attachments. Text output is cut at "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first. "
        "Use offset/limit for large files, and keep reading with offset until you have what you need."
    )


def _first_line_index(offset: float | None) -> int:
    return max(0, math.floor(offset) - 1) if offset else 0


def _line_window(offset: float | None, limit: float | None, total: int) -> tuple[int, int]:
    """The selected lines ``start`` up to ``end`` (exclusive), or the error the model sees."""
    start = _first_line_index(offset)
    if start >= total:
        raise ValueError(f"Offset {format_number(offset or 0)} is beyond end of file ({total} lines total)")
    if limit is None:
        return start, total
    if limit < 1:
        raise ValueError("Invalid limit: must be at least 1")
    return start, min(start + math.floor(limit), total)


def _scan_window(offset: float | None, limit: float | None) -> tuple[int, int | None]:
    """The lines a local scan selects. Odd values (NaN, infinity) widen it and are left for
    ``_line_window`` to reject after the scan, in the same order as the whole-bytes path."""
    start = _first_line_index(offset) if offset is None or math.isfinite(offset) else 0
    if limit is not None and math.isfinite(limit) and limit >= 1:
        return start, start + math.floor(limit)
    return start, None


def _text_result(
    text: str, path: str, offset: float | None, limit: float | None
) -> tuple[str, dict[str, Any] | None]:
    total = text.count("\n") + 1
    start, end = _line_window(offset, limit, total)
    # The whole file is the common case: no per-line list or second copy of a big file.
    selected = text if start == 0 and end == total else "\n".join(islice(iter_lines(text), start, end))
    truncation = truncate_head(selected)
    first_line_bytes = utf8_len(next(iter_lines(selected))) if truncation.first_line_exceeds_limit else 0
    return _format_text(truncation, first_line_bytes, path, start, end, total, limit)


def _scanned_text_result(
    scan: TextScan, path: str, offset: float | None, limit: float | None
) -> tuple[str, dict[str, Any] | None]:
    start, end = _line_window(offset, limit, scan.total_lines)
    truncation = replace(truncate_head(scan.head), total_lines=end - start, total_bytes=scan.selected_bytes)
    return _format_text(truncation, scan.first_line_bytes, path, start, end, scan.total_lines, limit)


def _format_text(
    truncation: TruncationResult,
    first_line_bytes: int,
    path: str,
    start: int,
    end: int,
    total: int,
    limit: float | None,
) -> tuple[str, dict[str, Any] | None]:
    start_display = start + 1
    if truncation.first_line_exceeds_limit:
        notice = (
            f"[Line {start_display} is {format_size(first_line_bytes)}, exceeds "
            f"{format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{start_display}p' {shell_quote(path)} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return notice, {"truncation": truncation.to_dict()}
    if truncation.truncated:
        last = start_display + truncation.output_lines - 1
        limit_note = (
            f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if truncation.truncated_by == "bytes" else ""
        )
        notice = f"[Showing lines {start_display}-{last} of {total}{limit_note}. Use offset={last + 1} to continue.]"
        return f"{truncation.content}\n\n{notice}", {"truncation": truncation.to_dict()}
    if limit is not None and end < total:
        notice = f"[{total - end} more lines in file. Use offset={end + 1} to continue.]"
        return f"{truncation.content}\n\n{notice}", None
    return truncation.content, None


async def _image_result(data: bytes, mime: str, auto_resize: bool, ctx: Any) -> AgentToolResult:
    from pi_app.coding.tools.images import ResizeProfile, process_image

    # the current model's inputLimits.images.resize (pi 1.6.0 models.json), else the defaults
    profile = ResizeProfile.from_input_limits(getattr(getattr(ctx, "model", None), "input_limits", None))
    processed = await asyncio.to_thread(process_image, data, mime, auto_resize, profile)
    lines = [f"Read image file [{processed.mime_type}]"]
    if processed.data is None:
        lines.append(IMAGE_OMITTED_NOTE)
        return AgentToolResult(content=[TextContent(text="\n".join(lines))])
    if processed.resized and processed.original_size and processed.displayed_size:
        (ow, oh), (dw, dh) = processed.original_size, processed.displayed_size
        lines.append(
            f"[Image: original {ow}x{oh}, displayed at {dw}x{dh}. "
            f"Multiply coordinates by {ow / dw:.2f} to map to original image.]"
        )
    if processed.converted_from:
        lines.append(f"[Converted from {processed.converted_from} to {processed.mime_type}.]")
    if model_lacks_vision(ctx):
        lines.append(NO_VISION_NOTE)
    image = ImageContent(data=base64.b64encode(processed.data).decode("ascii"), mime_type=processed.mime_type)
    return AgentToolResult(content=[TextContent(text="\n".join(lines)), image])


async def _read_in_thread(path: str, window: tuple[int, int | None], signal: AbortSignal | None) -> LocalFile:
    """``read_local_file`` in a worker thread that an abort stops between two chunks (the tool
    returns at once; the thread ends within one chunk instead of reading on)."""
    from pi_app.coding.tools.read_scan import ReadStopped, read_local_file

    stop = threading.Event()
    remove = signal.add_listener(stop.set) if signal is not None else None
    try:
        return await asyncio.to_thread(read_local_file, path, *window, stop.is_set)
    except ReadStopped:
        raise OperationAborted() from None
    finally:
        stop.set()  # a cancelled await leaves the thread running: let it stop too
        if remove is not None:
            remove()


def _structured(result: AgentToolResult) -> Any:
    """pi 1.6.0's structuredContent of a read: the text, or the image with the text as its note."""
    text = next((b.text for b in result.content if isinstance(b, TextContent)), "")
    image = next((b for b in result.content if not isinstance(b, TextContent)), None)
    if image is None:
        return text
    return {"type": "image", "data": image.data, "mimeType": image.mime_type, "note": text}


def create_read_tool_definition(
    cwd: str, operations: ReadOperations | None = None, options: ReadToolOptions | None = None
) -> ToolDefinition:
    options = options or ReadToolOptions()
    ops = operations or options.operations or LocalReadOperations()

    async def run(
        args: ReadParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        result = await read(args, signal, ctx)
        result.structured_content = _structured(result)
        return result

    async def read(args: ReadParams, signal: AbortSignal | None, ctx: Any) -> AgentToolResult:
        # File scanning and image handling load with the first read (start-up cost).
        from pi_app.coding.tools.images import SNIFF_BYTES, detect_image_mime_type
        from pi_app.coding.tools.read_scan import looks_binary

        absolute = resolve_read_path(args.path, cwd)
        raise_if_aborted(signal)
        scan: TextScan | None = None
        try:
            await maybe_await(ops.access(absolute))
            raise_if_aborted(signal)
            if type(ops) is LocalReadOperations:
                window = _scan_window(args.offset, args.limit)
                local = await _read_in_thread(absolute, window, signal)
                data, size, scan = local.head, local.size, local.text
            else:
                data = await maybe_await(ops.read_file(absolute))
                if isinstance(data, str):
                    data = data.encode("utf-8")
                size = len(data)
        except OSError as exc:
            raise OSError(f"Could not read file: {args.path}. {error_detail(exc)}") from exc
        raise_if_aborted(signal)

        detect = getattr(ops, "detect_image_mime_type", None)
        mime = await maybe_await(detect(absolute)) if detect else detect_image_mime_type(data[:SNIFF_BYTES])
        if mime:
            result = await _image_result(data, mime, options.auto_resize_images, ctx)
            raise_if_aborted(signal)
            return result
        if looks_binary(data):
            notice = (
                f"[Binary file {args.path} ({format_size(size)}) not shown. "
                "Use bash (e.g. file, xxd, strings) to inspect it.]"
            )
            return AgentToolResult(content=[TextContent(text=notice)])
        if scan is not None:
            text, details = _scanned_text_result(scan, args.path, args.offset, args.limit)
        else:
            text, details = _text_result(data.decode("utf-8", "replace"), args.path, args.offset, args.limit)
        return AgentToolResult(content=[TextContent(text=text)], details=details)

    return define_tool(
        "read",
        _read_description(),
        ReadParams,
        run,
        prompt_snippet="Read file contents",
        prompt_guidelines=["Use read to examine files instead of cat or sed."],
    )
