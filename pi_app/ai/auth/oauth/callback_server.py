"""A loopback HTTP server that receives an OAuth redirect (``/callback?code=…&state=…``; R-AI-59).

Only the configured path is served: other paths get 404; ``error=``, a missing code or state, or a
state mismatch get 400 with a short HTML explanation; a good redirect gets 200 and resolves
``wait()`` with the code. A flow without ``state`` (OpenRouter) passes None and relies on a random
path instead. Binding failures are reported to the caller, which then falls back to
the pasted-code prompt alone.
"""

from __future__ import annotations

import asyncio
import html
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from pi_app.ai.auth.types import AuthInteraction

SUCCESS_PAGE = (
    "<html><body><h1>Login complete</h1><p>You can close this window and return to pi.</p></body></html>"
)


class CallbackServer:
    def __init__(self, host: str, port: int, path: str, expected_state: str | None) -> None:
        self.host = host
        self.port = port
        self.path = path
        self.expected_state = expected_state
        self._server: asyncio.base_events.Server | None = None
        self._result: asyncio.Future[str] | None = None
        self.query: dict[str, str] = {}  # the accepted redirect's parameters (e.g. an issued client_id)

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def wait(self) -> str:
        assert self._result is not None
        return await asyncio.shield(self._result)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), 1)
            except TimeoutError:
                pass
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
            status, body = self._answer(target)
            data = body.encode()
            writer.write(
                f"HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {len(data)}\r\n"
                f"connection: close\r\n\r\n".encode()
                + data
            )
            await writer.drain()
        except Exception:
            pass
        finally:
            writer.close()

    def _answer(self, target: str) -> tuple[str, str]:
        parts = urlsplit(target)
        if parts.path != self.path:
            return "404 Not Found", "<html><body>Not found</body></html>"
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if "error" in query:
            detail = html.escape(query.get("error_description") or query["error"])
            return "400 Bad Request", f"<html><body><h1>Login failed</h1><p>{detail}</p></body></html>"
        code, state = query.get("code"), query.get("state")
        if not code or (self.expected_state is not None and not state):
            return (
                "400 Bad Request",
                "<html><body><h1>Login failed</h1><p>Missing code or state.</p></body></html>",
            )
        if self.expected_state is not None and state != self.expected_state:
            return (
                "400 Bad Request",
                "<html><body><h1>Login failed</h1><p>OAuth state mismatch.</p></body></html>",
            )
        if self._result is not None and not self._result.done():
            self.query = query
            self._result.set_result(code)
        return "200 OK", SUCCESS_PAGE


async def receive_authorization_code(
    interaction: AuthInteraction,
    *,
    port: int,
    path: str,
    state: str | None,
    authorize_url: Callable[[str], str],
    paste_message: str,
) -> tuple[str, str]:
    """Run the browser half of a PKCE login; returns ``(code, redirect_uri)``.

    Starts the loopback server (host ``PI_OAUTH_CALLBACK_HOST``, default 127.0.0.1; if the port is
    busy only the paste prompt remains), announces ``authorize_url(redirect_uri)`` with an
    ``auth_url`` event and races the redirect against a ``manual_code`` prompt.
    """
    from pi_app.ai.auth.oauth.common import first_code, parse_manual_input

    server = CallbackServer(os.environ.get("PI_OAUTH_CALLBACK_HOST") or "127.0.0.1", port, path, state)
    sources: list[Callable[[], Awaitable[str]]] = []
    try:
        await server.start()
        sources.append(server.wait)
    except OSError:
        pass
    redirect_uri = f"http://localhost:{server.port}{path}"
    try:
        interaction.notify({"type": "auth_url", "url": authorize_url(redirect_uri)})

        async def manual() -> str:
            return await interaction.prompt({"type": "manual_code", "message": paste_message})

        sources.append(manual)
        raw = await first_code(sources)
    finally:
        await server.close()
    return parse_manual_input(raw, state), redirect_uri
