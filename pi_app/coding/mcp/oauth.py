"""OAuth sign-in for streamable-HTTP MCP servers (issue 22), on the SDK's ``OAuthClientProvider``.

The SDK does the protocol: protected resource metadata (RFC 9728), authorization server metadata
(RFC 8414, issuer checked), dynamic client registration (RFC 7591), authorization code with PKCE
(S256), token refresh. This module supplies what is pi's:

- storage: ``~/.pi/agent/mcp-auth.json`` beside ``auth.json``, mode 0600, one record per server name
  and URL (``"<name> <url>"``): the registered client, the tokens and when the access token
  expires (so a token that expired while pi was not running is refreshed, not signed in again);
- the browser step: ``pi mcp login <server>`` (and ``/mcp`` sign-in) opens the authorization URL
  with Python's ``webbrowser`` (``$BROWSER`` chooses the program; the URL is also printed for a
  browser on another machine) and waits for the redirect on ``http://127.0.0.1:<port>/callback``
  (``oauth.callbackPort``/``callbackUrl`` when configured, else a free port);
- in a session nobody is asked: a server that needs a new sign-in is in state ``needs-auth`` with
  one line saying how to sign in. Sign-in applies to HTTP servers without an ``Authorization``
  header. ``oauth.clientId``/``clientSecret`` use a registered client instead of registering;
  ``clientName`` is the registered name (default ``pi``); ``scope`` is requested as configured.
  1.6.0's Client ID Metadata Documents on pi.dev are not used (no network but the user's servers):
  pi always registers dynamically when it has no configured client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pi_app.coding.mcp.config import McpServerConfig, resolve_value
from pi_app.coding.mcp.connection import NEEDS_AUTH_TEXT, NeedsAuth

DEFAULT_LOGIN_TIMEOUT_S = 300.0


def auth_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp-auth.json"


def record_key(server: McpServerConfig) -> str:
    return f"{server.name} {server.url}"


class AuthFile:
    """``mcp-auth.json``: read on every access (another pi may have refreshed), written 0600."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def update(self, key: str, change: Callable[[dict[str, Any]], None]) -> None:
        data = self.read()
        record = found if isinstance(found := data.get(key), dict) else {}
        change(record)
        if record:
            data[key] = record
        else:
            data.pop(key, None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2) + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)


class TokenStore:
    """The SDK's ``TokenStorage`` over one record of ``mcp-auth.json``."""

    def __init__(self, file: AuthFile, key: str, redirect_uri: str | None = None) -> None:
        self.file = file
        self.key = key
        self.redirect_uri = redirect_uri

    def _record(self) -> dict[str, Any]:
        record = self.file.read().get(self.key)
        return record if isinstance(record, dict) else {}

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self._record().get("tokens")
        return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: Any) -> None:
        data = tokens.model_dump(mode="json", exclude_none=True)

        def change(record: dict[str, Any]) -> None:
            record["tokens"] = data
            if tokens.expires_in:
                record["expiresAt"] = time.time() + tokens.expires_in
            else:
                record.pop("expiresAt", None)

        self.file.update(self.key, change)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        info = self._record().get("client")
        if not isinstance(info, dict):
            return None
        if self.redirect_uri is not None and self.redirect_uri not in (info.get("redirect_uris") or []):
            return None  # registered for another callback address: register again
        return OAuthClientInformationFull.model_validate(info)

    async def set_client_info(self, client_info: Any) -> None:
        data = client_info.model_dump(mode="json", exclude_none=True)
        self.file.update(self.key, lambda record: record.__setitem__("client", data))

    def expires_at(self) -> float | None:
        value = self._record().get("expiresAt")
        return float(value) if isinstance(value, (int, float)) else None

    def clear(self) -> bool:
        existed = bool(self._record())
        self.file.update(self.key, lambda record: record.clear())
        return existed


def _provider_class() -> Any:
    from mcp.client.auth import OAuthClientProvider

    class Provider(OAuthClientProvider):
        """Knows when a stored access token expires, so an expired one is refreshed first."""

        async def _initialize(self) -> None:
            await super()._initialize()
            storage = self.context.storage
            if isinstance(storage, TokenStore) and self.context.current_tokens is not None:
                self.context.token_expiry_time = storage.expires_at()

    return Provider


