"""Sign in with OpenRouter (PKCE): the authorization code is exchanged for a permanent API key.

OpenRouter sends no ``state``; the loopback callback listens on a random port and a random path
instead, raced against a prompt where a user on another machine pastes the final redirect URL (or
the bare code). The key it returns never expires, so there is nothing to refresh; it is stored as
an ``oauth`` credential (as pi 1.6.0) and sent as the API key.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx

from pi_app.ai.auth.oauth.callback_server import receive_authorization_code
from pi_app.ai.auth.oauth.common import OAuthError
from pi_app.ai.auth.oauth.pkce import generate_pkce
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal

AUTHORIZE_URL = "https://openrouter.ai/auth"
KEYS_URL = "https://openrouter.ai/api/v1/auth/keys"
NEVER = 9007199254740991  # JavaScript's Number.MAX_SAFE_INTEGER, as 1.6.0 stores it


class OpenRouterOAuth:
    name = "OpenRouter OAuth"
    login_label = "Sign in with OpenRouter"

    def __init__(
        self,
        *,
        authorize_url: str = AUTHORIZE_URL,
        keys_url: str = KEYS_URL,
        callback_port: int = 0,
        http_client_factory: Callable[[], httpx.AsyncClient] = httpx.AsyncClient,
    ) -> None:
        self.authorize_url = authorize_url
        self.keys_url = keys_url
        self.callback_port = callback_port
        self.http_client_factory = http_client_factory

    async def login(self, interaction: AuthInteraction) -> Credential:
        verifier, challenge = generate_pkce()

        def authorize(redirect_uri: str) -> str:
            query = {
                "callback_url": redirect_uri,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
            return f"{self.authorize_url}?{urlencode(query)}"

        code, _redirect = await receive_authorization_code(
            interaction,
            port=self.callback_port,
            path=f"/oauth/callback/{uuid.uuid4()}",
            state=None,
            authorize_url=authorize,
            paste_message="Complete sign-in in your browser, or paste the authorization code / redirect URL here",
        )
        interaction.notify({"type": "progress", "message": "Exchanging authorization code for an API key..."})
        async with self.http_client_factory() as client:
            response = await client.post(
                self.keys_url,
                json={"code": code, "code_verifier": verifier, "code_challenge_method": "S256"},
                headers={"accept": "application/json"},
                timeout=30,
            )
        try:
            body: Any = response.json()
        except ValueError:
            body = {}
        if response.status_code >= 300:
            detail = body.get("message") or body.get("error") if isinstance(body, dict) else None
            if isinstance(detail, dict):
                detail = detail.get("message")
            suffix = f": {detail}" if detail else ""
            raise OAuthError(f"OpenRouter OAuth key exchange failed (HTTP {response.status_code}){suffix}")
        key = body.get("key") if isinstance(body, dict) else None
        if not isinstance(key, str) or not key:
            raise OAuthError('OpenRouter OAuth response carries no "key"')
        return {"type": "oauth", "access": key, "refresh": "", "expires": NEVER}

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        return credential

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return {"apiKey": credential["access"]}


def openrouter_oauth() -> OpenRouterOAuth:
    return OpenRouterOAuth()
