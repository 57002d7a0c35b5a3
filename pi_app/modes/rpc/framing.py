"""RPC framing over stdio: records split on ``\\n`` only, and one ordered writer (R-RPC-01..03).

Input is read as bytes: ``split_records`` cuts on ``b"\\n"`` alone, so U+2028, U+2029, U+0085 and
the ASCII separators (legal inside JSON strings) never end a record; one trailing ``\\r`` is
stripped; empty records are skipped; a final unterminated record at EOF still counts. Decoding is
per record, so a bad UTF-8 sequence spoils only its own line.

The output side (``LineWriter``, ``guard_stdout``) is shared with JSON and print mode and lives in
``pi_app.modes.output``; it is re-exported here.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator

from pi_app.modes.output import LineWriter, guard_stdout

__all__ = ["LineWriter", "RecordSplitter", "guard_stdout", "read_records", "split_records"]

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