def _redirect_uri(server: McpServerConfig, port: int) -> str:
    oauth = server.oauth or {}
    url = oauth.get("callbackUrl")
    if isinstance(url, str) and url:
        parts = urlsplit(url)
        if parts.port is None:
            host = parts.hostname or "127.0.0.1"
            host = f"[{host}]" if ":" in host else host
            return parts._replace(netloc=f"{host}:{port}").geturl()
        return url
    return f"http://127.0.0.1:{port}/callback"


def _client_metadata(server: McpServerConfig, redirect_uri: str) -> Any:
    from mcp.shared.auth import OAuthClientMetadata

    oauth = server.oauth or {}
    secret = oauth.get("clientSecret")
    return OAuthClientMetadata(
        redirect_uris=[redirect_uri],  # type: ignore[list-item]  # pydantic validates it into an AnyUrl
        client_name=str(oauth.get("clientName") or "pi"),
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=oauth.get("scope") if isinstance(oauth.get("scope"), str) else None,
        token_endpoint_auth_method="client_secret_post" if secret else "none",
    )


async def _preregistered(server: McpServerConfig, store: TokenStore, redirect_uri: str) -> None:
    """``oauth.clientId`` (and ``clientSecret``): stored as the client, so nothing registers."""
    from mcp.shared.auth import OAuthClientInformationFull

    oauth = server.oauth or {}
    client_id = oauth.get("clientId")
    if not isinstance(client_id, str) or not client_id:
        return
    secret = oauth.get("clientSecret")
    if isinstance(secret, str):
        secret = resolve_value(server.name, "oauth", "clientSecret", secret)
    info = OAuthClientInformationFull(
        client_id=client_id,
        client_secret=secret or None,
        redirect_uris=[redirect_uri],  # type: ignore[list-item]  # pydantic validates it into an AnyUrl
        token_endpoint_auth_method="client_secret_post" if secret else "none",
    )
    await store.set_client_info(info)


