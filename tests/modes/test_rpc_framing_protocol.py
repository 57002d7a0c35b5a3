"""RPC framing (records split on LF only) and command parsing (errors echo the request id)."""

from __future__ import annotations

import io
import json

import pytest

from pi_app.modes.rpc.framing import LineWriter, RecordSplitter, split_records
from pi_app.modes.rpc.protocol import CommandError, PromptCommand, parse_command


def test_records_split_on_lf_only_and_keep_unicode_separators() -> None:
    tricky = "a\u2028b\u2029c\u0085d\x1ce\x1df\x1eg"
    data = json.dumps({"type": "prompt", "message": tricky}, ensure_ascii=False).encode() + b"\r\n"
    data += b"\n\n" + b'{"type":"get_state"}'  # blank lines skipped, last record unterminated
    records = split_records(data)
    assert len(records) == 2
    assert json.loads(records[0])["message"] == tricky
    assert json.loads(records[1]) == {"type": "get_state"}


def test_splitter_joins_records_across_chunks() -> None:
    splitter = RecordSplitter()
    out = list(splitter.feed(b'{"type":"ab'))
    out += list(splitter.feed(b'ort"}\n{"ty'))
    out += list(splitter.feed(b'pe":"x"}'))
    out += list(splitter.finish())
    assert out == [b'{"type":"abort"}', b'{"type":"x"}']


def test_writer_emits_one_line_per_object_and_survives_a_closed_pipe() -> None:
    stream = io.BytesIO()
    writer = LineWriter(stream)
    writer.write({"type": "x", "text": "line\u2028two\nthree"})
    writer.write({"type": "y"})
    lines = stream.getvalue().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 3
    assert json.loads(lines[0])["text"] == "line\u2028two\nthree"

    class Broken(io.RawIOBase):
        def write(self, data: object) -> int:
            raise BrokenPipeError

    broken = LineWriter(Broken())  # type: ignore[arg-type]
    broken.write({"type": "x"})
    assert broken.closed


def test_valid_prompt_parses_with_camel_case_fields() -> None:
    cmd = parse_command(
        b'{"id":"1","type":"prompt","message":"hi","streamingBehavior":"steer",'
        b'"images":[{"type":"image","data":"AAA=","mimeType":"image/png"}]}'
    )
    assert isinstance(cmd, PromptCommand)
    assert cmd.streaming_behavior == "steer" and cmd.images and cmd.images[0].mime_type == "image/png"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (b"not json", {"type": "response", "command": "parse", "success": False}),
        (b"[1,2]", {"type": "response", "command": "parse", "success": False}),
        (b'{"id":"7","type":"nope"}', {"id": "7", "command": "nope", "error": "Unknown command: nope"}),
        (
            b'{"id":"8","type":"set_model","provider":"x"}',
            {"id": "8", "command": "set_model", "success": False},
        ),
        (b'{"id":9,"type":"prompt"}', {"id": 9, "command": "prompt", "success": False}),
        (
            b'{"id":"a","type":"set_thinking_level","level":"maximum"}',
            {"id": "a", "command": "set_thinking_level"},
        ),
        (b'{"id":"b","message":"no type"}', {"id": "b", "command": "parse", "success": False}),
        (b'\xff\xfe{"type":"x"}', {"command": "parse", "success": False}),
    ],
)
def test_bad_records_become_one_error_response_with_the_id(record: bytes, expected: dict) -> None:
    with pytest.raises(CommandError) as info:
        parse_command(record)
    response = info.value.response
    assert response["type"] == "response" and response["success"] is False
    for key, value in expected.items():
        assert response[key] == value
    if expected.get("command") not in ("parse", "nope"):
        assert response["error"].startswith(f"Invalid {expected['command']} command: ")
    if "id" not in expected:
        assert "id" not in response
