"""The read tool's chunked local path (issue 12 item 6) answers exactly like the whole-bytes path a
custom ``ReadOperations`` keeps: same text, same ``details`` (truncation figures included), same errors,
whatever the file and wherever the chunk boundaries fall."""

from __future__ import annotations

import asyncio
import os
import tempfile
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_app.coding.tools import LocalReadOperations, create_read_tool, read_scan
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES
from tests.tools.conftest import run_tool
from tests.tools.test_read import png_bytes


class WholeBytesOperations(LocalReadOperations):
    """A custom operations object: the tool must read through ``read_file`` (the whole-bytes path)."""

    def __init__(self) -> None:
        self.reads = 0

    def read_file(self, absolute_path: str) -> bytes:
        self.reads += 1
        return super().read_file(absolute_path)


async def outcome(cwd: str, operations=None, **params):
    try:
        result = await run_tool(create_read_tool(cwd, operations), {"path": "f.txt", **params})
    except Exception as exc:  # the error the model would see
        return type(exc).__name__, str(exc)
    return result.content, result.details


async def both_paths(cwd: str, data: bytes, **params):
    with open(os.path.join(cwd, "f.txt"), "wb") as handle:
        handle.write(data)
    whole = WholeBytesOperations()
    expected = await outcome(cwd, whole, **params)
    assert whole.reads == 1
    return await outcome(cwd, **params), expected


MAX = DEFAULT_MAX_BYTES
MIXED = "é🙂✓ab\n".encode() * 3000  # multi-byte characters across every chunk boundary

