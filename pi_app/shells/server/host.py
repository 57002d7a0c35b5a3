"""One hosted session: its ``pi --mode rpc`` child, its event log and its lifecycle (issue 24).

The child is the unit of isolation: a crash, a runaway tool or a leak takes down one session, never
the server. ``SessionHost`` starts the child lazily and on demand:

- **first start** with the arguments the session was opened with (``--session <file>``, or none for
  a new session), then ``get_state`` learns the session id and file;
- **after a crash** (the child exited without being asked) the host logs ``child_exited`` and keeps
  the record; the next request starts a new child with ``--session <file>``, so the session goes on
  with its history from the same JSONL file;
- **when idle** (no request, no run, no open dialog for ``idle_timeout`` seconds) the supervisor calls
  ``stop_child``; the next request starts it again the same way.

Every line the child writes that is not a response is appended to the host's ``EventLog`` unchanged.
Three lines of the server's own join them: ``child_started`` (``restart`` says whether an earlier
child of the session ran before), ``child_exited`` (with ``exitCode``, after an unexpected exit) and
``child_stopped`` (idle stop or close). After a command that can change which session the child has
(``new_session``, ``switch_session``, ``fork``, ``clone``, ``prompt``, ``set_session_name``) the host
asks ``get_state`` again, so a restart reopens the file the child had last.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_app.modes.rpc_client import RpcClient, RpcError
from pi_app.shells.server.event_log import EventLog, JsonObject

ChildStatus = Literal["starting", "running", "stopped", "exited"]
IDENTITY_COMMANDS = frozenset(
    {"new_session", "switch_session", "fork", "clone", "set_session_name", "prompt"}
)
DIALOG_METHODS = frozenset({"select", "confirm", "input", "editor"})
REQUEST_TIMEOUT = 600.0  # seconds for one RPC command (``compact`` and ``bash`` can take long)


class ChildFailed(RuntimeError):
    """The session's child could not start, or went away before it answered."""


@dataclass
class ChildSpec:
    """How children are spawned: ``command`` + ``--mode rpc`` + ``args`` + per-session arguments."""

    command: Sequence[str] = field(default_factory=lambda: (sys.executable, "-m", "pi_app"))
    args: Sequence[str] = ()
    env: dict[str, str] | None = None


class SessionHost:
    def __init__(
        self,
        cwd: str,
        spec: ChildSpec,
        *,
        session_file: str | None = None,
        log: EventLog | None = None,
    ) -> None:
        self.cwd = cwd
        self.spec = spec
        self.session_file = session_file
        self.session_id: str | None = None
        self.key: str = ""  # the id the supervisor files this host under (set after the first start)
        self.status: ChildStatus = "stopped"
        self.log = log or EventLog()
        self.busy = False
        self.starts = 0
        self.last_exit_code: int | None = None
        self.last_activity = time.monotonic()
        self.open_dialogs: set[str] = set()
        self._client: RpcClient | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._stopping = False

    # -- what the API shows -------------------------------------------------------------------------

    def describe(self) -> JsonObject:
        return {
            "id": self.key,
            "sessionId": self.session_id,
            "sessionFile": self.session_file,
            "cwd": self.cwd,
            "status": self.status,
            "busy": self.busy,
            "pid": self.pid,
            "starts": self.starts,
            "lastExitCode": self.last_exit_code,
            "lastEventId": self.log.last_id,
        }

    @property
    def pid(self) -> int | None:
        client = self._client
        return client.process.pid if client and client.process and self.status == "running" else None

    def idle_for(self) -> float:
        return time.monotonic() - self.last_activity

    # -- the child ------------------------------------------------------------------------------------

    async def ensure_child(self) -> RpcClient:
        async with self._lock:
            client = self._client
            if client is not None and self.status == "running":
                return client
            return await self._start()

    async def _start(self) -> RpcClient:
        args = list(self.spec.args)
        if self.session_file:
            args += ["--session", self.session_file]
        client = RpcClient(args, cwd=self.cwd, env=self.spec.env, command=list(self.spec.command))
        client.on_event(self._on_line)
        self.status = "starting"
        try:
            await client.start()
            state = await client.call("get_state", timeout=120)
        except (RpcError, OSError) as exc:
            await client.stop()
            self.status = "exited"
            raise ChildFailed(f"could not start pi --mode rpc in {self.cwd}: {exc}") from exc
        self._client = client
        self._stopping = False
        self._remember_state(state)
        self.starts += 1
        self.status = "running"
        self.busy = bool(state.get("isStreaming"))
        self.touch()
        assert client.process is not None
        self.log.append({"type": "child_started", "pid": client.process.pid, "restart": self.starts > 1})
        self._watcher = asyncio.ensure_future(self._watch(client))
        return client

    async def _watch(self, client: RpcClient) -> None:
        assert client.process is not None
        code = await client.process.wait()
        if client is not self._client:
            return
        self.busy = False
        self.open_dialogs.clear()
        self.last_exit_code = code
        if self._stopping:
            return  # stop_child logs child_stopped itself
        self.status = "exited"
        self.log.append({"type": "child_exited", "exitCode": code, "stderr": client.stderr_tail()[-2000:]})

    async def stop_child(self, reason: str) -> None:
        """Stop the child (SIGTERM, then SIGKILL); the record and its log stay."""
        async with self._lock:
            client = self._client
            if client is None or self.status != "running":
                return
            self._stopping = True
            code = await client.stop()
            self.status = "stopped"
            self.busy = False
            self.last_exit_code = code
            self.log.append({"type": "child_stopped", "reason": reason, "exitCode": code})

    def _remember_state(self, state: JsonObject) -> None:
        if isinstance(state.get("sessionId"), str):
            self.session_id = state["sessionId"]
        file = state.get("sessionFile")
        if isinstance(file, str) and file:
            self.session_file = os.path.abspath(file)

    def _on_line(self, line: JsonObject) -> None:
        kind = line.get("type")
        if kind == "response":
            return  # the answer to a request that timed out: not an event
        if kind == "agent_start":
            self.busy = True
        elif kind == "agent_settled":  # agent_end may be followed by a retry or queued work
            self.busy = False
        elif kind == "extension_ui_request" and line.get("method") in DIALOG_METHODS:
            self.open_dialogs.add(str(line.get("id")))
        self.touch()
        self.log.append(line)

    def touch(self) -> None:
        self.last_activity = time.monotonic()

    # -- commands -------------------------------------------------------------------------------------

    async def request(self, command: JsonObject) -> JsonObject:
        """Send one RPC command (its ``id`` is assigned here) and return the child's response."""
        client = await self.ensure_child()
        self.touch()
        try:
            response = await client.request(command, REQUEST_TIMEOUT)
        except RpcError as exc:
            raise ChildFailed(str(exc)) from exc
        finally:
            self.touch()
        response.pop("id", None)
        if command.get("type") in IDENTITY_COMMANDS and response.get("success"):
            try:
                self._remember_state(await client.call("get_state", timeout=60))
            except RpcError:
                pass  # the child went away; the watcher has logged it and the next request restarts it
        return response

    async def answer_dialog(self, answer: JsonObject) -> None:
        """Forward an ``extension_ui_response`` to the child (it carries the request's ``id``)."""
        client = await self.ensure_child()
        self.open_dialogs.discard(str(answer.get("id")))
        self.touch()
        try:
            await client.send_raw(_encode({**answer, "type": "extension_ui_response"}))
        except (RpcError, OSError, AssertionError) as exc:
            raise ChildFailed(str(exc)) from exc


def _encode(message: JsonObject) -> str:
    return json.dumps(message, ensure_ascii=False)
