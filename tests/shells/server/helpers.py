"""The real ``pi serve`` for tests: a subprocess on a free loopback port, driven with httpx (issue 24).

``ServeProcess`` starts the installed ``pi serve --port 0`` in a ``PiHome`` whose ``models.json``
points at the loopback ``FakeLLMServer``, reads the address from its first line and the token from
the agent dir. ``SseReader`` follows one session's event stream in a background task and keeps
every ``(id, event)`` it reads. ``echo_responder`` answers each LLM request from what the session
sent, so concurrent sessions get answers of their own: ``echo: <last user text>``; a user text that
starts with ``tool:`` gets a ``bash`` call running the rest, then ``done: <tool output>``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from pi_app.ai.testing import Step, text, tool_call
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest
from tests.reliability.helpers import PiHome

Event = dict[str, Any]


def _last_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def echo_responder(request: RecordedRequest) -> Sequence[Step | str]:
    messages = (request.body or {}).get("messages") or []
    last = messages[-1] if messages else {}
    said = _last_text(last)
    if last.get("role") == "tool":
        return [text(f"done: {said.strip()}")]
    if said.startswith("tool:"):
        return [text("Running it."), tool_call("bash", {"command": said[5:].strip()})]
    if said.startswith("slow:"):
        from pi_app.ai.testing import delay

        return [text("Thinking about it"), delay(float(said[5:].split()[0])), text(" for long.")]
    return [text(f"echo: {said}")]


@dataclass
class ServeProcess:
    home: PiHome
    llm: FakeLLMServer
    args: Sequence[str] = ()
    process: subprocess.Popen[str] | None = None
    url: str = ""
    first_lines: list[str] = field(default_factory=list)

    def start(self, timeout: float = 30) -> ServeProcess:
        self.home.point_at(self.llm.base_url)
        self.process = subprocess.Popen(
            [PI, "serve", "--port", "0", *self.args],
            cwd=self.home.project,
            env=self.home.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(
                    f"pi serve ended: {self.process.stderr.read() if self.process.stderr else ''}"
                )
            self.first_lines.append(line.rstrip("\n"))
            if line.startswith("Token"):
                break
        match = re.search(r"listening on (http://\S+)", self.first_lines[0])
        assert match, self.first_lines
        self.url = match.group(1)
        return self

    @property
    def token(self) -> str:
        return (self.home.agent_dir / "serve-token").read_text().strip()

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        headers = {"authorization": f"Bearer {self.token}"}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=60, **kwargs)

    def stop(self) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe:
                pipe.close()
        return self.process.returncode


class SseReader:
    """Reads ``GET /api/sessions/{key}/events`` into ``events`` until stopped."""

    def __init__(self, client: httpx.AsyncClient, key: str, last_event_id: int | None = None) -> None:
        self.client = client
        self.key = key
        self.last_event_id = last_event_id
        self.events: list[tuple[int, Event]] = []
        self.arrived: list[float] = []  # time.monotonic() of each event's arrival
        self.connected = asyncio.Event()
        self._changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> SseReader:
        self.task = asyncio.ensure_future(self._read())
        await asyncio.wait_for(self.connected.wait(), 30)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, httpx.HTTPError):
                pass

    async def _read(self) -> None:
        headers = {} if self.last_event_id is None else {"last-event-id": str(self.last_event_id)}
        async with self.client.stream(
            "GET", f"/api/sessions/{self.key}/events", headers=headers, timeout=None
        ) as response:
            assert response.status_code == 200, await response.aread()
            event_id: int | None = None
            data: list[str] = []
            async for line in response.aiter_lines():
                if line.startswith(": connected"):
                    self.connected.set()
                elif line.startswith("id: "):
                    event_id = int(line[4:])
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif line == "" and data:
                    assert event_id is not None
                    self.events.append((event_id, json.loads("\n".join(data))))
                    self.arrived.append(time.monotonic())
                    event_id, data = None, []
                    self._changed.set()

    def types(self) -> list[str]:
        return [event["type"] for _, event in self.events]

    async def wait_for(self, predicate: Any, timeout: float = 30, after: int = 0) -> Event:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for _, event in self.events[after:]:
                if predicate(event):
                    return event
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"no matching event; saw {self.types()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass

    async def wait_for_type(self, kind: str, count: int = 1, timeout: float = 30) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while self.types().count(kind) < count:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{count}× {kind} not seen; saw {self.types()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), 0.5)
            except TimeoutError:
                pass


def make_server(tmp_path: Path, llm: FakeLLMServer, *args: str) -> ServeProcess:
    llm.respond_with(echo_responder)
    return ServeProcess(PiHome.make(tmp_path), llm, args).start()
