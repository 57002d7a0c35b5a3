"""A local fake Slack for the mom tests: the Web API over HTTP and a Socket Mode WebSocket.

``FakeSlack`` runs its own asyncio loop in a thread (like ``tests/fakes/llm_server.py``). It
answers the Web API methods mom uses (``auth.test``, ``apps.connections.open``, ``chat.*``,
``users.info``, ``conversations.info``, the three-step file upload of ``files_upload_v2``) at
``<base_url><method>``, keeps the channel's messages (posted, edited, deleted) in order, serves
files for download at ``/files/<name>`` (bearer token checked), and speaks the Socket Mode
protocol over a hand-written RFC 6455 WebSocket: ``hello`` on connect, ``events_api`` envelopes
pushed by ``send_event``, acks recorded, pings answered. ``fail(method)`` makes the next call of
a method answer ``{"ok": false, "error": "internal_error"}`` as Slack does (``after=n``: the
(n+1)-th call).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
BOT_USER = "UMOM"
BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-test"


@dataclass
class Message:
    channel: str
    ts: str
    text: str
    thread_ts: str | None
    deleted: bool = False
    edits: list[str] = field(default_factory=list)


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    ok: bool


class FakeSlack:
    def __init__(self) -> None:
        self.port = 0
        self.calls: list[Call] = []
        self.messages: list[Message] = []
        self.acks: list[str] = []
        self.uploads: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.users = {"U1": "alice", "U2": "bob"}
        self._failures: dict[str, int] = {}  # method -> successful calls left before the failing one
        self._lock = threading.Lock()
        self._ts = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._sockets: list[asyncio.StreamWriter] = []
        self._connected = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._envelopes = itertools.count(1)

    # -- test API -----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def fail(self, method: str, *, after: int = 0) -> None:
        """Make one call of ``method`` fail: the one after the next ``after`` successful ones."""
        with self._lock:
            self._failures[method] = after

    def next_ts(self) -> str:
        return f"{int(time.time())}.{next(self._ts):06d}"

    def send_event(self, event: dict[str, Any]) -> str:
        """Push one Events API event over Socket Mode; returns its envelope id."""
        if not self._connected.wait(20):
            raise RuntimeError("mom never opened the Socket Mode connection")
        envelope_id = f"env-{next(self._envelopes)}"
        payload = {
            "token": "t",
            "team_id": "T1",
            "api_app_id": "A1",
            "event": {"event_ts": event.get("ts", "0"), **event},
            "type": "event_callback",
            "event_id": f"Ev{envelope_id}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T1", "user_id": BOT_USER, "is_bot": True}],
        }
        frame = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "payload": payload,
            "accepts_response_payload": False,
        }
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(self._broadcast(json.dumps(frame)), self._loop).result(5)
        return envelope_id

    def mention(
        self,
        text: str,
        *,
        channel: str = "C1",
        user: str = "U1",
        thread_ts: str | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> str:
        ts = self.next_ts()
        event: dict[str, Any] = {
            "type": "app_mention",
            "user": user,
            "text": f"<@{BOT_USER}> {text}",
            "ts": ts,
            "channel": channel,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        if files:
            event["files"] = files
        self.send_event(event)
        return ts

    def channel_messages(self, channel: str = "C1") -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m.channel == channel and not m.deleted]

    def wait_for(self, predicate: Any, timeout: float = 30.0, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.05)
        shown = [(m.ts, m.thread_ts, m.text[:80], m.deleted, len(m.edits)) for m in self.messages]
        raise AssertionError(
            f"timed out waiting for {what}; messages (ts, thread, text, deleted, edits): {shown}"
        )

    def start(self) -> FakeSlack:
        self._thread = threading.Thread(target=self._run, name="fake-slack", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("FakeSlack did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(10)

    # -- the loop -----------------------------------------------------------------------------

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopping.wait()
        for writer in self._sockets:
            writer.close()
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target = lines[0].split(" ")[:2]
                headers = {
                    k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)
                }
                if headers.get("upgrade", "").lower() == "websocket":
                    await self._websocket(reader, writer, headers)
                    return
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                status, kind, data = self._http(method, target, headers, body)
                writer.write(
                    f"HTTP/1.1 {status} OK\r\ncontent-type: {kind}\r\ncontent-length: {len(data)}\r\n\r\n".encode()
                    + data
                )
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def _http(self, method: str, target: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        parts = urlsplit(target)
        if parts.path.startswith("/files/"):
            name = parts.path[len("/files/") :]
            if headers.get("authorization") != f"Bearer {BOT_TOKEN}" or name not in self.files:
                return 404, "text/plain", b"not found"
            return 200, "application/octet-stream", self.files[name]
        if parts.path.startswith("/upload/"):
            with self._lock:
                self.uploads.append({"file_id": parts.path.rsplit("/", 1)[-1], "bytes": body})
            return 200, "text/plain", b"OK - 1"
        params: dict[str, Any] = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if headers.get("content-type", "").startswith("application/json") and body:
            params.update(json.loads(body))
        elif body:
            params.update({k: v[-1] for k, v in parse_qs(body.decode()).items()})
        api_method = parts.path.rsplit("/", 1)[-1]
        reply = self._api(api_method, params)
        return 200, "application/json", json.dumps(reply).encode()

    def _api(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            left = self._failures.get(method)
            failing = left == 0
            if left is not None:
                if failing:
                    del self._failures[method]
                else:
                    self._failures[method] = left - 1
            self.calls.append(Call(method, params, not failing))
        if failing:
            return {"ok": False, "error": "internal_error"}
        if method == "auth.test":
            return {
                "ok": True,
                "user_id": BOT_USER,
                "bot_id": "BMOM",
                "team_id": "T1",
                "user": "mom",
                "team": "Test",
            }
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket=1"}
        if method == "chat.postMessage":
            message = Message(
                str(params.get("channel")),
                self.next_ts(),
                str(params.get("text", "")),
                params.get("thread_ts") or None,
            )
            with self._lock:
                self.messages.append(message)
            return {
                "ok": True,
                "channel": message.channel,
                "ts": message.ts,
                "message": {"text": message.text},
            }
        if method in ("chat.update", "chat.delete"):
            with self._lock:
                found = [
                    m
                    for m in self.messages
                    if m.ts == params.get("ts") and m.channel == params.get("channel")
                ]
                if not found or found[0].deleted:
                    return {"ok": False, "error": "message_not_found"}
                if method == "chat.update":
                    found[0].edits.append(found[0].text)
                    found[0].text = str(params.get("text", ""))
                else:
                    found[0].deleted = True
            return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}
        if method == "users.info":
            user = str(params.get("user"))
            return {"ok": True, "user": {"id": user, "name": self.users.get(user, user), "profile": {}}}
        if method == "conversations.info":
            return {"ok": True, "channel": {"id": params.get("channel"), "name": "general"}}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts)}"
            return {
                "ok": True,
                "upload_url": f"http://127.0.0.1:{self.port}/upload/{file_id}",
                "file_id": file_id,
            }
        if method == "files.completeUploadExternal":
            files = params.get("files")
            parsed = json.loads(files) if isinstance(files, str) else files
            with self._lock:
                self.uploads.append(
                    {
                        "complete": parsed,
                        "channel_id": params.get("channel_id"),
                        "thread_ts": params.get("thread_ts"),
                    }
                )
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title", "")} for f in parsed or []]}
        return {"ok": True}

    # -- WebSocket (RFC 6455, server side) -------------------------------------------------------

    async def _websocket(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, headers: dict[str, str]
    ) -> None:
        accept = base64.b64encode(
            hashlib.sha1((headers["sec-websocket-key"] + WS_GUID).encode()).digest()
        ).decode()
        writer.write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n".encode()
        )
        hello = {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {"host": "fake"},
            "connection_info": {"app_id": "A1"},
        }
        await self._send(writer, 0x1, json.dumps(hello).encode())
        self._sockets.append(writer)
        self._connected.set()
        try:
            while True:
                opcode, payload = await self._read_frame(reader)
                if opcode == 0x8:
                    await self._send(writer, 0x8, payload[:2])
                    return
                if opcode == 0x9:
                    await self._send(writer, 0xA, payload)
                elif opcode == 0x1:
                    message = json.loads(payload)
                    if isinstance(message, dict) and "envelope_id" in message:
                        with self._lock:
                            self.acks.append(message["envelope_id"])
        finally:
            if writer in self._sockets:
                self._sockets.remove(writer)
            if not self._sockets:
                self._connected.clear()

    @staticmethod
    async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
        first, second = await reader.readexactly(2)
        opcode, masked, length = first & 0x0F, second & 0x80, second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        mask = await reader.readexactly(4) if masked else b"\0\0\0\0"
        data = await reader.readexactly(length)
        return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(data))

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, opcode: int, payload: bytes) -> None:
        header = bytes([0x80 | opcode])
        if len(payload) < 126:
            header += bytes([len(payload)])
        elif len(payload) < 65536:
            header += bytes([126]) + struct.pack("!H", len(payload))
        else:
            header += bytes([127]) + struct.pack("!Q", len(payload))
        writer.write(header + payload)
        await writer.drain()

    async def _broadcast(self, text: str) -> None:
        for writer in list(self._sockets):
            await self._send(writer, 0x1, text.encode())
