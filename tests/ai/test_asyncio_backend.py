"""The providers' HTTP client on plain asyncio: requests, keep-alive, TLS, proxies, timeouts, errors.

Each test talks to a small loopback server through ``new_http_client``, whose pools connect with
``pi_app.ai.http.asyncio_backend`` instead of anyio; what is checked is what a provider call sees.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from pi_app.ai.http.client import new_http_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def serve(handler: Handler, ssl_context: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    """A loopback server running ``handler`` per connection; yields its port. Connections still
    open at the end are closed."""
    running: set[asyncio.Task[None]] = set()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        running.add(asyncio.current_task())  # type: ignore[arg-type]
        try:
            await handler(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", 0, ssl=ssl_context)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def read_head(reader: asyncio.StreamReader) -> list[str]:
    head = await reader.readuntil(b"\r\n\r\n")
    return head.decode("latin-1").split("\r\n")


def answer(body: bytes, *, close: bool = False) -> bytes:
    connection = b"Connection: close\r\n" if close else b""
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), connection, body)


async def test_requests_on_one_client_share_a_kept_alive_connection() -> None:
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            while True:
                request_line = (await read_head(reader))[0]
                writer.write(answer(request_line.encode()))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async with serve(handler) as port, new_http_client() as client:
        first = await client.get(f"http://127.0.0.1:{port}/one")
        second = await client.post(f"http://127.0.0.1:{port}/two", content=b"x" * 100_000)
    assert (first.text, second.text) == ("GET /one HTTP/1.1", "POST /two HTTP/1.1")
    assert connections == 1


async def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_head(reader)
        writer.write(answer(b"served on connection %d" % connections))  # keep-alive, then hang up
        await writer.drain()
        writer.close()

    async with serve(handler) as port, new_http_client() as client:
        first = await client.get(f"http://127.0.0.1:{port}/")
        await asyncio.sleep(0.1)  # the server's close reaches the idle pooled connection
        second = await client.get(f"http://127.0.0.1:{port}/")
    assert (first.text, second.text) == ("served on connection 1", "served on connection 2")


async def test_a_streamed_body_arrives_piece_by_piece() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        for piece in (b"data: 1\n\n", b"data: 2\n\n"):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.05)
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    async with serve(handler) as port, new_http_client() as client:
        async with client.stream("GET", f"http://127.0.0.1:{port}/") as response:
            pieces = [piece async for piece in response.aiter_raw()]
    assert pieces == [b"data: 1\n\n", b"data: 2\n\n"]


async def test_a_server_that_never_answers_is_a_read_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(10)

    async with serve(handler) as port, new_http_client() as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(f"http://127.0.0.1:{port}/", timeout=0.2)


async def test_nothing_listening_is_a_connect_error() -> None:
    async with serve(lambda reader, writer: asyncio.sleep(0)) as port:
        pass  # the port is free again
    async with new_http_client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")


async def test_a_server_hanging_up_mid_response_is_a_protocol_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
        await writer.drain()
        writer.close()

    async with serve(handler) as port, new_http_client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(f"http://127.0.0.1:{port}/")


async def test_a_cancelled_request_can_be_followed_by_another() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await read_head(reader))[0]
        if "slow" in request_line:
            await asyncio.sleep(10)
        writer.write(answer(b"fast", close=True))
        await writer.drain()
        writer.close()

    async with serve(handler) as port, new_http_client() as client:
        slow = asyncio.ensure_future(client.get(f"http://127.0.0.1:{port}/slow"))
        await asyncio.sleep(0.1)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        response = await asyncio.wait_for(client.get(f"http://127.0.0.1:{port}/fast"), 5)
    assert response.text == "fast"


async def slow_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_head(reader)
    await asyncio.sleep(0.3)
    writer.write(answer(b"slow", close=True))
    await writer.drain()


async def test_a_full_pool_makes_the_next_request_wait_for_a_connection() -> None:
    async with serve(slow_answer) as port, new_http_client(limits=httpx.Limits(max_connections=1)) as client:
        url = f"http://127.0.0.1:{port}/"
        responses = await asyncio.wait_for(asyncio.gather(client.get(url), client.get(url)), 10)
    assert [r.text for r in responses] == ["slow", "slow"]


async def test_waiting_for_a_pooled_connection_past_the_pool_timeout_is_a_pool_timeout() -> None:
    timeout = httpx.Timeout(5.0, pool=0.05)
    limits = httpx.Limits(max_connections=1)
    async with serve(slow_answer) as port, new_http_client(limits=limits, timeout=timeout) as client:
        url = f"http://127.0.0.1:{port}/"
        first = asyncio.ensure_future(client.get(url))
        await asyncio.sleep(0.05)  # the first request holds the only connection
        with pytest.raises(httpx.PoolTimeout):
            await client.get(url)
        assert (await first).text == "slow"


def tls_server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


async def tls_handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request_line = (await read_head(reader))[0]
        writer.write(answer(b"tls " + request_line.encode(), close=True))
        await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def test_tls_with_a_trusted_certificate(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(self_signed[0]))
    async with serve(tls_handler, tls_server_context(*self_signed)) as port, new_http_client() as client:
        async with client.stream("GET", f"https://127.0.0.1:{port}/secure") as response:
            ssl_object = response.extensions["network_stream"].get_extra_info("ssl_object")
            body = await response.aread()
    assert body == b"tls GET /secure HTTP/1.1"
    assert ssl_object.version().startswith("TLS")


async def test_tls_names_the_host_it_verifies(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(self_signed[0]))  # issued for 127.0.0.1, not localhost
    async with serve(tls_handler, tls_server_context(*self_signed)) as port, new_http_client() as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(f"https://localhost:{port}/")


async def test_a_tls_handshake_that_never_comes_is_a_connect_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(10)

    async with serve(silent) as port, new_http_client() as client:
        with pytest.raises(httpx.ConnectTimeout):
            await client.get(f"https://127.0.0.1:{port}/", timeout=0.2)


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


@asynccontextmanager
async def proxy_server(seen: list[str]) -> AsyncIterator[int]:
    """An HTTP proxy: answers plain requests itself, tunnels ``CONNECT`` to the named host."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await read_head(reader))[0]
        seen.append(request_line)
        method, target, _ = request_line.split(" ")
        if method != "CONNECT":
            writer.write(answer(b"proxied " + target.encode(), close=True))
            await writer.drain()
            writer.close()
            return
        host, port = target.rsplit(":", 1)
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    async with serve(handler) as port:
        yield port


def use_proxy(monkeypatch: pytest.MonkeyPatch, port: int) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")


async def test_plain_http_goes_through_the_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []
    async with proxy_server(seen) as proxy_port:
        use_proxy(monkeypatch, proxy_port)
        async with new_http_client() as client:
            response = await client.get("http://llm.example.test/v1/models")
    assert response.text == "proxied http://llm.example.test/v1/models"
    assert seen == ["GET http://llm.example.test/v1/models HTTP/1.1"]


async def test_https_is_tunnelled_through_the_proxy_and_verified(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    monkeypatch.setenv("SSL_CERT_FILE", str(self_signed[0]))
    async with (
        serve(tls_handler, tls_server_context(*self_signed)) as port,
        proxy_server(seen) as proxy_port,
    ):
        use_proxy(monkeypatch, proxy_port)
        async with new_http_client() as client:
            response = await client.get(f"https://127.0.0.1:{port}/through")
    assert response.text == "tls GET /through HTTP/1.1"
    assert seen == [f"CONNECT 127.0.0.1:{port} HTTP/1.1"]
