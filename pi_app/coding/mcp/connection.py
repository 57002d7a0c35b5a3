"""One MCP server connection on the official ``mcp`` SDK (issue 22).

``ServerConnection`` owns a runner task in the session's event loop: it opens the transport
(``stdio_client`` or ``streamable_http_client``), enters a ``ClientSession``, initialises, lists the
tools (all pages) and then holds the connection until it is closed or drops. The SDK's context
managers are entered and left in that one task, as anyio requires; tool calls and resource reads
come from other tasks and go through the same ``ClientSession``.

States: ``connecting``, ``connected``, ``failed`` (with ``error``), ``needs-auth`` (an HTTP server
answered 401 and has no stored sign-in), ``disconnected`` (it dropped; the next call reconnects),
``disabled``. A server that fails at start-up is retried in the background with backoff (2 s, then
doubling to 60 s, five times); a dropped one reconnects on its next call.

Stdio children start in their own session (process group; the SDK does that) with their stderr
appended to ``<agent dir>/mcp-stderr/<server>.log`` (the last lines are shown for a failed server).
``kill_all_children`` ends every process group we started (SIGTERM, SIGKILL after a second): pi
calls it at exit, so nothing is left behind even when the loop is gone.

Connecting (initialize, tools/list) may take ``timeout`` but at least 10 s. Calls: no SDK read timeout; our own watchdog fails a call after ``timeout`` seconds without an
answer or a progress notification (progress resets it). Aborting the call (Esc) cancels the SDK
request, which sends ``notifications/cancelled`` to the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.mcp.config import (
    McpServerConfig,
    ResolveError,
    expand_home,
    resolve_args,
    resolve_cwd,
    resolve_env,
    resolve_headers,
)

RETRY_DELAYS_S = (2.0, 4.0, 8.0, 16.0, 60.0)
MIN_CONNECT_TIMEOUT_S = 10.0
STDERR_TAIL_LINES = 20

# Process groups of stdio servers we started (pid == pgid): ended at exit whatever happens.
_children: set[int] = set()
_sdk_import: Any = None  # concurrent.futures.Future of the SDK import in a worker thread


def _import_sdk() -> None:
    import logging

    # the SDK logs failures with tracebacks; pi reports each failure in one line of its own
    sdk_log = logging.getLogger("mcp")
    sdk_log.addHandler(logging.NullHandler())
    sdk_log.propagate = False
    import mcp.client.session
    import mcp.client.stdio
    import mcp.client.streamable_http
    import mcp.shared._httpx_utils  # noqa: F401
    import mcp_types  # noqa: F401


async def ensure_sdk() -> None:
    """Import the SDK (1-2 s of pydantic models) in a worker thread, once: the session's loop,
    and with it the app's first frame and print mode's first request, never waits for it."""
    global _sdk_import
    import sys

    if "mcp.client.streamable_http" in sys.modules and "mcp.shared._httpx_utils" in sys.modules:
        return
    if _sdk_import is None:
        import concurrent.futures
        import threading

        future: concurrent.futures.Future[None] = concurrent.futures.Future()

        def work() -> None:
            try:
                _import_sdk()
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(None)

        threading.Thread(target=work, name="pi-mcp-import", daemon=True).start()
        _sdk_import = future
    await asyncio.wrap_future(_sdk_import)


def _record_spawns() -> None:
    """Wrap the SDK's process spawner once so pi knows the pid of every stdio server."""
    import mcp.client.stdio as stdio

    original = getattr(stdio, "_create_platform_compatible_process", None)
    if original is None or getattr(original, "_pi_records", False):
        return

    async def spawn(*args: Any, **kwargs: Any) -> Any:
        process = await original(*args, **kwargs)
        pid = getattr(process, "pid", None)
        if isinstance(pid, int):
            _children.add(pid)
        return process

    spawn._pi_records = True  # type: ignore[attr-defined]  # marks the wrapper as installed
    stdio._create_platform_compatible_process = spawn


def kill_all_children(grace_s: float = 1.0) -> None:
    """SIGTERM every server process group we started, SIGKILL what is left after ``grace_s``."""
    alive = []
    for pid in list(_children):
        with contextlib.suppress(OSError):
            os.killpg(pid, signals.SIGTERM)
            alive.append(pid)
    deadline = time.monotonic() + grace_s
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _group_alive(pid)]
        if alive:
            time.sleep(0.02)
    for pid in alive:
        with contextlib.suppress(OSError):
            os.killpg(pid, signals.SIGKILL)
    _children.clear()


