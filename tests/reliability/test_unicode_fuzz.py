"""Fuzzing the text that reaches pi from outside (issue 19, acceptance 2).

RPC lines, session lines and model stream text get lone UTF-16 surrogates, control characters and
bytes that are not UTF-8. Whatever comes in: no crash, no hang, stdout carries only protocol lines
(each one UTF-8 JSON), and every session line pi writes is UTF-8 JSON (lines it found in a file are
kept as they were). The model's text goes through the real wire path: the loopback fake server
sends it as SSE (a lone surrogate as a JSON escape) to the real OpenAI adapter.

``PI_FUZZ_EXAMPLES`` raises the example counts locally.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pi_app.ai.testing import text, thinking
from pi_app.coding.session.manager import SessionManager
from pi_app.terminal_text import visible_controls
from tests.fakes.llm_server import FakeLLMServer
from tests.modes.rpc_harness import make_harness
from tests.reliability.helpers import PiHome, assert_no_traceback, fuzz_settings

FUZZ = fuzz_settings(30)
FEW = fuzz_settings(4)  # each example runs the real pi: keep it short

hostile_chars = st.one_of(
    st.characters(),  # anything, lone surrogates included
    st.sampled_from(["\ud800", "\udfff", "\udc80", "\x1b", "\x07", "\x00", "\x9b", "\r", "\u2028", "\ufeff"]),
    st.sampled_from(["\x1b]52;c;cHduZWQ=\x07", "\x1b]0;title\x07", "\x1b[2J", "\x1b[H"]),
)
hostile_text = st.lists(hostile_chars, max_size=30).map("".join)
hostile_bytes = st.one_of(
    st.binary(max_size=40),
    hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")),  # CESU-style surrogates: invalid UTF-8
)


def _fresh_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="pi-ufuzz-"))


def _assert_utf8_json_lines(data: bytes, what: str) -> list[dict]:
    out = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        value = json.loads(line.decode("utf-8"))  # raises on invalid UTF-8 or JSON
        assert isinstance(value, dict), f"{what} line {number}: {line[:80]!r}"
        out.append(value)
    return out


# ---------------------------------------------------------------------------------------------
# RPC lines
# ---------------------------------------------------------------------------------------------

rpc_records = st.one_of(
    hostile_bytes,
    hostile_text.map(lambda t: json.dumps({"type": "prompt", "id": "p", "message": t}).encode()),
    hostile_text.map(
        lambda t: json.dumps({"type": "prompt", "message": t}, ensure_ascii=False).encode(
            "utf-8", "surrogatepass"
        )
    ),
    hostile_text.map(
        lambda t: json.dumps({"type": "set_session_name", "id": "n", "name": t or "x"}).encode()
    ),
    hostile_text.map(lambda t: json.dumps({"type": t or "?", "id": t}).encode()),
)


@FUZZ
@given(records=st.lists(rpc_records, min_size=1, max_size=6), reply=hostile_text)
def test_rpc_lines_with_surrogates_controls_and_bad_bytes(records: list[bytes], reply: str) -> None:
    folder = _fresh_dir()

    async def scenario() -> None:
        harness = await make_harness(
            str(folder), script=[[text(reply or "ok")]] * 10, session_dir=str(folder / "s")
        )
        try:
            for record in records:
                harness.send_raw(record.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n")
            harness.send({"type": "get_state", "id": "final"})
            assert (await harness.response("final", timeout=20))["success"] is True
            await asyncio.wait_for(harness.session.wait_for_idle(), 20)
        finally:
            harness.session.abort()
            await harness.close()
        lines = _assert_utf8_json_lines(harness.stream.getvalue(), "rpc stdout")
        assert all(isinstance(line.get("type"), str) for line in lines)
        for path in (folder / "s").glob("*.jsonl"):
            _assert_utf8_json_lines(path.read_bytes(), str(path))

    asyncio.run(scenario())


# ---------------------------------------------------------------------------------------------
# Session lines
# ---------------------------------------------------------------------------------------------

HEADER = '{"type":"session","version":3,"id":"01a2b3c4-0000-7000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}'


def _message_line(entry_id: str, parent: str | None, body: str) -> str:
    return json.dumps(
        {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": body, "timestamp": 1}},
    )  # fmt: skip


session_lines = st.one_of(
    hostile_bytes,
    hostile_text.map(lambda t: _message_line("a1", None, t).encode()),  # escapes: valid UTF-8 JSON
    hostile_text.map(lambda t: _message_line("a2", "a1", t).encode("utf-8", "surrogatepass")),
)


@FUZZ
@given(lines=st.lists(session_lines, max_size=6), prompt=hostile_text, answer=hostile_text)
def test_session_lines_with_surrogates_controls_and_bad_bytes(
    lines: list[bytes], prompt: str, answer: str
) -> None:
    folder = _fresh_dir()
    path = folder / "s.jsonl"
    original = b"\n".join([HEADER.encode(), *(line.replace(b"\n", b" ") for line in lines)]) + b"\n"
    path.write_bytes(original)

    manager = SessionManager.open(path)
    manager.append_message({"role": "user", "content": prompt, "timestamp": 2})
    manager.append_message(
        {"role": "assistant", "content": [{"type": "text", "text": answer}], "timestamp": 3}
    )
    for entry in manager.get_entries():  # whatever was loaded shows safely on a terminal
        visible_controls(json.dumps(entry.raw, ensure_ascii=False))

    data = path.read_bytes()
    assert data.startswith(original)  # what was there is kept byte for byte
    written = _assert_utf8_json_lines(data[len(original) :], "new session lines")
    assert [w["message"]["role"] for w in written] == ["user", "assistant"]


# ---------------------------------------------------------------------------------------------
# Model stream text, through the real pi
# ---------------------------------------------------------------------------------------------


@FEW
@given(answer=hostile_text, thought=hostile_text, prompt=hostile_text)
def test_model_stream_text_in_print_and_json_mode(answer: str, thought: str, prompt: str) -> None:
    home = PiHome.make(_fresh_dir())
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        for _ in range(2):
            server.enqueue(thinking(thought or "t", chunks=2), text(answer or "a", chunks=3))
        # argv cannot hold NUL; a lone surrogate goes in as the bytes UTF-8 forbids
        argv_prompt = prompt.replace("\x00", "").encode("utf-8", "surrogatepass") or b"hi"
        printed = home.run("-p", "--", argv_prompt, timeout=60)  # type: ignore[arg-type]
        streamed = home.run("--mode", "json", "--", argv_prompt, timeout=60)  # type: ignore[arg-type]

    assert_no_traceback(printed.stderr, streamed.stderr)
    assert printed.returncode == 0, printed.stderr
    # records end at \n only: U+2028 inside a string is not a line break (str.splitlines would cut there)
    events = [json.loads(line) for line in streamed.stdout.split("\n") if line]
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    for session in home.sessions():
        _assert_utf8_json_lines(session.read_bytes(), str(session))
