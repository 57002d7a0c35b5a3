"""Request timeouts (issue 19 item 10).

A server that trickled one byte every few seconds held pi for ever: each read got a byte, so no
read ever timed out. ``httpIdleTimeoutMs`` (pi 1.6.0's setting, default 300 s) now bounds the wait
for the headers and the time between two stream events as well as each read; the failure is one
line ("Request timed out after Ns") and is retried like other errors.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest

from tests.reliability.helpers import PiHome, assert_no_traceback


class TrickleServer:
    """Answers every request with a byte every ``interval`` seconds: in the body (an SSE line that
    never ends) or, with ``in_headers``, in the status line and headers themselves."""

    def __init__(self, interval: float, in_headers: bool = False) -> None:
        self.interval = interval
        self.in_headers = in_headers
        self.requests = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.requests += 1
        try:
            await reader.readuntil(b"\r\n\r\n")
            if not self.in_headers:
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nx-slow: ")
            while True:
                await writer.drain()
                await asyncio.sleep(self.interval)
                writer.write(b" ")
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            writer.close()

    def __enter__(self) -> TrickleServer:
        self._thread.start()
        self._ready.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(stop(), self._loop)
        self._thread.join(5)


@pytest.fixture(params=["body", "headers"])
def trickle(request) -> Iterator[TrickleServer]:
    with TrickleServer(0.3, in_headers=request.param == "headers") as server:
        yield server


def test_a_trickling_server_times_out_in_one_line_and_is_retried(tmp_path, trickle: TrickleServer) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(f"http://127.0.0.1:{trickle.port}")
    home.write_settings({"httpIdleTimeoutMs": 1000, "retry": {"maxRetries": 1, "baseDelayMs": 10}})

    started = time.monotonic()
    result = home.run("--mode", "json", "hello", timeout=60)

    assert time.monotonic() - started < 20
    assert_no_traceback(result.stderr)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    (retry,) = [e for e in events if e["type"] == "auto_retry_start"]
    assert retry["errorMessage"] == "Request timed out after 1s"
    assert trickle.requests == 2
    assert events[-2:] == [
        {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Request timed out after 1s"},
        {"type": "agent_settled", "aborted": False},
    ]  # fmt: skip
    assert [e["willRetry"] for e in events if e["type"] == "agent_end"] == [True, False]
