"""Lone UTF-16 surrogates and bytes that are not UTF-8 (issue 19 items 1 and 11c).

A lone surrogate (``\\ud800``, which a JSON escape can carry and some models emit) used to stop
output and saving: RPC went silent, ``-p`` printed a traceback and wrote no session, JSON mode
stopped before ``agent_end``. Now it is U+FFFD on the wire, on screen and in the session, and an
encoding problem is never mistaken for a closed pipe.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.ai.util.sanitize import loads_clean, replace_lone_surrogates
from pi_app.coding.session.manager import SessionManager
from pi_app.modes.output import LineWriter
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback

REPLACEMENT = "\ufffd"


@pytest.fixture
def pi_home(tmp_path: Path) -> PiHome:
    return PiHome.make(tmp_path)


def assert_valid_session(path: Path) -> list[dict]:
    """Every line is UTF-8 JSON and every parentId names an entry written before it."""
    entries = [json.loads(line.decode("utf-8")) for line in path.read_bytes().splitlines() if line.strip()]
    seen: set[str] = set()
    for entry in entries[1:]:
        assert entry.get("parentId") is None or entry["parentId"] in seen, entry
        seen.add(entry["id"])
    return entries


def _texts(entries: list[dict], role: str) -> list[str]:
    out = []
    for entry in entries:
        if entry["type"] == "message" and entry["message"]["role"] == role:
            content = entry["message"]["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            out += [block["text"] for block in blocks if block["type"] == "text"]
    return out


def test_replace_lone_surrogates_keeps_pairs_and_marks_lone_halves() -> None:
    assert replace_lone_surrogates("a\ud800b") == f"a{REPLACEMENT}b"
    assert replace_lone_surrogates("\ud83d\ude00") == "😀"  # two halves side by side: one emoji
    assert replace_lone_surrogates("x\udcff") == f"x{REPLACEMENT}"  # surrogateescape'd byte
    assert loads_clean('{"k\\udc00": ["\\ud800"]}') == {f"k{REPLACEMENT}": [REPLACEMENT]}


def test_print_mode_with_a_surrogate_in_model_text_prints_saves_and_exits_0(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("hello \ud800 world"))

    result = pi_home.run("-p", "hi")

    assert_no_traceback(result.stderr)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"hello {REPLACEMENT} world\n"
    (session,) = pi_home.sessions()
    assert _texts(assert_valid_session(session), "assistant") == [f"hello {REPLACEMENT} world"]


def test_json_mode_with_a_surrogate_in_model_text_reaches_agent_end(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("a\ud800b"))

    result = pi_home.run("--mode", "json", "hi")

    assert_no_traceback(result.stderr)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in lines[-2:]] == ["agent_end", "agent_settled"]
    assert _texts(assert_valid_session(pi_home.sessions()[0]), "assistant") == [f"a{REPLACEMENT}b"]


def test_rpc_prompt_with_a_surrogate_is_answered_and_the_server_keeps_talking(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("first answer"))
    llm_server.enqueue(text("second answer"))
    commands = [
        {"id": "1", "type": "prompt", "message": "plain"},
        {"id": "2", "type": "prompt", "message": "lone \ud800 half"},
        {"id": "3", "type": "get_state"},
    ]
    proc = subprocess.Popen(
        [PI, "--mode", "rpc"],
        cwd=pi_home.project,
        env=pi_home.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def send(command: dict) -> None:  # json.dumps writes the lone half as the escape \ud800
        proc.stdin.write(json.dumps(command).encode() + b"\n")
        proc.stdin.flush()

    lines: list[dict] = []
    ends = 0
    try:
        send(commands[0])
        for raw in proc.stdout:
            lines.append(json.loads(raw.decode("utf-8")))  # stdout stays UTF-8 JSON
            if lines[-1].get("type") == "agent_end":
                ends += 1
                send(commands[ends])
            if lines[-1].get("command") == "get_state":
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    stderr = proc.stderr.read().decode()
    assert_no_traceback(stderr)
    assert ends == 2
    assert lines[-1]["success"] is True
    entries = assert_valid_session(pi_home.sessions()[0])
    assert _texts(entries, "user") == ["plain", f"lone {REPLACEMENT} half"]
    assert _texts(entries, "assistant") == ["first answer", "second answer"]


def test_session_manager_saves_a_prompt_and_reply_with_surrogates_in_order(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    manager.append_message(UserMessage(content=[TextContent(text="q\ud800")]))
    manager.append_message(AssistantMessage(content=[TextContent(text="\udfffa")]))
    manager.append_message(UserMessage(content="next"))

    entries = assert_valid_session(Path(manager.get_session_file() or ""))

    assert _texts(entries, "user") == [f"q{REPLACEMENT}", "next"]
    assert _texts(entries, "assistant") == [f"{REPLACEMENT}a"]


def test_line_writer_writes_a_surrogate_as_u_fffd_and_keeps_writing(tmp_path: Path) -> None:
    path = tmp_path / "out"
    with path.open("wb") as stream:
        writer = LineWriter(stream)
        writer.write("raw \ud800 text\n")
        writer.write({"text": "json \udc80"})
        writer.write({"after": True})
        assert not writer.closed
    assert path.read_bytes().decode("utf-8").splitlines() == [
        f"raw {REPLACEMENT} text",
        json.dumps({"text": f"json {REPLACEMENT}"}, ensure_ascii=False, separators=(",", ":")),
        '{"after":true}',
    ]


def test_invalid_utf8_in_an_argv_prompt_is_stored_as_u_fffd(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("ok"))

    result = subprocess.run(
        [PI, "-p", b"caf\xe9 \xff!"], cwd=pi_home.project, env=pi_home.env(), capture_output=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    entries = assert_valid_session(pi_home.sessions()[0])
    assert _texts(entries, "user") == [f"caf{REPLACEMENT} {REPLACEMENT}!"]
    sent = llm_server.requests[0].body["messages"]
    assert sent[-1]["content"] in (
        f"caf{REPLACEMENT} {REPLACEMENT}!",
        [{"type": "text", "text": f"caf{REPLACEMENT} {REPLACEMENT}!"}],
    )


def test_invalid_utf8_on_piped_stdin_becomes_u_fffd_not_a_lost_prompt(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("ok"))

    result = subprocess.run(
        [PI, "-p"],
        cwd=pi_home.project,
        env=pi_home.env(),
        input=b"na\xefve\n",
        capture_output=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert _texts(assert_valid_session(pi_home.sessions()[0]), "user")[0].startswith(f"na{REPLACEMENT}ve")
