"""RPC framing over stdio: records split on ``\\n`` only, and one ordered writer (R-RPC-01..03).

Input is read as bytes: ``split_records`` cuts on ``b"\\n"`` alone, so U+2028, U+2029, U+0085 and
the ASCII separators (legal inside JSON strings) never end a record; one trailing ``\\r`` is
stripped; empty records are skipped; a final unterminated record at EOF still counts. Decoding is
per record, so a bad UTF-8 sequence spoils only its own line.

``LineWriter`` owns the real stdout (a private duplicate of file descriptor 1): every message is
encoded with the project's single line encoder and written whole, in the order it was queued, and
flushed before the next one, so large events are never cut or interleaved.

``guard_stdout`` points ``sys.stdout`` (and fd 1, which subprocesses inherit) at stderr, so a stray
``print`` in an extension or a library cannot corrupt the protocol stream.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

from pi_app.ai.codec import encode_line

READ_CHUNK = 64 * 1024


class RecordSplitter:
    """Incremental ``\\n`` splitter: ``feed(bytes)`` yields finished records, ``finish()`` the rest."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._buffer.extend(data)
        start = 0
        while True:
            end = self._buffer.find(b"\n", start)
            if end < 0:
                break
            record = _trim(bytes(self._buffer[start:end]))
            start = end + 1
            if record:
                yield record
        del self._buffer[:start]

    def finish(self) -> Iterator[bytes]:
        record = _trim(bytes(self._buffer))
        self._buffer.clear()
        if record:
            yield record


def _trim(record: bytes) -> bytes:
    return record[:-1] if record.endswith(b"\r") else record


def split_records(data: bytes) -> list[bytes]:
    """All records of a complete byte string (the last one may lack its ``\\n``)."""
    splitter = RecordSplitter()
    return [*splitter.feed(data), *splitter.finish()]


async def read_records(fd: int) -> AsyncIterator[bytes]:
    """Records from a file descriptor, read in a helper thread so any stdin (pipe, file, tty) works.

    The thread blocks in ``os.read`` (never in a buffered reader, whose lock would make interpreter
    shutdown abort while the thread still waits); at EOF the iterator ends. The daemon thread never
    keeps the process alive after the RPC loop has finished.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def pump() -> None:
        try:
            while True:
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                loop.call_soon_threadsafe(queue.put_nowait, chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:  # the loop is already closed
                pass

    threading.Thread(target=pump, name="rpc-stdin", daemon=True).start()
    splitter = RecordSplitter()
    while True:
        chunk = await queue.get()
        if chunk is None:
            break
        for record in splitter.feed(chunk):
            yield record
    for record in splitter.finish():
        yield record


class LineWriter:
    """Writes protocol objects as single lines, in call order, to a private binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def write(self, obj: Any) -> None:
        line = obj if isinstance(obj, str) else encode_line(obj)
        data = line.encode("utf-8")
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True  # the client went away: drop further output quietly

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                try:
                    self._stream.flush()
                except (OSError, ValueError):
                    pass
            self.closed = True


def guard_stdout() -> BinaryIO:
    """Route everything but the protocol to stderr; return a private binary handle on the real stdout.

    After this, fd 1 is a copy of fd 2 (children inherit stderr as their stdout) and ``sys.stdout``
    writes to stderr. Only the returned stream reaches the client.
    """
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    private_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private_fd, "wb", buffering=0)