CASES = {
    "empty": (b"", {}),
    "empty offset 2": (b"", {"offset": 2}),
    "no trailing newline": (b"a\nb\nc", {}),
    "trailing newline": (b"a\nb\nc\n", {}),
    "only newlines": (b"\n\n", {}),
    "crlf": (b"one\r\ntwo\r\nthree\r\n", {"offset": 2}),
    "long first line": (b"x" * (MAX + 1) + b"\nshort\n", {}),
    "first line exactly at limit": (b"x" * MAX + b"\nnext", {}),
    "first line over limit in bytes not chars": (("é" * (MAX // 2 + 1) + "\nz").encode(), {}),
    "long line reached by offset": (b"short\n" + b"y" * (3 * MAX) + b"\nend", {"offset": 2}),
    "long line after kept lines": (b"a\nb\n" + b"y" * (3 * MAX), {}),
    "exactly max lines": (b"\n".join(b"L%d" % i for i in range(DEFAULT_MAX_LINES)), {}),
    "max lines plus trailing newline": (b"L\n" * DEFAULT_MAX_LINES, {}),
    "one line over max lines": (b"\n".join(b"L%d" % i for i in range(DEFAULT_MAX_LINES + 1)), {}),
    "exactly max bytes": (b"\n".join([b"q" * 17066] * 3), {}),
    "one byte over max bytes": (b"\n".join([b"q" * 17066] * 3) + b"r", {}),
    "many lines with offset and limit": (
        b"".join(b"line %d\n" % i for i in range(5000)),
        {"offset": 100, "limit": 2500},
    ),
    "bytes limit inside a window": (
        b"".join(b"%d" % i + b"w" * 90 + b"\n" for i in range(3000)),
        {"offset": 7, "limit": 900},
    ),
    "offset beyond end": (b"a\nb\nc", {"offset": 4}),
    "offset at empty last line": (b"a\nb\nc\n", {"offset": 4}),
    "far offset": (b"a\n" * 10, {"offset": 1e9}),
    "limit past end": (b"a\nb\nc", {"limit": 100}),
    "limit exactly to end": (b"a\nb\nc", {"offset": 2, "limit": 2}),
    "limit stops early": (b"a\nb\nc\nd", {"offset": 2, "limit": 1}),
    "zero limit": (b"a\nb", {"limit": 0}),
    "fractional values": (b"a\nb\nc\nd\ne", {"offset": 2.7, "limit": 2.5}),
    "zero and negative offset": (b"a\nb", {"offset": -3}),
    "zero limit beyond end": (b"a", {"offset": 3, "limit": 0}),
    "multi-byte across chunks": (MIXED, {}),
    "multi-byte with window": (MIXED, {"offset": 1500, "limit": 40}),
    "invalid utf-8": (b"\xff\xfeok\n\xe2\x82\nx\xf0\x9f\x99\n\xc3(\n\xed\xa0\x80\nend\xf0\x9f", {}),
    "invalid utf-8 across chunks": (b"\xe2\x82\xf0\x9f\x99" * 20000 + b"\n\xc3", {"offset": 2}),
    "nul after the sniff window": (b"a" * 9000 + b"\x00tail\n", {}),
    "binary": (b"\x00\x01" * 70000, {}),
    "image": (png_bytes(3, 2), {}),
}


@pytest.mark.parametrize("chunk_bytes", [read_scan.CHUNK_BYTES, 4093])
@pytest.mark.parametrize("name", list(CASES))
async def test_local_chunked_read_matches_whole_bytes_path(cwd, monkeypatch, name, chunk_bytes) -> None:
    monkeypatch.setattr(read_scan, "CHUNK_BYTES", chunk_bytes)
    data, params = CASES[name]
    streamed, whole = await both_paths(cwd, data, **params)
    assert streamed == whole


async def test_local_path_never_reads_the_file_whole(cwd, monkeypatch) -> None:
    def whole_read(self, path):
        raise AssertionError("the built-in local read must stream")

    monkeypatch.setattr(LocalReadOperations, "read_file", whole_read)
    with open(os.path.join(cwd, "f.txt"), "wb") as handle:
        handle.write(b"z\n" * 10)
    content, details = await outcome(cwd, offset=3, limit=2)
    assert content[0].text == "z\nz\n\n[7 more lines in file. Use offset=5 to continue.]"


PIECES = st.sampled_from(
    [
        b"a",
        b"\n",
        b"\r\n",
        "é".encode(),
        "🙂".encode(),
        b"\xff",
        b"\xe2\x82",
        b"\xf0\x9f",
        b"x" * 9000,
        b"y\n" * 700,
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(PIECES, max_size=25).map(b"".join),
    offset=st.none() | st.integers(0, 2500),
    limit=st.none() | st.integers(0, 2500),
    chunk_bytes=st.integers(1000, 9000),
)
def test_generated_files_read_alike(data: bytes, offset, limit, chunk_bytes: int) -> None:
    params = {key: value for key, value in (("offset", offset), ("limit", limit)) if value is not None}
    with tempfile.TemporaryDirectory(prefix="pi-read-streaming-") as cwd:
        with mock.patch.object(read_scan, "CHUNK_BYTES", chunk_bytes):
            streamed, whole = asyncio.run(both_paths(cwd, data, **params))
    assert streamed == whole


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(PIECES.filter(lambda piece: len(piece) < 100), max_size=40).map(b"".join),
    start=st.integers(0, 12),
    count=st.none() | st.integers(1, 12),
    cuts=st.lists(st.integers(0, 200), max_size=12),
)
def test_scan_text_agrees_with_decoding_whole_for_any_chunking(data: bytes, start, count, cuts) -> None:
    bounds = sorted({0, len(data), *(cut for cut in cuts if cut < len(data))})
    chunks = [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    scan = read_scan.scan_text(chunks, start, None if count is None else start + count)

    lines = data.decode("utf-8", "replace").split("\n")
    selected = "\n".join(lines[start : None if count is None else start + count])
    assert scan.total_lines == len(lines)
    assert scan.file_bytes == len(data)
    assert scan.head == selected[: read_scan.HEAD_CHARS]
    assert scan.selected_bytes == len(selected.encode())
    assert scan.first_line_bytes == len(selected.split("\n")[0].encode())
