"""Provider faults against the loopback fake server (issue 12 item 2).

Spec: 10 R-AI-25…27 (L1 retries, error texts), 30 R-RETRY-01…09 (auto-retry, overflow recovery),
60 R-PRINT (one stderr line, exit 1), 70 R-SRV (RPC keeps answering). Each case runs the real
``pi`` (print, JSON or RPC mode) and checks what a user sees: the final answer or one clear line,
never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from pi_app.ai.testing import cut, garbage, http_error, stall, text
from pi_app.coding.session.manager import SessionManager
from pi_app.modes.rpc_client import RpcClient
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback

FAST_RETRY = {"retry": {"baseDelayMs": 10}}
OVERFLOW = {
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 213462 tokens > 200000 maximum",
    }
}


@pytest.fixture
def pi_home(tmp_path: Path) -> PiHome:
    return PiHome.make(tmp_path)


def _json_events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_429_with_retry_after_waits_as_asked_then_answers(pi_home: PiHome, llm_server: FakeLLMServer) -> None:
    pi_home.point_at(llm_server.base_url, api="anthropic-messages")
    pi_home.write_settings(FAST_RETRY)
    rate_limited = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    llm_server.enqueue(http_error(429, rate_limited, {"retry-after": "1"}))
    llm_server.enqueue(text("answer after the wait"))

    result = pi_home.run("-p", "hello")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "answer after the wait\n"
    first, second = llm_server.requests
    assert second.received_at - first.received_at >= 0.9  # retry-after: 1 was honoured
    assert_no_traceback(result.stderr)


def test_429_asking_for_too_long_a_wait_fails_fast_with_a_clear_line(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"enabled": False}})
    llm_server.enqueue(http_error(429, {"error": {"message": "quota"}}, {"retry-after": "3600"}))

    started = time.monotonic()
    result = pi_home.run("-p", "hello")

    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == ["Server requested 3600s retry delay (max: 60s). 429 quota"]
    assert len(llm_server.requests) == 1


def test_500_burst_is_retried_and_json_mode_reports_the_retries(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"baseDelayMs": 10, "provider": {"maxRetries": 0}}})
    for _ in range(3):
        llm_server.enqueue(http_error(500, {"error": {"type": "server_error", "message": "boom"}}))
    llm_server.enqueue(text("finally"))

    result = pi_home.run("--mode", "json", "hello")

    assert result.returncode == 0, result.stderr
    events = _json_events(result.stdout)
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [e["attempt"] for e in starts] == [1, 2, 3]
    assert all(e["errorMessage"] == "500 server_error: boom" for e in starts)
    (end,) = [e for e in events if e["type"] == "auto_retry_end"]
    assert end == {"type": "auto_retry_end", "success": True, "attempt": 3}
    assert len(llm_server.requests) == 4
    assert_no_traceback(result.stderr)


def test_500_that_never_ends_gives_up_with_one_line(pi_home: PiHome, llm_server: FakeLLMServer) -> None:
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"baseDelayMs": 10, "maxRetries": 2, "provider": {"maxRetries": 0}}})
    for _ in range(3):
        llm_server.enqueue(http_error(503, "upstream unavailable"))

    result = pi_home.run("-p", "hello")

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == ["503 upstream unavailable"]
    assert len(llm_server.requests) == 3
    (session,) = pi_home.sessions()
    stored = [e for e in SessionManager.open(session).get_entries() if e.raw.get("type") == "message"]
    # every failed attempt stays in the file (R-RETRY-08)
    assert [e.raw["message"].get("stopReason") for e in stored] == [None, "error", "error", "error"]


def test_dropped_connection_mid_stream_is_retried_without_leaking_the_partial_reply(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url, api="anthropic-messages")
    pi_home.write_settings(FAST_RETRY)
    llm_server.enqueue(text("half an ans"), cut())
    llm_server.enqueue(text("the whole answer"))

    result = pi_home.run("-p", "hello")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "the whole answer\n"
    retried = json.dumps(llm_server.requests[1].body)
    assert "half an ans" not in retried  # the failed reply is not sent back to the model
    assert_no_traceback(result.stderr)


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_garbage_sse_is_a_clear_error(api: str, pi_home: PiHome, llm_server: FakeLLMServer) -> None:
    pi_home.point_at(llm_server.base_url, api=api)
    llm_server.enqueue(text("some text"), garbage())

    result = pi_home.run("-p", "hello")

    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "json" in lines[0].lower(), result.stderr
    assert_no_traceback(result.stderr)


def test_stalled_stream_times_out_with_the_configured_idle_timeout(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"enabled": False, "provider": {"timeoutMs": 1000}}})
    llm_server.enqueue(text("thinking about it"), stall())

    started = time.monotonic()
    result = pi_home.run("-p", "hello", timeout=60)

    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == ["Request timed out after 1s"]


def test_unreachable_server_is_a_connection_error(pi_home: PiHome) -> None:
    with FakeLLMServer() as server:
        base_url = server.base_url
    pi_home.point_at(base_url)  # the port is closed now
    pi_home.write_settings({"retry": {"enabled": False, "provider": {"maxRetries": 0}}})

    result = pi_home.run("-p", "hello")

    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("Connection error: ")
    assert_no_traceback(result.stderr)


def _seed_long_session(pi_home: PiHome, server: FakeLLMServer) -> None:
    for i in range(2):
        server.enqueue(text(f"answer {i} " + "words " * 300))
        args = ["-p", f"question {i}"] if i == 0 else ["-c", "-p", f"question {i}"]
        assert pi_home.run(*args).returncode == 0


def test_context_overflow_compacts_once_and_resends(pi_home: PiHome, llm_server: FakeLLMServer) -> None:
    pi_home.point_at(llm_server.base_url, api="anthropic-messages")
    pi_home.write_settings({"compaction": {"keepRecentTokens": 1}, **FAST_RETRY})
    _seed_long_session(pi_home, llm_server)
    llm_server.reset()
    llm_server.enqueue(http_error(400, {"type": "error", **OVERFLOW}))
    llm_server.enqueue(text("SUMMARY: two questions were asked"))
    llm_server.enqueue(text("answer after compaction"))

    result = pi_home.run("-c", "--mode", "json", "question 2")

    assert result.returncode == 0, result.stderr
    events = _json_events(result.stdout)
    kinds = [e["type"] for e in events if e["type"].startswith("compaction")]
    assert kinds == ["compaction_start", "compaction_end"]
    end = next(e for e in events if e["type"] == "compaction_end")
    assert end["reason"] == "overflow" and end["willRetry"] is True and end["result"]
    assert len(llm_server.requests) == 3
    resent = json.dumps(llm_server.requests[2].body)
    assert "SUMMARY: two questions were asked" in resent and "question 2" in resent
    assert "prompt is too long" not in resent
    last = [e for e in events if e["type"] == "message_end"][-1]
    assert last["message"]["content"][0]["text"] == "answer after compaction"


def test_overflow_that_cannot_be_compacted_is_reported_in_print_mode(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url, api="anthropic-messages")
    llm_server.enqueue(text("an earlier answer"))
    assert pi_home.run("-p", "first").returncode == 0
    llm_server.enqueue(http_error(400, {"type": "error", **OVERFLOW}))

    result = pi_home.run("-c", "-p", "second")

    # Not exit 0 with the earlier turn's answer: the failure is named on stderr.
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("Context overflow recovery failed")


async def _until(predicate, timeout: float) -> None:
    """Poll ``predicate`` (events arrive on the client's reader task) until true or time is up."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def _rpc_client(pi_home: PiHome, *args: str) -> RpcClient:
    client = RpcClient(
        ["--no-session", *args],
        cwd=str(pi_home.project),
        env=pi_home.env(),
        command=[sys.executable, "-m", "pi_app"],
    )
    return await client.start()


async def test_rpc_abort_during_a_stalled_stream_ends_the_run_promptly(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("partial", chunks=1), stall())
    client = await _rpc_client(pi_home)
    try:
        events: list[dict] = []
        client.on_event(events.append)
        await client.prompt("hello")
        await client.wait_for_event("message_update", timeout=30)
        started = time.monotonic()
        await client.abort()
        await _until(lambda: any(e["type"] == "agent_end" for e in events), timeout=10)
        assert time.monotonic() - started < 5
        state = await client.get_state()  # the server still answers after the abort
        assert state["isStreaming"] is False
        end = [e for e in events if e["type"] == "message_end"][-1]["message"]
        assert end["stopReason"] == "aborted"
        assert not [e for e in events if e["type"] == "auto_retry_start"]
    finally:
        await client.stop()
    assert_no_traceback(client.stderr_tail())


async def test_rpc_shows_a_clear_message_when_retries_run_out(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"baseDelayMs": 10, "maxRetries": 1, "provider": {"maxRetries": 0}}})
    for _ in range(2):
        llm_server.enqueue(http_error(529, {"error": {"type": "overloaded_error", "message": "Overloaded"}}))
    client = await _rpc_client(pi_home)
    try:
        events: list[dict] = []
        client.on_event(events.append)
        await client.prompt("hello")
        await _until(lambda: any(e["type"] == "auto_retry_end" for e in events), timeout=30)
        (end,) = [e for e in events if e["type"] == "auto_retry_end"]
        assert end == {
            "type": "auto_retry_end",
            "success": False,
            "attempt": 1,
            "finalError": "529 overloaded_error: Overloaded",
        }
        messages = await client.get_messages()
        assert messages[-1]["errorMessage"] == "529 overloaded_error: Overloaded"
    finally:
        await client.stop()
    assert_no_traceback(client.stderr_tail())


