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
from dataclasses import dataclass


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event: its ``event`` name and ``data``."""

    event: str
    data: str


class SseDecoder:
    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._skip_lf = False  # the previous chunk ended in "\r": a leading "\n" belongs to it
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        return self._feed_text(self._utf8.decode(chunk))

    def flush(self) -> list[SseEvent]:
        """End of input: decode what is left and dispatch a pending event."""
        events = self._feed_text(self._utf8.decode(b"", final=True))
        if self._buffer:
            line, self._buffer = self._buffer, ""
            events.extend(self._line(line))
        events.extend(self._dispatch())
        return events

    def _feed_text(self, text: str) -> list[SseEvent]:
        if not text:
            return []
        if self._skip_lf and text.startswith("\n"):
            text = text[1:]
        self._skip_lf = False
        buffer = self._buffer + text
        events: list[SseEvent] = []
        start = 0
        length = len(buffer)
        while True:
            cr = buffer.find("\r", start)
            lf = buffer.find("\n", start)
            if cr == -1 and lf == -1:
                break
            end = lf if cr == -1 else cr if lf == -1 else min(cr, lf)
            line = buffer[start:end]
            if buffer[end] == "\r":
                if end + 1 < length:
                    start = end + 2 if buffer[end + 1] == "\n" else end + 1
                else:
                    start = end + 1
                    self._skip_lf = True
            else:
                start = end + 1
            events.extend(self._line(line))
        self._buffer = buffer[start:]
        return events

    def _line(self, line: str) -> list[SseEvent]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return []
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields are ignored
        return []

    def _dispatch(self) -> list[SseEvent]:
        if not self._data:
            self._event = ""
            return []
        event = SseEvent(self._event, "\n".join(self._data))
        self._event = ""
        self._data = []
        return [event]


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseEvent]:
    """Decode an async byte stream into SSE events (flushing at EOF)."""
    decoder = SseDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush():
        yield event
