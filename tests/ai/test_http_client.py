"""The providers' HTTP client: TLS verification as httpx's default, with the trust store read late."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import httpx
import pytest

from pi_app.ai.http.client import DeferredTrustContext, new_http_client
from tests.fakes.llm_server import FakeLLMServer


def test_context_is_configured_like_httpx_default() -> None:
    deferred = DeferredTrustContext()
    default = httpx.create_ssl_context()
    for attribute in ("protocol", "verify_mode", "check_hostname", "options", "verify_flags"):
        assert getattr(deferred, attribute) == getattr(default, attribute), attribute
    assert deferred.minimum_version == default.minimum_version
    assert deferred.get_ca_certs() == default.get_ca_certs()  # looking at the store loads it


async def test_plain_http_never_reads_the_trust_store() -> None:
    with FakeLLMServer() as server:
        context = DeferredTrustContext()
        async with new_http_client(verify=context) as client:
            response = await client.get(server.base_url + "/v1/models")
        assert response.status_code in (200, 404, 500)
        assert not context.trust_loaded


async def _https_get(cert: Path, key: Path, client: httpx.AsyncClient) -> httpx.Response:
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    try:
        async with client:
            return await client.get(f"https://127.0.0.1:{port}/")
    finally:
        server.close()


async def test_an_untrusted_certificate_is_refused(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        await _https_get(*self_signed, new_http_client())


async def test_ssl_cert_file_is_trusted_when_set(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, _ = self_signed
    client = new_http_client()  # the environment counts when the first TLS connection starts
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    response = await _https_get(*self_signed, client)
    assert response.status_code == 200 and response.text == "ok"
