"""The set of hosted sessions of ``pi serve`` (issue 24).

A session is hosted once however many clients use it: opening a session that is already hosted
(same id or same file) returns the same ``SessionHost``, so every client sees the same events.
Hosts are filed under the session id they had when they were opened; that key stays the session's
address in the API even if a client later moves the child to another session (``new_session``,
``switch_session`` through the generic RPC route).

Ways to open:

- ``create(cwd)``                     a new session in that folder (``pi`` with no session flag);
- ``open(cwd, continue_recent=True)`` the folder's most recent saved session (``pi -c``);
- ``open(session_id=…)``              a saved session by id or unique id prefix, in ``cwd`` or anywhere;
- ``open(session_file=…)``            a session file.

Saved sessions are listed through the SDK's ``SessionManager`` (the JSONL files ``pi`` itself
writes, so nothing is lost when the server is killed). A reaper stops the children of sessions
idle longer than ``idle_timeout`` seconds; their records stay and the next request restarts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TYPE_CHECKING

from pi_app.shells.server.event_log import JsonObject
from pi_app.shells.server.host import ChildSpec, SessionHost

if TYPE_CHECKING:
    from pi_app.coding.session.listing import SessionInfo

DEFAULT_IDLE_TIMEOUT = 900.0


class SessionNotFound(LookupError):
    """No hosted or saved session matches."""


class BadSessionRequest(ValueError):
    """The request names no usable folder or session."""


class Supervisor:
    def __init__(
        self, spec: ChildSpec | None = None, *, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    ) -> None:
        self.spec = spec or ChildSpec()
        self.idle_timeout = idle_timeout
        self.hosts: dict[str, SessionHost] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._opening = asyncio.Lock()

    # -- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        if self.idle_timeout and self._reaper is None:
            self._reaper = asyncio.ensure_future(self._reap_idle())

    async def shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        await asyncio.gather(*(host.stop_child("shutdown") for host in self.hosts.values()))

    async def _reap_idle(self) -> None:
        assert self.idle_timeout
        period = max(0.05, min(self.idle_timeout / 4, 5.0))
        while True:
            await asyncio.sleep(period)
            for host in list(self.hosts.values()):
                if (
                    host.status == "running"
                    and not host.busy
                    and not host.open_dialogs
                    and host.idle_for() >= self.idle_timeout
                ):
                    await host.stop_child("idle")

    # -- finding --------------------------------------------------------------------------------------

    def get(self, key: str) -> SessionHost:
        host = self.hosts.get(key)
        if host is None:
            raise SessionNotFound(f"No open session {key!r}")
        return host

    def _hosted(
        self, *, session_id: str | None = None, session_file: str | None = None
    ) -> SessionHost | None:
        for host in self.hosts.values():
            if session_id and session_id in (host.key, host.session_id):
                return host
            if session_file and host.session_file == session_file:
                return host
        return None

    async def saved_sessions(self, cwd: str | None) -> list[JsonObject]:
        """The saved sessions of ``cwd`` (all projects when ``None``), newest first."""
        infos = await asyncio.to_thread(_list_saved, cwd)
        out = []
        for info in infos:
            hosted = self._hosted(session_file=os.path.abspath(info.path))
            out.append(
                {
                    "sessionId": info.id,
                    "sessionFile": info.path,
                    "cwd": info.cwd,
                    "name": info.name,
                    "modified": info.modified.isoformat(),
                    "messageCount": info.message_count,
                    "firstMessage": info.first_message,
                    "open": hosted.key if hosted else None,
                }
            )
        return out

    # -- opening and closing --------------------------------------------------------------------------

    async def create(self, cwd: str) -> SessionHost:
        return await self._host(SessionHost(_folder(cwd), self.spec))

    async def open(
        self,
        cwd: str | None = None,
        *,
        session_id: str | None = None,
        session_file: str | None = None,
        continue_recent: bool = False,
    ) -> tuple[SessionHost, bool]:
        """The hosted session asked for, and whether it was opened just now."""
        if session_file:
            session_file = os.path.abspath(os.path.expanduser(session_file))
            if not os.path.isfile(session_file):
                raise SessionNotFound(f"No session file {session_file}")
        elif session_id:
            hosted = self._hosted(session_id=session_id)
            if hosted is not None:
                return hosted, False
            session_file, found_cwd = await self._find_by_id(session_id, cwd)
            cwd = cwd or found_cwd
        elif continue_recent:
            saved = await asyncio.to_thread(_list_saved, _folder(cwd))
            if not saved:
                return await self.create(_folder(cwd)), True
            session_file = os.path.abspath(saved[0].path)
        else:
            return await self.create(_folder(cwd)), True
        async with self._opening:
            hosted = self._hosted(session_file=session_file)
            if hosted is not None:
                return hosted, False
            folder = _folder(cwd) if cwd else _session_cwd(session_file)
            return await self._host(SessionHost(folder, self.spec, session_file=session_file)), True

    async def _find_by_id(self, session_id: str, cwd: str | None) -> tuple[str, str]:
        infos = await asyncio.to_thread(_list_saved, _folder(cwd) if cwd else None)
        exact = [i for i in infos if i.id == session_id]
        matches = exact or [i for i in infos if i.id.startswith(session_id)]
        if not matches:
            raise SessionNotFound(f"No saved session with id {session_id!r}")
        if len(matches) > 1:
            raise BadSessionRequest(f"Session id prefix {session_id!r} matches {len(matches)} sessions")
        return os.path.abspath(matches[0].path), matches[0].cwd

    async def _host(self, host: SessionHost) -> SessionHost:
        await host.ensure_child()
        host.key = host.session_id or f"session-{len(self.hosts) + 1}"
        while host.key in self.hosts:  # an in-memory child (``--no-session``) may repeat an id
            host.key += "-1"
        self.hosts[host.key] = host
        return host

    async def close(self, key: str) -> None:
        host = self.get(key)
        await host.stop_child("closed")
        del self.hosts[key]


def _folder(cwd: str | None) -> str:
    if not cwd:
        raise BadSessionRequest("Name the folder: cwd is required")
    folder = os.path.abspath(os.path.expanduser(cwd))
    if not os.path.isdir(folder):
        raise BadSessionRequest(f"Not a folder: {cwd}")
    return folder


def _session_cwd(session_file: str) -> str:
    """The folder a session file was recorded in (its header's ``cwd``), if it still exists."""
    from pi_app.ext import SessionManager

    with contextlib.suppress(Exception):
        cwd = SessionManager.open(session_file).get_cwd()
        if cwd and os.path.isdir(cwd):
            return cwd
    return os.path.dirname(session_file)


def _list_saved(cwd: str | None) -> list[SessionInfo]:
    from pi_app.ext import SessionManager

    infos = SessionManager.list(cwd) if cwd else SessionManager.list_all()
    return sorted(infos, key=lambda info: info.modified, reverse=True)
