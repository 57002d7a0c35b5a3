"""A local MCP server behind OAuth for the sign-in tests (issue 22 acceptance 2).

One loopback HTTP origin serves both roles, as many real deployments do:

- the protected resource: ``/mcp`` (an SDK ``MCPServer`` with one tool, ``whoami``) answers 401 with
  ``WWW-Authenticate: Bearer resource_metadata=…`` unless the bearer token is a live access token;
  ``/.well-known/oauth-protected-resource`` (RFC 9728) names the authorization server;
- the authorization server: metadata (RFC 8414), dynamic client registration (RFC 7591),
  ``/authorize`` (approves at once and redirects with the code: the "browser" is the test) and
  ``/token`` (authorization code with PKCE S256 checked, and refresh_token).

Access tokens live ``token_lifetime`` seconds so refresh is exercised. ``events`` records what
happened (registrations, grants) for the assertions.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import threading
import time
from typing import Any
from urllib.parse import urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route


class OAuthMcpServer:
    def __init__(self, token_lifetime: int = 3600) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.token_lifetime = token_lifetime
        self.clients: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.access: dict[str, float] = {}
        self.refresh: dict[str, str] = {}
        self.events: list[str] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    # -- authorization server -----------------------------------------------------------------------

    async def _prm(self, request: Request) -> Response:
        return JSONResponse(
            {
                "resource": self.url,
                "authorization_servers": [self.base],
                "bearer_methods_supported": ["header"],
            }
        )

    async def _asm(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.base,
                "authorization_endpoint": f"{self.base}/authorize",
                "token_endpoint": f"{self.base}/token",
                "registration_endpoint": f"{self.base}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            }
        )

    async def _register(self, request: Request) -> Response:
        body = await request.json()
        client_id = "client-" + secrets.token_hex(4)
        self.clients[client_id] = body
        self.events.append(f"register {body.get('client_name')}")
        return JSONResponse(
            {**body, "client_id": client_id, "client_id_issued_at": int(time.time())}, status_code=201
        )

    async def _authorize(self, request: Request) -> Response:
        q = request.query_params
        client = self.clients.get(q.get("client_id", ""))
        if client is None or q.get("redirect_uri") not in client.get("redirect_uris", []):
            return JSONResponse({"error": "invalid_client"}, status_code=400)
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return JSONResponse(
                {"error": "invalid_request", "error_description": "PKCE required"}, status_code=400
            )
        code = secrets.token_urlsafe(16)
        self.codes[code] = {
            "challenge": q["code_challenge"],
            "client_id": q["client_id"],
            "redirect_uri": q["redirect_uri"],
        }
        self.events.append("authorize")
        query = urlencode({"code": code, "state": q.get("state", ""), "iss": self.base})
        return RedirectResponse(f"{q['redirect_uri']}?{query}", status_code=302)

    def _issue(self) -> dict[str, Any]:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[access] = time.time() + self.token_lifetime
        self.refresh[refresh] = access
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.token_lifetime,
            "refresh_token": refresh,
        }

    async def _token(self, request: Request) -> Response:
        form = await request.form()
        grant = form.get("grant_type")
        if grant == "authorization_code":
            entry = self.codes.pop(str(form.get("code")), None)
            verifier = str(form.get("code_verifier") or "")
            challenge = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            )
            if (
                entry is None
                or entry["challenge"] != challenge
                or entry["redirect_uri"] != form.get("redirect_uri")
            ):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            self.events.append("token authorization_code")
            return JSONResponse(self._issue())
        if grant == "refresh_token":
            old = self.refresh.pop(str(form.get("refresh_token")), None)
            if old is None:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            self.access.pop(old, None)
            self.events.append("token refresh_token")
            return JSONResponse(self._issue())
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    def revoke_access_tokens(self) -> None:
        """Every access token stops working at once (refresh tokens stay valid)."""
        self.access.clear()

    # -- resource server ------------------------------------------------------------------------------

    def _app(self) -> Any:
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("guarded")

        @mcp.tool()
        def whoami() -> str:
            """Says who is signed in."""
            return "signed in as test-user"

        mcp_app = mcp.streamable_http_app()
        oauth_app = Starlette(
            routes=[
                Route("/.well-known/oauth-protected-resource", self._prm),
                Route("/.well-known/oauth-protected-resource/mcp", self._prm),
                Route("/.well-known/oauth-authorization-server", self._asm),
                Route("/register", self._register, methods=["POST"]),
                Route("/authorize", self._authorize),
                Route("/token", self._token, methods=["POST"]),
            ]
        )

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http" or not scope["path"].startswith("/mcp"):
                target = mcp_app if scope["type"] == "lifespan" else oauth_app
                await target(scope, receive, send)
                return
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            token = headers.get("authorization", "").removeprefix("Bearer ").strip()
            if self.access.get(token, 0) < time.time():
                self.events.append("401")
                metadata = f'Bearer resource_metadata="{self.base}/.well-known/oauth-protected-resource"'
                response = JSONResponse(
                    {"error": "invalid_token"}, status_code=401, headers={"WWW-Authenticate": metadata}
                )
                await response(scope, receive, send)
                return
            await mcp_app(scope, receive, send)

        return app

    def start(self) -> OAuthMcpServer:
        config = uvicorn.Config(
            self._app(), host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
