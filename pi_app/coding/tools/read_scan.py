"""Bounded reading of a local file for the ``read`` tool (issue 12 item 6).

The whole-file path (kept for a custom ``ReadOperations``) holds the file's bytes and their decoded
text at once: about twice the file size. ``read_local_file`` reads the file in chunks instead and
keeps only what the tool's output needs, with the same answers:

- the first bytes, to sniff an image or binary data (an image is then read whole, as before);
- the file's line count (``\\n`` count + 1) and byte size;
- for the selected lines (``start`` up to ``stop``), decoded with replacement like the whole-file
  path: the UTF-8 size of all of them, the size of the first one, and their text only up to
  ``HEAD_CHARS`` characters. ``truncate_head`` on that prefix keeps the same lines as on the whole
  selection: a prefix cut there is over the byte limit, so it stops at the same line.

Splitting the bytes on ``\\n`` before decoding gives the same text as decoding first, because a
newline byte is never part of a UTF-8 sequence (an unfinished one before it becomes U+FFFD either way).

Only regular files are opened (``file_io.open_regular_file``), and ``stopped`` is asked before each
chunk, so an aborted read of a huge file ends within one chunk (issue 19 item 2).
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from itertools import chain

from pi_app.coding.tools.file_io import open_regular_file
from pi_app.coding.tools.images import SNIFF_BYTES, detect_image_mime_type
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, utf8_len

BINARY_SNIFF_BYTES = 8192
CHUNK_BYTES = 1 << 20
HEAD_CHARS = DEFAULT_MAX_BYTES + 1


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


@dataclass
class TextScan:
    """What one pass over a text file learned about it and its selected lines."""

    total_lines: int = 1
    file_bytes: int = 0
    head: str = ""  # the selection's text, cut after HEAD_CHARS characters
    selected_bytes: int = 0  # UTF-8 size of the whole decoded selection
    first_line_bytes: int = 0  # UTF-8 size of the selection's first line
    _in_first_line: bool = True
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace")
    )

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        self.selected_bytes += utf8_len(text)
        if self._in_first_line:
            end = text.find("\n")
            self.first_line_bytes += utf8_len(text if end < 0 else text[:end])
            self._in_first_line = end < 0
        if len(self.head) < HEAD_CHARS:
            self.head += text[: HEAD_CHARS - len(self.head)]


def _after_newlines(data: bytes, pos: int, count: int) -> int:
    """Index just past the ``count``-th newline at or after ``pos``; -1 when ``data`` has fewer."""
    if data.count(b"\n", pos) < count:
        return -1
    for _ in range(count):
        pos = data.find(b"\n", pos) + 1
    return pos


def scan_text(chunks: Iterable[bytes], start: int, stop: int | None) -> TextScan:
    """One pass over a file's bytes; lines ``start`` up to ``stop`` (exclusive; None: to the end) are
    the selection."""
    scan = TextScan()
    newlines = 0  # before the current chunk
    for chunk in chunks:
        begin = 0 if newlines >= start else _after_newlines(chunk, 0, start - newlines)
        if begin >= 0 and (stop is None or newlines < stop):
            after = -1 if stop is None else _after_newlines(chunk, begin, stop - max(newlines, start))
            scan.feed(chunk[begin : len(chunk) if after < 0 else after - 1])
        newlines += chunk.count(b"\n")
        scan.file_bytes += len(chunk)
    scan.feed(b"", final=True)
    scan.total_lines = newlines + 1
    return scan


@dataclass
class LocalFile:
    head: bytes  # the first bytes; the whole file when it is an image
    size: int
    text: TextScan | None  # None for an image or a binary file


def _binary_size(fd: int, head: bytes, rest: Iterable[bytes]) -> int:
    """A binary file's size: from its metadata when that can be trusted (a regular file not smaller
    than what was read; ``/proc`` files say 0), else by reading the rest of it."""
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_size >= len(head):
        return info.st_size
    return len(head) + sum(map(len, rest))


class ReadStopped(Exception):
    """``stopped()`` said yes between two chunks."""


def _chunks(read: Callable[[], bytes], stopped: Callable[[], bool]) -> Iterator[bytes]:
    for chunk in iter(read, b""):
        if stopped():
            raise ReadStopped()
        yield chunk


def read_local_file(
    path: str, start: int, stop: int | None, stopped: Callable[[], bool] = lambda: False
) -> LocalFile:
    with open(open_regular_file(path), "rb") as handle:
        head = handle.read(BINARY_SNIFF_BYTES)
        rest = _chunks(partial(handle.read, CHUNK_BYTES), stopped)
        if detect_image_mime_type(head[:SNIFF_BYTES]):
            data = head + b"".join(rest)
            return LocalFile(data, len(data), None)
        if looks_binary(head):
            return LocalFile(head, _binary_size(handle.fileno(), head, rest), None)
        text = scan_text(chain([head], rest), start, stop)
        return LocalFile(head, text.file_bytes, text)
