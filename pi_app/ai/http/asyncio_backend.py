"""httpcore on plain asyncio: a network backend over asyncio streams, and asyncio's own locks.

Under asyncio httpcore reaches for anyio twice: its automatic network backend connects through
``anyio.connect_tcp`` and wraps TLS in anyio's ``TLSStream``, and its connection-pool primitives
(``AsyncLock``, ``AsyncEvent``, ``AsyncSemaphore``, ``AsyncShieldCancellation``) are anyio's. Loading
anyio and its asyncio backend is a large share of ``pi -p``'s start-up, for nothing pi needs: pi is
asyncio all the way down.

``AsyncioBackend`` is an ``httpcore.AsyncNetworkBackend`` over ``asyncio.open_connection`` (happy
eyeballs as anyio's ``connect_tcp``), ``StreamWriter.start_tls`` and ``asyncio.timeout``, raising
httpcore's own exceptions exactly where the anyio backend does (``ConnectTimeout``,
``ConnectError``, ``ReadTimeout``, ``ReadError``, ``WriteTimeout``, ``WriteError``), so httpx's
error texts and pi's retry rules see the same failures. ``use_asyncio_backend`` puts it into a
client's connection pools (the direct one and those httpx mounts for proxies from the environment),
and points httpcore's pool primitives at ``ASYNCIO_PRIMITIVES``: ``asyncio.Lock``, ``Event``,
``BoundedSemaphore`` and a plain-``with`` timeout in place of anyio's.

Decisions: anyio's ``CancelScope(shield=True)`` (httpcore's "close this connection even while being
cancelled") becomes a no-op. A shield only holds back anyio's own cancel scopes; asyncio's task
cancellation, the only kind pi uses (abort, timeouts), goes through it under anyio as well. The
swap is made only for the httpcore 1.0 layout this was written against; with any other the
clients keep httpcore's defaults (anyio), so an httpcore upgrade costs start-up time, never
behaviour.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Coroutine, Iterable
from types import SimpleNamespace
from typing import Any

import httpcore
import httpx

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]

HAPPY_EYEBALLS_DELAY_S = 0.25  # anyio's connect_tcp tries the next address after 250 ms


# httpcore's names for what asyncio's transports report
_TRANSPORT_INFO = {
    "ssl_object": "ssl_object",
    "client_addr": "sockname",
    "server_addr": "peername",
    "socket": "socket",
}


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection as an asyncio reader/writer pair; TLS is started on it in place."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(exc) from exc
        except OSError as exc:
            raise httpcore.ReadError(exc) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            async with asyncio.timeout(timeout):
                self._writer.write(buffer)
                await self._writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(exc) from exc
        except (OSError, RuntimeError) as exc:  # RuntimeError: the transport is already closed
            raise httpcore.WriteError(exc) from exc

    async def aclose(self) -> None:
        # As anyio's streams: close, give the transport one turn of the loop to flush (TLS: to send
        # its close_notify), then drop the connection rather than wait for the peer's answer.
        self._writer.close()
        try:
            await asyncio.sleep(0)
        finally:
            self._writer.transport.abort()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as exc:
            await self.aclose()
            raise httpcore.ConnectTimeout(exc) from exc
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            await self.aclose()
            raise httpcore.ConnectError(exc) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        if info in _TRANSPORT_INFO:
            try:
                return self._writer.get_extra_info(_TRANSPORT_INFO[info])
            except AttributeError:  # asyncio's TLS transport once closed
                return None
        if info == "is_readable":
            # An idle pooled connection that is readable was closed (or spoke out of turn) by the
            # server; asyncio reads the socket as data arrives, so look at what it has received.
            return (
                self._reader.at_eof()
                or self._writer.is_closing()
                or bool(getattr(self._reader, "_buffer", b""))
            )
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connections for httpcore made with asyncio itself (see the module docstring)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        local_addr = (local_address, 0) if local_address else None
        opening = asyncio.open_connection(
            host, port, local_addr=local_addr, happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY_S
        )
        return await _connect(opening, timeout, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore.AsyncNetworkStream:
        return await _connect(asyncio.open_unix_connection(path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(
    opening: Coroutine[Any, Any, tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    timeout: float | None,
    socket_options: Iterable[SocketOption] | None,
) -> AsyncioStream:
    """Await ``opening`` within ``timeout``, as httpcore's errors; then apply ``socket_options``."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await opening
    except TimeoutError as exc:
        raise httpcore.ConnectTimeout(exc) from exc
    except OSError as exc:
        raise httpcore.ConnectError(exc) from exc
    sock: socket.socket | None = writer.get_extra_info("socket")
    for option in socket_options or ():
        if sock is not None:
            sock.setsockopt(*option)
    return AsyncioStream(reader, writer)


class _NoShield:
    """anyio's ``CancelScope(shield=True)`` as used by httpcore; see the module docstring."""

    def __init__(self, shield: bool = False) -> None:
        self.shield = shield

    def __enter__(self) -> _NoShield:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


class _FailAfter:
    """anyio's ``fail_after`` as httpcore uses it, a plain ``with`` around an await: the task is
    cancelled once ``delay`` seconds pass and the block raises ``TimeoutError`` (the bookkeeping of
    Python 3.11's ``asyncio.timeout``, which is an ``async with`` and so cannot stand in)."""

    def __init__(self, delay: float | None) -> None:
        self._delay = delay
        self._task: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._expired = False

    def __enter__(self) -> _FailAfter:
        if self._delay is not None:
            self._task = asyncio.current_task()
            self._handle = asyncio.get_running_loop().call_later(max(self._delay, 0), self._expire)
        return self

    def _expire(self) -> None:
        self._expired = True
        if self._task is not None:
            self._task.cancel()

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        if self._handle is not None:
            self._handle.cancel()
        if self._expired and self._task is not None:
            if self._task.uncancel() == 0 and exc_type is asyncio.CancelledError:
                raise TimeoutError


def _semaphore(initial_value: int, max_value: int | None = None) -> asyncio.BoundedSemaphore:
    return asyncio.BoundedSemaphore(initial_value)


# The names httpcore's pool primitives take from anyio, with asyncio's equivalents.
ASYNCIO_PRIMITIVES = SimpleNamespace(
    Lock=asyncio.Lock,
    Event=asyncio.Event,
    Semaphore=_semaphore,
    fail_after=_FailAfter,
    CancelScope=_NoShield,
)


def _httpcore_layout_known() -> bool:
    """True for the httpcore 1.0 internals this module plugs into."""
    from httpcore import _synchronization

    return httpcore.__version__.startswith("1.0.") and hasattr(_synchronization, "anyio")


def use_asyncio_backend(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """Make ``client``'s connection pools run on asyncio without anyio; returns ``client``."""
    if not _httpcore_layout_known():
        return client
    from httpcore import _synchronization
    from httpcore._backends.auto import AutoBackend

    _synchronization.anyio = ASYNCIO_PRIMITIVES  # type: ignore[assignment]  # anyio's names, asyncio's objects
    for transport in (client._transport, *client._mounts.values()):
        pool = getattr(transport, "_pool", None)
        if isinstance(getattr(pool, "_network_backend", None), AutoBackend):
            pool._network_backend = AsyncioBackend()  # type: ignore[union-attr]  # a pool: checked above
    return client
