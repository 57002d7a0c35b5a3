"""AWS event-stream framing (``application/vnd.amazon.eventstream``), as Bedrock streams replies.

A message is: total length (4 bytes, big-endian), headers length (4), CRC-32 of those 8 bytes (4),
the headers, the payload, and a CRC-32 of everything before it (4). A header is a 1-byte name
length, the name, a 1-byte value type and the value (strings and byte arrays carry a 2-byte length).

``EventStreamDecoder`` turns body chunks into ``SseEvent``s so the adapters' parsers see one event
shape: ``event`` is the ``:event-type`` header (``exception:<type>`` for an exception or error
message, from ``:exception-type`` / ``:error-code``), ``data`` the payload as text. A broken
frame (bad CRC, impossible length) raises ``EventStreamError``. ``encode_message`` writes a
message (the fake server speaks Bedrock with it; tests check it against botocore's parser).
"""

from __future__ import annotations

import struct
import uuid
import zlib

from pi_app.ai.http.sse import SseEvent

PRELUDE = 12
MAX_MESSAGE = 16 * 1024 * 1024


class EventStreamError(Exception):
    pass


def _crc(data: bytes, start: int = 0) -> int:
    return zlib.crc32(data, start) & 0xFFFFFFFF


def _read_headers(raw: bytes) -> dict[str, object]:
    headers: dict[str, object] = {}
    i = 0
    while i < len(raw):
        size = raw[i]
        name = raw[i + 1 : i + 1 + size].decode("utf-8")
        i += 1 + size
        kind = raw[i]
        i += 1
        value: object
        if kind in (0, 1):  # bool true / false
            value = kind == 0
        elif kind == 2:
            value = struct.unpack_from(">b", raw, i)[0]
            i += 1
        elif kind == 3:
            value = struct.unpack_from(">h", raw, i)[0]
            i += 2
        elif kind == 4:
            value = struct.unpack_from(">i", raw, i)[0]
            i += 4
        elif kind in (5, 8):  # int64, timestamp (ms)
            value = struct.unpack_from(">q", raw, i)[0]
            i += 8
        elif kind in (6, 7):  # bytes, string
            length = struct.unpack_from(">H", raw, i)[0]
            data = raw[i + 2 : i + 2 + length]
            value = data.decode("utf-8") if kind == 7 else data
            i += 2 + length
        elif kind == 9:
            value = str(uuid.UUID(bytes=raw[i : i + 16]))
            i += 16
        else:
            raise EventStreamError(f"Unknown event-stream header type {kind}")
        headers[name] = value
    return headers


def decode_message(frame: bytes) -> tuple[dict[str, object], bytes]:
    """(headers, payload) of one complete frame; checks both CRCs."""
    total, header_len, prelude_crc = struct.unpack_from(">III", frame, 0)
    if _crc(frame[:8]) != prelude_crc:
        raise EventStreamError("Event-stream prelude checksum mismatch")
    (message_crc,) = struct.unpack_from(">I", frame, total - 4)
    if _crc(frame[: total - 4]) != message_crc:
        raise EventStreamError("Event-stream message checksum mismatch")
    headers = _read_headers(frame[PRELUDE : PRELUDE + header_len])
    return headers, frame[PRELUDE + header_len : total - 4]


def to_event(headers: dict[str, object], payload: bytes) -> SseEvent:
    kind = headers.get(":message-type", "event")
    text = payload.decode("utf-8", errors="replace")
    if kind == "exception":
        return SseEvent(event=f"exception:{headers.get(':exception-type', 'exception')}", data=text)
    if kind == "error":
        message = str(headers.get(":error-message", "")) or text
        return SseEvent(event=f"exception:{headers.get(':error-code', 'error')}", data=message)
    return SseEvent(event=str(headers.get(":event-type", "")), data=text)


class EventStreamDecoder:
    """Incremental: keeps an unfinished frame between chunks."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[SseEvent]:
        self._buffer += chunk
        events = []
        while len(self._buffer) >= PRELUDE:
            total, header_len = struct.unpack_from(">II", self._buffer, 0)
            if total < PRELUDE + 4 or total > MAX_MESSAGE or header_len > total - PRELUDE - 4:
                raise EventStreamError(f"Invalid event-stream frame length {total}")
            if len(self._buffer) < total:
                break
            frame = bytes(self._buffer[:total])
            del self._buffer[:total]
            events.append(to_event(*decode_message(frame)))
        return events

    def flush(self) -> list[SseEvent]:
        if self._buffer:
            raise EventStreamError("The event stream ended inside a message")
        return []


def _header(name: str, value: str) -> bytes:
    encoded_name = name.encode("utf-8")
    encoded = value.encode("utf-8")
    return bytes([len(encoded_name)]) + encoded_name + b"\x07" + struct.pack(">H", len(encoded)) + encoded


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One frame with string headers (what Bedrock sends)."""
    raw_headers = b"".join(_header(k, v) for k, v in headers.items())
    total = PRELUDE + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += struct.pack(">I", _crc(prelude))
    body = prelude + raw_headers + payload
    return body + struct.pack(">I", _crc(body))


def encode_event(event_type: str, payload: bytes) -> bytes:
    return encode_message(
        {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}, payload
    )


def encode_exception(exception_type: str, payload: bytes) -> bytes:
    return encode_message(
        {
            ":exception-type": exception_type,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        payload,
    )
