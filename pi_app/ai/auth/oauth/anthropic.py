"""Claude Pro/Max login (R-AI-59…61): PKCE, loopback callback on port 53692, or a pasted code.

The authorize URL is announced with ``notify({"type": "auth_url", …})``; at the same time the
user may paste the redirect URL or ``code#state`` into a ``manual_code`` prompt. Whichever yields a
code first wins. The code is exchanged at the token endpoint with the PKCE verifier; the access
token (``sk-ant-oat…``) is then used as a bearer token with the Claude Code identity.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx

from pi_app.ai.auth.oauth.callback_server import receive_authorization_code
from pi_app.ai.auth.oauth.common import expires_at, post_token
from pi_app.ai.auth.oauth.pkce import generate_pkce
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal

CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
CALLBACK_PORT = 53692
CALLBACK_PATH = "/callback"
SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"


class AnthropicOAuth:
    name = "Anthropic (Claude Pro/Max)"
    login_label = "Anthropic (Claude Pro/Max)"

    def __init__(
        self,
        *,
        token_url: str = TOKEN_URL,
        authorize_url: str = AUTHORIZE_URL,
        callback_port: int = CALLBACK_PORT,
        http_client_factory: Callable[[], httpx.AsyncClient] = httpx.AsyncClient,
    ) -> None:
        self.token_url = token_url
        self.authorize_url = authorize_url
        self.callback_port = callback_port
        self.http_client_factory = http_client_factory

    async def login(self, interaction: AuthInteraction) -> Credential:
        verifier, challenge = generate_pkce()

        def authorize(redirect_uri: str) -> str:
            query = {
                "code": "true",
                "client_id": CLIENT_ID,
                "response_type": "code",
                "redirect_uri": redirect_uri,
                "scope": SCOPES,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": verifier,
            }
            return f"{self.authorize_url}?{urlencode(query)}"

        code, redirect_uri = await receive_authorization_code(
            interaction,
            port=self.callback_port,
            path=CALLBACK_PATH,
            state=verifier,
            authorize_url=authorize,
            paste_message="Paste the authorization code or redirect URL",
        )
        interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                json_body={
                    "grant_type": "authorization_code",
                    "client_id": CLIENT_ID,
                    "code": code,
                    "state": verifier,
                    "redirect_uri": redirect_uri,
                    "code_verifier": verifier,
                },
            )
        return _credential(data)

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                json_body={
                    "grant_type": "refresh_token",
                    "client_id": CLIENT_ID,
                    "refresh_token": credential["refresh"],
                },
            )
        fresh = _credential(data)
        if not data.get("refresh_token"):
            fresh["refresh"] = credential["refresh"]
        return fresh

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return {"apiKey": credential["access"]}


def _credential(data: dict[str, Any]) -> Credential:
    return {
        "type": "oauth",
        "access": data["access_token"],
        "refresh": data.get("refresh_token", ""),
        "expires": expires_at(data.get("expires_in")),
    }


def anthropic_oauth() -> AnthropicOAuth:
    return AnthropicOAuth()