def _group_alive(pgid: int) -> bool:
    """Does the process group have a member that is not a zombie? (Linux: /proc; else killpg 0.)"""
    proc = Path("/proc")
    if proc.is_dir():
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except OSError:
        return False
    return True


NEEDS_AUTH_TEXT = "sign-in required"


class NeedsAuth(Exception):
    """An HTTP server wants a sign-in nobody is there to give (its text starts with NEEDS_AUTH_TEXT)."""


def _describe(exc: BaseException) -> str:
    """One line for a connection failure (exception groups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) and not str(exc):
        return "timed out waiting for the server (initialize)"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if name in ("ConnectError", "ConnectTimeout"):
        return f"cannot connect: {text or name}"
    return text or name


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    return next((e for e in _chain(exc) if isinstance(e, kind)), None)


def _transient(exc: BaseException) -> bool:
    status = _find_status(exc)
    if status is not None:
        return status in (408, 429) or status >= 500
    return any(
        type(e).__name__ in ("ConnectError", "ReadError", "RemoteProtocolError", "ReadTimeout")
        for e in _chain(exc)
    )


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    stack = [exc]
    while stack and len(out) < 50:
        current = stack.pop()
        out.append(current)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None and linked not in out:
                stack.append(linked)
    return out


def _find_status(exc: BaseException) -> int | None:
    """The HTTP status of the first failed response in the exception's chain, if any."""
    for current in _chain(exc):
        status = getattr(getattr(current, "response", None), "status_code", None)
        if isinstance(status, int):
            return status
    return None