def build_provider(
    server: McpServerConfig,
    agent_dir: Path,
    *,
    port: int,
    redirect_handler: Callable[[str], Any],
    callback_handler: Callable[[], Any],
) -> Any:
    redirect_uri = _redirect_uri(server, port)
    store = TokenStore(AuthFile(auth_path(agent_dir)), record_key(server), redirect_uri)
    provider = _provider_class()(
        server_url=server.url or "",
        client_metadata=_client_metadata(server, redirect_uri),
        storage=store,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    provider._pi_store = store
    return provider


def _no_sign_in(message: str) -> Any:
    """An ``httpx2.Auth`` that turns a 401 into ``NeedsAuth``."""
    import httpx2

    class NoSignIn(httpx2.Auth):
        def auth_flow(self, request: Any) -> Any:
            response = yield request
            if response.status_code == 401:
                raise NeedsAuth(message)

    return NoSignIn()


def auth_factory(agent_dir: Path, *, interactive: bool) -> Callable[[McpServerConfig], Any] | None:
    """For sessions and ``pi mcp list``: a provider that refreshes and reuses stored sign-ins but
    never opens a browser (a new sign-in is ``needs-auth``)."""

    def make(server: McpServerConfig) -> Any:
        if server.oauth is False:
            return None
        stored = TokenStore(AuthFile(auth_path(agent_dir)), record_key(server))
        record = stored._record()
        message = f'{NEEDS_AUTH_TEXT}: run "pi mcp login {server.name}" or /mcp login {server.name}'
        if not isinstance(record.get("tokens"), dict):
            return _no_sign_in(message)  # never signed in: no discovery, no registration, one line
        client = found if isinstance(found := record.get("client"), dict) else {}
        uris = client.get("redirect_uris") or []
        port = urlsplit(uris[0]).port if uris else None

        async def no_browser(url: str) -> None:
            raise NeedsAuth(message)

        async def no_callback() -> Any:
            raise NeedsAuth(message)

        return build_provider(
            server, agent_dir, port=port or 1, redirect_handler=no_browser, callback_handler=no_callback
        )

    return make


# -- the browser step ---------------------------------------------------------------------------------


class CallbackServer:
    """A one-shot loopback HTTP server that takes the authorization redirect."""

    def __init__(self, port: int = 0, path: str = "/callback") -> None:
        self.port = port
        self.path = path
        self.result: asyncio.Future[dict[str, str]] | None = None
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> int:
        self.result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.split(" ")
            target = urlsplit(parts[1] if len(parts) > 1 else "/")
            params = {k: v[0] for k, v in parse_qs(target.query).items()}
            if target.path.rstrip("/") != self.path.rstrip("/") or not (
                "code" in params or "error" in params
            ):
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            else:
                ok = "code" in params
                body = (
                    b"Signed in. You can close this tab and go back to pi."
                    if ok
                    else b"Sign-in failed: " + params.get("error", "").encode()
                )
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                    % len(body)
                    + body
                )
                if self.result is not None and not self.result.done():
                    self.result.set_result(params)
            await writer.drain()
        finally:
            writer.close()

    def deliver_url(self, url: str) -> bool:
        """The address the browser was redirected to, pasted by the user (a browser on another
        machine cannot reach this loopback server). False when it carries no code or error."""
        params = {k: v[0] for k, v in parse_qs(urlsplit(url.strip()).query).items()}
        if not ("code" in params or "error" in params) or self.result is None or self.result.done():
            return False
        self.result.set_result(params)
        return True

    async def wait(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        assert self.result is not None
        params = await self.result
        if "error" in params:
            raise RuntimeError(f"authorization failed: {params.get('error_description') or params['error']}")
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    def close(self) -> None:
        if self._server is not None:
            self._server.close()


async def sign_in(
    server: McpServerConfig,
    agent_dir: Path,
    *,
    say: Callable[[str], None],
    timeout_s: float = DEFAULT_LOGIN_TIMEOUT_S,
    on_callback: Callable[[CallbackServer], None] | None = None,
) -> None:
    """The whole sign-in: browser, redirect, tokens stored; raises with one line on failure."""
    from pi_app.coding.mcp.connection import ServerConnection

    if server.transport != "http":
        raise ValueError(f'MCP server "{server.name}" is not an HTTP server; only HTTP servers sign in')
    oauth = server.oauth or {}
    configured_port = oauth.get("callbackPort")
    callback_path = (
        urlsplit(oauth["callbackUrl"]).path if isinstance(oauth.get("callbackUrl"), str) else "/callback"
    )
    callback = CallbackServer(
        int(configured_port) if isinstance(configured_port, int) else 0, callback_path or "/callback"
    )
    port = await callback.start()
    if on_callback is not None:  # e.g. a pasted redirect address
        on_callback(callback)

    async def open_browser(url: str) -> None:
        say(f"Open this URL to sign in to {server.name}:\n  {url}")
        with contextlib.suppress(Exception):
            await asyncio.get_running_loop().run_in_executor(None, webbrowser.open, url)

    provider_holder: dict[str, Any] = {}

    def factory(config: McpServerConfig) -> Any:
        provider = build_provider(
            config, agent_dir, port=port, redirect_handler=open_browser, callback_handler=callback.wait
        )
        provider_holder["p"] = provider
        return provider

    connection = ServerConnection(
        server, session_cwd=os.getcwd(), agent_dir=agent_dir, on_change=lambda _c: None, auth_factory=factory
    )
    try:
        store = TokenStore(AuthFile(auth_path(agent_dir)), record_key(server), _redirect_uri(server, port))
        await _preregistered(server, store, _redirect_uri(server, port))
        connection.start()
        connection._attempt = 99
        connected = await asyncio.wait_for(connection.wait_ready(None), timeout_s)
        if not connected:
            raise RuntimeError(connection.error or "sign-in failed")
    except TimeoutError:
        raise RuntimeError(f"sign-in timed out after {timeout_s:g} s") from None
    finally:
        callback.close()
        await connection.close()


def expire_stored_token(server: McpServerConfig, agent_dir: Path) -> bool:
    """Mark the stored access token expired so the next connection refreshes it; False when there
    is no refresh token to do it with."""
    store = TokenStore(AuthFile(auth_path(agent_dir)), record_key(server))
    tokens = store._record().get("tokens")
    if not isinstance(tokens, dict) or not tokens.get("refresh_token"):
        return False
    store.file.update(
        store.key, lambda record: record.__setitem__("expiresAt", 1.0)
    )  # 0 reads as "no expiry"
    return True


def sign_out(server: McpServerConfig, agent_dir: Path) -> bool:
    return TokenStore(AuthFile(auth_path(agent_dir)), record_key(server)).clear()
