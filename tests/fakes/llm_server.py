"""A loopback HTTP server that speaks the four LLM wire formats, for black-box and adapter tests.

``FakeLLMServer`` runs its own asyncio loop in a background thread, so a subprocess (the installed
``pi`` pointed at it through ``models.json``) can talk to it while the test blocks. Tests queue
turns with ``enqueue(*steps)``; each request takes the next turn and renders it in the wire format
chosen by the request path:

- ``…/messages``                         Anthropic Messages SSE
- ``…/chat/completions``                 OpenAI Chat Completions SSE
- ``…/responses``                        OpenAI Responses SSE
- ``…/models/<id>:streamGenerateContent`` Google Generative AI SSE (Gemini API and Vertex AI)
- ``…/model/<id>/converse-stream``        Amazon Bedrock Converse, AWS event-stream frames
- ``…/messages`` with a ``context`` body   pi-messages (Radius), pi's own events as SSE

Steps are the ones of ``pi_app.ai.testing`` (text, thinking, tool_call, usage, stop, error, delay)
plus the server-only ``http_error(status, body, headers)``, ``stall()``, ``cut()`` and
``garbage()``. Every request is recorded in ``requests`` (path, lowercase headers, parsed JSON
body). With no turn queued the server asks the ``responder`` set with ``respond_with(fn)`` (a
function of the recorded request returning the steps; many concurrent sessions can be answered
from what each one sent), and without one answers 500 with a JSON error naming the problem.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pi_app.ai import testing
from pi_app.ai.testing import Cut, Delay, Hang, HttpError, Step

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Overloaded",
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    raw_body: bytes = b""
    api: str | None = None
    received_at: float = 0.0  # time.monotonic() when the request was read


@dataclass
class _Turn:
    steps: list[Step] = field(default_factory=list)


def api_for_path(path: str) -> str | None:
    if path.endswith("/converse-stream"):
        return "bedrock-converse-stream"
    if path.endswith("/chat/completions"):
        return "openai-completions"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages"):
        return "anthropic-messages"
    if ":streamGenerateContent" in path:
        return "google-generative-ai"
    return None


def _api_for(path: str, body: Any) -> str | None:
    api = api_for_path(path)
    if api == "anthropic-messages" and isinstance(body, dict) and "context" in body:
        return "pi-messages"  # pi's own protocol also posts to …/messages, with a pi context
    return api


def _model_from(path: str, body: Any) -> str:
    if ":streamGenerateContent" in path:
        return unquote(path.rsplit("/", 1)[-1].split(":", 1)[0])
    if path.endswith("/converse-stream"):
        return unquote(path.split("/model/", 1)[-1].rsplit("/", 1)[0])
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return body["model"]
    return "fake-model"


class FakeLLMServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.requests: list[RecordedRequest] = []
        self._turns: list[_Turn] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._responder: Callable[[RecordedRequest], Sequence[Step | str]] | None = None

    # -- public API ---------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def enqueue(self, *steps: Step | str) -> None:
        """Queue ONE turn made of ``steps``."""
        with self._lock:
            self._turns.append(_Turn([testing.parse_step(s) for s in steps]))

    def respond_with(self, responder: Callable[[RecordedRequest], Sequence[Step | str]] | None) -> None:
        """Answer requests that find no queued turn with ``responder(request)``'s steps."""
        self._responder = responder

    def enqueue_turns(self, turns: Sequence[Sequence[Step | str]]) -> None:
        for turn in turns:
            self.enqueue(*turn)

    @property
    def pending_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    def reset(self) -> None:
        with self._lock:
            self._turns.clear()
            self.requests.clear()

    def start(self) -> FakeLLMServer:
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="fake-llm-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("FakeLLMServer did not start")
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(self._request_stop)
        thread.join(10)
        self._thread = None
        self._loop = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- the loop thread ------------------------------------------------------------------------

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        finally:
            loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopping.wait()
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    def _request_stop(self) -> None:
        if self._stopping is not None:
            self._stopping.set()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            request = await self._read_request(reader)
            if request is not None:
                await self._respond(request, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._handlers.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        raw = b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                if size == 0:
                    await reader.readline()
                    break
                raw += await reader.readexactly(size)
                await reader.readline()
        elif headers.get("content-length"):
            raw = await reader.readexactly(int(headers["content-length"]))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        parts = urlsplit(target)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        recorded = RecordedRequest(
            method=method,
            path=parts.path,
            query=query,
            headers=headers,
            body=body,
            raw_body=raw,
            api=_api_for(parts.path, body),
            received_at=time.monotonic(),
        )
        self.requests.append(recorded)
        return recorded

    async def _respond(
        self, request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if request.path == "/health":  # vLLM's liveness route
            await self._send_plain(writer, 200, "")
            return
        if request.api is None:
            await self._send_plain(
                writer, 404, {"error": {"type": "not_found", "message": f"No route {request.path}"}}
            )
            return
        with self._lock:
            turn = self._turns.pop(0) if self._turns else None
        if turn is None and self._responder is not None:
            turn = _Turn([testing.parse_step(s) for s in self._responder(request)])
        if turn is None:
            message = f"FakeLLMServer: no turn queued for {request.method} {request.path}"
            await self._send_plain(writer, 500, {"error": {"type": "fake_server_error", "message": message}})
            return
        first = turn.steps[0] if turn.steps else None
        if isinstance(first, HttpError):
            await self._send_plain(writer, first.status, first.body, first.headers)
            return
        parts = testing.transcript(request.api, turn.steps, model=_model_from(request.path, request.body))
        content_type = (
            b"application/vnd.amazon.eventstream"
            if request.api == "bedrock-converse-stream"
            else b"text/event-stream"
        )
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type + b"\r\ncache-control: no-cache\r\n"
            b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
        )
        await writer.drain()
        for part in parts:
            if isinstance(part, Delay):
                await asyncio.sleep(part.seconds)
            elif isinstance(part, Hang):
                await self._wait_for_disconnect(reader)
                return
            elif isinstance(part, Cut):
                writer.transport.abort()
                return
            else:
                writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _wait_for_disconnect(self, reader: asyncio.StreamReader) -> None:
        assert self._stopping is not None
        stop = asyncio.ensure_future(self._stopping.wait())
        eof = asyncio.ensure_future(reader.read())
        try:
            await asyncio.wait({stop, eof}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            eof.cancel()

    async def _send_plain(
        self, writer: asyncio.StreamWriter, status: int, body: Any, headers: dict[str, str] | None = None
    ) -> None:
        data = (
            body
            if isinstance(body, bytes)
            else (body if isinstance(body, str) else json.dumps(body)).encode()
        )
        kind = "application/json" if data[:1] in (b"{", b"[") else "text/plain"
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}", f"content-type: {kind}"]
        lines.append(f"content-length: {len(data)}")
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        lines.append("connection: close")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        await writer.drain()