async def test_rpc_reports_retry_progress_and_abort_retry_cancels_the_wait(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    """R-RETRY-02/04 over RPC: ``auto_retry_start`` names the attempt, the wait and the reason;
    ``abort_retry`` ends a long wait at once with ``finalError: "Retry cancelled"``."""
    pi_home.point_at(llm_server.base_url)
    pi_home.write_settings({"retry": {"baseDelayMs": 60000, "provider": {"maxRetries": 0}}})
    llm_server.enqueue(http_error(529, {"error": {"type": "overloaded_error", "message": "Overloaded"}}))
    client = await _rpc_client(pi_home)
    try:
        events: list[dict] = []
        client.on_event(events.append)
        await client.prompt("hello")
        start = await client.wait_for_event("auto_retry_start", timeout=30)
        assert start == {
            "type": "auto_retry_start",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 60000,
            "errorMessage": "529 overloaded_error: Overloaded",
        }
        started = time.monotonic()
        await client.abort_retry()
        await _until(lambda: any(e["type"] == "auto_retry_end" for e in events), timeout=10)
        assert time.monotonic() - started < 5
        (end,) = [e for e in events if e["type"] == "auto_retry_end"]
        assert end == {
            "type": "auto_retry_end",
            "success": False,
            "attempt": 1,
            "finalError": "Retry cancelled",
        }
        assert (await client.get_state())["isStreaming"] is False
        assert len(llm_server.requests) == 1
    finally:
        await client.stop()
    assert_no_traceback(client.stderr_tail())
