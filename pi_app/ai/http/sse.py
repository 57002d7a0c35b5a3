"""Server-sent events decoding, robust to any chunking (R-AI-85).

``SseDecoder`` is fed raw bytes as they arrive and yields complete ``SseEvent``s. It accepts
``\\n``, ``\\r\\n`` and ``\\r`` line endings (including a ``\\r\\n`` split across two chunks) and
multi-byte UTF-8 characters split across chunks; handles ``event:``, ``data:`` (several data lines
are joined with ``\\n``; one optional space after the colon is stripped), ignores ``id:``/``retry:``
and ``:`` comments; dispatches on a blank line and, at EOF, flushes a pending event. Events
without data are dropped. Interpreting the data (JSON, ``[DONE]``) is the adapter's job.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterable, AsyncIterator
from typing import NamedTuple


class SseEvent(NamedTuple):
    """One server-sent event: its ``event`` name and ``data``."""

    event: str
    data: str


class SseDecoder:
    """Incremental decoder; each chunk costs time proportional to its own size, also when one
    event spans many chunks (a line's pieces are kept in a list and joined once it ends)."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []  # the pieces of an unfinished line
        self._skip_lf = False  # the previous chunk ended in "\r": a leading "\n" belongs to it
        self._event = ""
        self._data: list[str] = []
        self.joins = 0
        """How many lines were assembled from pieces of several chunks (each copies the line once)."""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        return self._feed_text(self._utf8.decode(chunk))

    def flush(self) -> list[SseEvent]:
        """End of input: decode what is left and dispatch a pending event."""
        events = self._feed_text(self._utf8.decode(b"", final=True))
        if self._pending:
            self.joins += len(self._pending) > 1
            line = "".join(self._pending)
            self._pending = []
            self._line(line, events)
        self._dispatch(events)
        return events

    def _feed_text(self, text: str) -> list[SseEvent]:
        events: list[SseEvent] = []
        if not text:
            return events
        if self._skip_lf:
            self._skip_lf = False
            if text.startswith("\n"):
                text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n")
            if text.endswith("\r"):  # maybe the first half of a "\r\n" split across chunks
                self._skip_lf = True
            lines = text.replace("\r", "\n").split("\n")
        elif "\n" in text:
            lines = text.split("\n")
        else:
            self._pending.append(text)
            return events
        if self._pending:
            self._pending.append(lines[0])
            lines[0] = "".join(self._pending)
            self.joins += 1
        tail = lines.pop()
        self._pending = [tail] if tail else []
        for line in lines:
            self._line(line, events)
        return events

    def _line(self, line: str, events: list[SseEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":
            return
        name, sep, value = line.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields are ignored

    def _dispatch(self, events: list[SseEvent]) -> None:
        if self._data:
            data = self._data
            events.append(SseEvent(self._event, data[0] if len(data) == 1 else "\n".join(data)))
            self._data = []
        self._event = ""


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseEvent]:
    """Decode an async byte stream into SSE events (flushing at EOF)."""
    decoder = SseDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush():
        yield event
