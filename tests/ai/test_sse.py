"""The SSE decoder: any chunking, any line ending, comments, multi-line data, EOF flush."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_app.ai.http.sse import SseDecoder, SseEvent

BODY = (
    ": comment\n"
    "event: message_start\n"
    'data: {"a":"é🙈"}\n'
    "\n"
    "id: 7\nretry: 100\n"
    "data: line one\n"
    "data:line two\n"
    "\n"
    "event: lonely\n"
    "\n"
    "data: [DONE]\n"
    "\n"
)
EXPECTED = [
    SseEvent("message_start", '{"a":"é🙈"}'),
    SseEvent("", "line one\nline two"),
    SseEvent("", "[DONE]"),
]


def decode(chunks: list[bytes]) -> list[SseEvent]:
    decoder = SseDecoder()
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.flush())
    return events


def test_whole_body() -> None:
    assert decode([BODY.encode()]) == EXPECTED


def test_every_line_ending_style_gives_the_same_events() -> None:
    for ending in ("\r\n", "\r"):
        assert decode([BODY.replace("\n", ending).encode()]) == EXPECTED


def test_one_byte_chunks_split_utf8_and_crlf() -> None:
    data = BODY.replace("\n", "\r\n").encode()
    assert decode([data[i : i + 1] for i in range(len(data))]) == EXPECTED


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=len(BODY.encode()) * 2), max_size=12),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_random_split_points(cuts: list[int], ending: str) -> None:
    data = BODY.replace("\n", ending).encode()
    points = sorted({c % (len(data) + 1) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert decode(chunks) == EXPECTED


def test_pending_event_is_dispatched_at_eof() -> None:
    assert decode([b"event: x\ndata: tail"]) == [SseEvent("x", "tail")]