class ServerConnection:
    def __init__(
        self,
        config: McpServerConfig,
        *,
        session_cwd: str,
        agent_dir: Path,
        on_change: Callable[[ServerConnection], None],
        on_log: Callable[[str, str, str | None, Any], None] | None = None,
        auth_factory: Callable[[McpServerConfig], Any] | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.session_cwd = session_cwd
        self.agent_dir = agent_dir
        self._on_change = on_change
        self._on_log = on_log
        self._auth_factory = auth_factory
        self.state = "disabled" if not config.enabled else "connecting"
        self.error: str | None = None
        self.tools: list[Any] = []
        self.instructions: str | None = None
        self.server_info: str | None = None
        self.has_resources = False
        self.session: Any = None
        self._runner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._retry_task: asyncio.Task[None] | None = None
        self._attempt = 0
        self._refresh_tried = False
        self.closed = False

    # -- lifecycle ----------------------------------------------------------------------------------

    @property
    def stderr_path(self) -> Path:
        return self.agent_dir / "mcp-stderr" / f"{self.name}.log"

    def stderr_tail(self) -> list[str]:
        try:
            lines = self.stderr_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        return lines[-STDERR_TAIL_LINES:]

    def start(self) -> None:
        """Connect in the background (returns at once)."""
        if self.closed or not self.config.enabled:
            return
        if self._runner is not None and not self._runner.done():
            return
        self.state, self.error = "connecting", None
        if self._ready.is_set():  # a restart keeps the event whoever waits already holds
            self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._runner = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")
        self._changed()

    async def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until this attempt connected or failed; True when connected."""
        if self.state not in ("connecting",):
            return self.state == "connected"
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._ready.wait()), timeout)
        return self.state == "connected"

    async def ensure_connected(self) -> Any:
        """The live ``ClientSession``; reconnects a dropped or failed server first."""
        if self.state == "connected" and self.session is not None:
            return self.session
        if self.state in ("disconnected", "failed") or self._runner is None or self._runner.done():
            if self._retry_task is not None:
                self._retry_task.cancel()
            self.start()
        await self.wait_ready(self.config.timeout_s + 5)
        if self.state != "connected" or self.session is None:
            raise RuntimeError(
                f'MCP server "{self.name}" is {self.state}' + (f": {self.error}" if self.error else "")
            )
        return self.session

    async def close(self) -> None:
        await self._stop_runner(3.0)

    async def reconnect(self) -> None:
        await self._stop_runner(5.0)
        self.closed = False
        self._attempt = 0
        self.start()

    async def _stop_runner(self, grace_s: float) -> None:
        """End the connection (the SDK closes stdin, then signals the process group)."""
        self.closed = True
        if self._retry_task is not None:
            self._retry_task.cancel()
        self._stop.set()
        runner = self._runner
        if runner is not None and not runner.done():
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(runner), grace_s)
            if not runner.done():
                runner.cancel()
        self.session = None

    def _changed(self) -> None:
        with contextlib.suppress(Exception):
            self._on_change(self)

    async def _run(self) -> None:
        try:
            await self._connect_and_hold()
        except asyncio.CancelledError:  # pi is ending (or the runner was replaced): nothing to report
            self.closed = True
            if self.state == "connecting":
                self.state, self.error = "failed", "cancelled"
            raise
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            needs_auth = _find(exc, NeedsAuth)
            described = _describe(exc)
            if needs_auth is not None or described.startswith(NEEDS_AUTH_TEXT):
                self.state, self.error = "needs-auth", str(needs_auth or described)
            elif _find_status(exc) == 401:
                self.state = "needs-auth"
                self.error = f'{NEEDS_AUTH_TEXT}: run "pi mcp login {self.name}" or /mcp login {self.name}'
            elif self.state == "connected":
                self.state, self.error = "disconnected", _describe(exc)
            else:
                self.state, self.error = "failed", _describe(exc)
        finally:
            self.session = None
            if self.state == "connected":
                self.state = "disconnected" if not self.closed else "connected"
            retry_with_refresh = self._refresh_instead_of_sign_in()
            if not retry_with_refresh:
                self._ready.set()
                if not self.closed:
                    self._changed()
        if retry_with_refresh:
            asyncio.get_running_loop().call_soon(self._restart)
        elif self.state == "failed" and not self.closed:
            self._schedule_retry()

    def _refresh_instead_of_sign_in(self) -> bool:
        """The server rejected an access token pi thought valid (revoked, or the clock is off):
        refresh it once before asking for a sign-in, when a refresh token is stored."""
        if (
            self.state != "needs-auth"
            or self._refresh_tried
            or self.closed
            or self.config.transport != "http"
        ):
            return False
        from pi_app.coding.mcp.oauth import expire_stored_token

        if not expire_stored_token(self.config, self.agent_dir):
            return False
        self._refresh_tried = True
        self.state, self.error = "connecting", None
        return True

    def _restart(self) -> None:
        self._runner = None
        self.start()

    def _schedule_retry(self) -> None:
        if self._attempt >= len(RETRY_DELAYS_S):
            return
        delay = RETRY_DELAYS_S[self._attempt]
        self._attempt += 1

        async def later() -> None:
            await asyncio.sleep(delay)
            if not self.closed and self.state == "failed":
                self.start()

        self._retry_task = asyncio.get_running_loop().create_task(later())

    async def _connect_and_hold(self) -> None:
        await ensure_sdk()
        from mcp.client.session import ClientSession
        from mcp_types import Implementation

        from pi_app import __version__

        config = self.config
        async with contextlib.AsyncExitStack() as stack:
            try:
                read, write = await self._open_transport(stack)
            except ResolveError as exc:
                raise RuntimeError(str(exc)) from None
            session = ClientSession(
                read,
                write,
                list_roots_callback=self._roots,
                logging_callback=self._logging,
                message_handler=self._message,
                client_info=Implementation(name="pi", version=__version__),
            )
            await stack.enter_async_context(session)
            # a short per-request timeout must not fail a server that is slow to start (npx, node)
            connect_s = max(config.timeout_s, MIN_CONNECT_TIMEOUT_S)
            init = await asyncio.wait_for(session.initialize(), connect_s)
            self.instructions = (init.instructions or "").strip() or None
            info = init.server_info
            self.server_info = f"{info.name} {info.version}".strip() if info is not None else None
            capabilities = init.capabilities
            self.has_resources = capabilities is not None and capabilities.resources is not None
            self.tools = await asyncio.wait_for(self._list_tools(session), connect_s)
            self.session = session
            self.state, self.error = "connected", None
            self._attempt = 0
            self._refresh_tried = False
            self._ready.set()
            self._changed()
            await self._stop.wait()

    async def _open_transport(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        config = self.config
        if config.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            _record_spawns()
            env = {**os.environ, **resolve_env(config)}
            params = StdioServerParameters(
                command=expand_home(config.command or ""),
                args=resolve_args(config),
                env=env,
                cwd=resolve_cwd(config, self.session_cwd),
            )
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            errlog = stack.enter_context(open(self.stderr_path, "w", encoding="utf-8", errors="replace"))
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            return read, write
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = resolve_headers(config)
        auth = None
        if self._auth_factory is not None and not any(k.lower() == "authorization" for k in headers):
            auth = self._auth_factory(config)
        client = create_mcp_http_client(headers=headers, auth=auth)
        await stack.enter_async_context(client)
        read, write = await stack.enter_async_context(
            streamable_http_client(config.url or "", http_client=client)
        )
        return read, write

    async def _list_tools(self, session: Any) -> list[Any]:
        from mcp_types import PaginatedRequestParams

        tools: list[Any] = []
        cursor = None
        while True:
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                return tools

    async def _roots(self, context: Any) -> Any:
        """The session's folder as the one root (servers such as filesystem ask for it)."""
        from mcp_types import ListRootsResult, Root
        from pydantic import FileUrl

        folder = Path(self.session_cwd)
        return ListRootsResult(roots=[Root(uri=FileUrl(folder.resolve().as_uri()), name=folder.name)])

    async def _logging(self, params: Any) -> None:
        if self._on_log is not None:
            self._on_log(self.name, str(params.level), params.logger, params.data)

    async def _message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed" and self.session is not None:
            session = self.session

            async def refresh() -> None:
                with contextlib.suppress(Exception):
                    self.tools = await self._list_tools(session)
                    self._changed()

            asyncio.get_running_loop().create_task(refresh())

    # -- calls ------------------------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        on_progress: Callable[[float, float | None, str | None], None] | None = None,
        signal: AbortSignal | None = None,
    ) -> Any:
        session = await self.ensure_connected()
        return await self._bounded(
            lambda progress: session.call_tool(tool, arguments, progress_callback=progress),
            on_progress,
            signal,
            f'MCP server "{self.name}" tool "{tool}"',
        )

    async def request(
        self, make: Callable[[Any], Awaitable[Any]], what: str, signal: AbortSignal | None = None
    ) -> Any:
        """A read (resources): retried once after a transient HTTP failure (408, 429, 5xx or a
        network error), as 1.6.0; tool calls are never retried (the server may have acted)."""
        for attempt in (1, 2):
            session = await self.ensure_connected()
            try:

                async def start(_progress: Any, s: Any = session) -> Any:
                    return await make(s)

                return await self._bounded(start, None, signal, what)
            except Exception as exc:
                if attempt == 2 or not _transient(exc) or (signal is not None and signal.aborted):
                    raise
        raise AssertionError("unreachable")

    async def _bounded(
        self,
        start: Callable[[Any], Coroutine[Any, Any, Any]],
        on_progress: Callable[[float, float | None, str | None], None] | None,
        signal: AbortSignal | None,
        what: str,
    ) -> Any:
        loop = asyncio.get_running_loop()
        last = [loop.time()]

        async def progress(value: float, total: float | None, message: str | None) -> None:
            last[0] = loop.time()
            if on_progress is not None:
                on_progress(value, total, message)

        task = loop.create_task(start(progress))
        remove = signal.add_listener(task.cancel) if signal is not None else None
        try:
            while not task.done():
                remaining = last[0] + self.config.timeout_s - loop.time()
                if remaining <= 0:
                    task.cancel()
                    with contextlib.suppress(BaseException):
                        await task
                    raise TimeoutError(f"{what} timed out after {self.config.timeout_s:g} s")
                await asyncio.wait({task}, timeout=remaining)
            if task.cancelled():
                raise RuntimeError(f"{what} was cancelled")
            exc = task.exception()
            if exc is not None:
                if self._looks_closed(exc):
                    self.state, self.error = "disconnected", _describe(exc)
                    self._stop.set()
                    self._changed()
                    raise RuntimeError(f'MCP server "{self.name}" disconnected: {_describe(exc)}') from None
                raise exc
            return task.result()
        finally:
            if remove is not None:
                remove()
            if not task.done():
                task.cancel()

    def _looks_closed(self, exc: BaseException) -> bool:
        import anyio

        text = str(exc).lower()
        return isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)) or (
            "connection closed" in text or "closed" in text and "connection" in text
        )
