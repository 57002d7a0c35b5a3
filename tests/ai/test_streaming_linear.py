"""Streaming costs O(delta) per delta: no delta's text is copied or re-parsed once per later delta.

Issue 20 acceptance 3, without timing anything: the growing blocks (``pi_app.ai.growing``) count
every time they join their pieces into one string or parse a tool call's arguments, and the SSE
decoder counts every line it assembles from pieces. A reply of thousands of deltas must leave
these counts at a small constant, through each wire adapter against the loopback server and
through a whole ``pi -p`` run (adapter, agent loop, session, print mode). Before issue 20 the text
was copied on every delta (``block.text += delta``) and the arguments re-parsed from the start on
every chunk, so the same counts were in the thousands.
"""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path

import pytest

from pi_app.ai import testing as T
from pi_app.ai.growing import GrowingText, GrowingToolCall, growth_stats
from pi_app.ai.http.sse import SseDecoder
from pi_app.ai.types import StreamOptions, TextContent, ToolCall
from tests.ai.helpers import adapter, simple_context, wire_model
from tests.fakes.llm_server import FakeLLMServer

WIRE_APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"]
DELTAS = 3000


def _answer() -> str:
    return "".join(f"line {i:05d} of the answer\n" for i in range(DELTAS))[: DELTAS * 16]


def _body() -> str:
    return "".join(f'row {i:05d}, "quoted" and\ttabbed\n' for i in range(DELTAS))


@pytest.mark.parametrize("api", WIRE_APIS)
async def test_each_delta_is_copied_and_parsed_a_bounded_number_of_times(
    api: str, llm_server: FakeLLMServer
) -> None:
    answer, body = _answer(), _body()
    llm_server.enqueue(
        T.text(answer, chunks=DELTAS),
        T.tool_call("write", {"path": "out.txt", "content": body}, id="call_1", chunks=DELTAS),
    )
    growth_stats.reset()
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), StreamOptions(api_key="k", max_retries=0)
    )
    deltas = 0
    async for event in stream:
        deltas += event.type in ("text_delta", "toolcall_delta")
    message = await stream.result()

    assert message.stop_reason == "toolUse", message.error_message
    text, call = message.content
    assert type(text) is TextContent and text.text == answer
    assert type(call) is ToolCall and call.arguments == {"path": "out.txt", "content": body}
    if api != "google-generative-ai":  # Gemini sends a call's arguments whole, in one event
        assert deltas > DELTAS
    # one join per finished block and one parse of the whole arguments, whatever the delta count
    assert growth_stats.joins <= 3
    assert growth_stats.parses <= 1


async def test_a_reader_between_deltas_sees_the_text_so_far(llm_server: FakeLLMServer) -> None:
    """Reading the partial (as the TUI does once per frame) joins only what arrived since."""
    answer = _answer()
    llm_server.enqueue(T.text(answer, chunks=DELTAS))
    api = "openai-completions"
    stream = adapter(api).stream(
        wire_model(api, llm_server.base_url), simple_context(), StreamOptions(api_key="k", max_retries=0)
    )
    growth_stats.reset()
    seen = ""
    reads = 0
    async for event in stream:
        if event.type == "text_delta":
            seen += event.delta
            if len(seen) % 100 == 0:
                reads += 1
                # the producer may be ahead of this reader: the partial holds at least what it saw
                assert event.partial.content[0].text.startswith(seen)
    assert reads > 10
    assert growth_stats.joins <= reads + 2
    assert (await stream.result()).content[0].text == answer


def test_one_sse_line_in_many_chunks_is_joined_once() -> None:
    data = "x" * 200_000
    raw = f"event: big\ndata: {data}\n\n".encode()
    decoder = SseDecoder()
    events = []
    for i in range(0, len(raw), 64):
        events.extend(decoder.feed(raw[i : i + 64]))
    assert [(e.event, e.data) for e in events] == [("big", data)]
    assert decoder.joins == 1


@pytest.mark.parametrize("mode", ["print", "json"])
def test_a_whole_run_copies_each_delta_a_bounded_number_of_times(
    mode: str,
    tmp_path: Path,
    llm_server: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """``pi -p`` and ``pi --mode json``: wire adapter, agent loop, session (persisted), the mode's
    output, in this process. JSON mode writes each delta, not the message so far (pi 1.6.0's
    delta form), so it must not read the growing text either."""
    from pi_app.cli import main

    agent_dir = tmp_path / "home" / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    provider = {
        "baseUrl": llm_server.base_url + "/v1",
        "api": "openai-completions",
        "apiKey": "k",
        "models": [{"id": "fake-model"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    answer, body = _answer(), _body()
    llm_server.enqueue(T.tool_call("write", {"path": "out.txt", "content": body}, chunks=DELTAS))
    llm_server.enqueue(T.text(answer, chunks=DELTAS))
    growth_stats.reset()

    assert main(["-p", "write it"] if mode == "print" else ["--mode", "json", "write it"]) == 0

    out = capfd.readouterr().out
    if mode == "print":
        assert out == answer + "\n"
    else:
        ends = [e for e in map(json.loads, out.splitlines()) if e.get("type") == "message_end"]
        last = ends[-1]["message"]
        assert last["role"] == "assistant" and last["content"][0]["text"] == answer
        # a line per delta (~400 bytes of framing), never the message so far (that would be
        # about 70 MB here, as it was before the delta form)
        assert len(out) < 2 * DELTAS * 600 + 4 * (len(answer) + len(body))
    assert (tmp_path / "out.txt").read_text() == body
    assert growth_stats.joins <= 6
    assert growth_stats.parses <= 2


def test_growing_blocks_behave_as_plain_ones() -> None:
    text = GrowingText(text="a")
    text.append("b")
    text.append("c")
    assert text == TextContent(text="abc") and TextContent(text="abc") == text
    clone = copy.copy(text)
    text.append("d")
    assert clone.text == "abc" and text.text == "abcd"
    assert type(text.frozen()) is TextContent and text.frozen().text == "abcd"

    call = GrowingToolCall(id="c1", name="write")
    for piece in ('{"pa', 'th": "a.t', "xt", '", "n": 1', "2}"):
        call.append_raw(piece)
    assert call.arguments == {"path": "a.txt", "n": 12}
    assert call == ToolCall(id="c1", name="write", arguments={"path": "a.txt", "n": 12})
    partial = GrowingToolCall(id="c2", name="write")
    partial.append_raw('{"content": "unfinished')
    assert partial.arguments == {"content": "unfinished"}  # a streaming string stays visible
    partial.append_raw(" but not lost")
    assert partial.frozen().arguments == {"content": "unfinished but not lost"}


def test_reading_on_another_thread_while_appending_loses_nothing() -> None:
    block = GrowingText(text="")
    pieces = [f"{i}," for i in range(100_000)]
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            _ = block.text

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for piece in pieces:
            block.append(piece)
    finally:
        done.set()
        thread.join()
    assert block.text == "".join(pieces)
