"""ChatGPT Plus/Pro (Codex) login (R-AI-64): PKCE with a loopback callback on port 1455.

The ChatGPT account id is read from the access token's claim ``https://api.openai.com/auth`` →
``chatgpt_account_id`` and stored on the credential as ``accountId``; requests send it in the
``chatgpt-account-id`` header.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx

from pi_app.ai.auth.oauth.callback_server import receive_authorization_code
from pi_app.ai.auth.oauth.common import (
    OAuthError,
    expires_at,
    jwt_claims,
    post_token,
)
from pi_app.ai.auth.oauth.pkce import generate_pkce
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTHORIZE_URL = "https://auth.openai.com/oauth/authorize"
TOKEN_URL = "https://auth.openai.com/oauth/token"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
SCOPE = "openid profile email offline_access"
JWT_CLAIM = "https://api.openai.com/auth"


def account_id(access_token: str) -> str | None:
    claim = jwt_claims(access_token).get(JWT_CLAIM) or {}
    value = claim.get("chatgpt_account_id") if isinstance(claim, dict) else None
    return value if isinstance(value, str) and value else None


class OpenAICodexOAuth:
    name = "OpenAI (ChatGPT Plus/Pro)"
    login_label = "ChatGPT Plus/Pro (Codex)"

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
        state = secrets.token_hex(16)

        def authorize(redirect_uri: str) -> str:
            query = {
                "response_type": "code",
                "client_id": CLIENT_ID,
                "redirect_uri": redirect_uri,
                "scope": SCOPE,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": state,
                "id_token_add_organizations": "true",
                "codex_cli_simplified_flow": "true",
                "originator": "pi",
            }
            return f"{self.authorize_url}?{urlencode(query)}"

        code, redirect_uri = await receive_authorization_code(
            interaction,
            port=self.callback_port,
            path=CALLBACK_PATH,
            state=state,
            authorize_url=authorize,
            paste_message="Paste the redirect URL",
        )
        interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                form={
                    "grant_type": "authorization_code",
                    "client_id": CLIENT_ID,
                    "code": code,
                    "code_verifier": verifier,
                    "redirect_uri": redirect_uri,
                },
            )
        return _credential(data, None)

    async def refresh(self, credential: Credential, signal: Any = None) -> Credential:
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                form={
                    "grant_type": "refresh_token",
                    "client_id": CLIENT_ID,
                    "refresh_token": credential["refresh"],
                    "scope": SCOPE,
                },
            )
        return _credential(data, credential)

    async def to_auth(self, credential: Credential) -> ModelAuth:
        headers = {"chatgpt-account-id": credential["accountId"]} if credential.get("accountId") else {}
        return {"apiKey": credential["access"], "headers": headers}


def _credential(data: dict[str, Any], previous: Credential | None) -> Credential:
    access = data["access_token"]
    account = account_id(access) or (previous or {}).get("accountId")
    if not account:
        raise OAuthError("Failed to extract accountId from token")
    return {
        "type": "oauth",
        "access": access,
        "refresh": data.get("refresh_token") or (previous or {}).get("refresh", ""),
        "expires": expires_at(data.get("expires_in")),
        "accountId": account,
    }


def openai_codex_oauth() -> OpenAICodexOAuth:
    return OpenAICodexOAuth()
