"""ChatGPT Plus/Pro (Codex) login (R-AI-64): PKCE with a loopback callback on port 1455, or the
device-code login for a machine without a browser (pi 1.6.0's two methods; the login asks which,
or takes the device code straight away when the caller says there is no browser).

Device code: pi asks ``auth.openai.com`` for a user code, shows it with the verification page
(``/codex/device``) and polls until the user approves (403/404 and
``deviceauth_authorization_pending`` mean "not yet"); the answer is an authorization code and its
PKCE verifier, exchanged for tokens like the browser login's.

The ChatGPT account id is read from the access token's claim ``https://api.openai.com/auth`` →
``chatgpt_account_id`` and stored on the credential as ``accountId``; requests send it in the
``chatgpt-account-id`` header.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
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
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.http.transport import RequestAborted, race_abort

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTH_BASE_URL = "https://auth.openai.com"
AUTHORIZE_URL = "https://auth.openai.com/oauth/authorize"
TOKEN_URL = "https://auth.openai.com/oauth/token"
DEVICE_TIMEOUT_S = 15 * 60
METHODS = [
    {"id": "browser", "label": "Browser login (default)"},
    {"id": "device_code", "label": "Device code login (headless)"},
]
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
        auth_base_url: str = AUTH_BASE_URL,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.token_url = token_url
        self.authorize_url = authorize_url
        self.callback_port = callback_port
        self.http_client_factory = http_client_factory
        self.auth_base_url = auth_base_url.rstrip("/")
        self.sleep = sleep

    async def login(self, interaction: AuthInteraction) -> Credential:
        if getattr(interaction, "prefer_device_code", False):
            method = "device_code"
        else:
            method = await interaction.prompt(
                {"type": "select", "message": "Select OpenAI Codex login method:", "options": METHODS}
            )
        if method == "device_code":
            return await self.login_device_code(interaction)
        if method not in ("browser", "", None):
            raise OAuthError(f"Unknown OpenAI Codex login method: {method}")
        return await self.login_browser(interaction)

    async def login_device_code(self, interaction: AuthInteraction) -> Credential:
        signal = getattr(interaction, "signal", None)
        base = self.auth_base_url
        async with self.http_client_factory() as client:
            response = await client.post(
                f"{base}/api/accounts/deviceauth/usercode", json={"client_id": CLIENT_ID}
            )
            if response.status_code == 404:
                raise OAuthError(
                    "OpenAI Codex device code login is not enabled for this server. Use browser login."
                )
            if response.status_code >= 300:
                raise OAuthError(
                    f"OpenAI Codex device code request failed: {response.status_code} {response.text[:300]}"
                )
            device = response.json()
            interval = float(str(device.get("interval", "5")).strip() or 5)
            if not device.get("device_auth_id") or not device.get("user_code"):
                raise OAuthError(f"Invalid OpenAI Codex device code response: {response.text[:300]}")
            interaction.notify(
                {"type": "device_code", "url": f"{base}/codex/device", "code": device["user_code"]}
            )
            deadline = time.monotonic() + DEVICE_TIMEOUT_S
            while True:
                if time.monotonic() >= deadline:
                    raise OAuthError("Device flow timed out")
                try:
                    await race_abort(self.sleep(max(1.0, interval)), signal)
                    poll = await race_abort(
                        client.post(
                            f"{base}/api/accounts/deviceauth/token",
                            json={
                                "device_auth_id": device["device_auth_id"],
                                "user_code": device["user_code"],
                            },
                        ),
                        signal,
                    )
                except RequestAborted:
                    raise OAuthError("Login cancelled") from None
                if poll.status_code < 300:
                    answer = poll.json()
                    if not answer.get("authorization_code") or not answer.get("code_verifier"):
                        raise OAuthError(
                            f"Invalid OpenAI Codex device auth token response: {poll.text[:300]}"
                        )
                    break
                if poll.status_code in (403, 404):
                    continue
                try:
                    error = poll.json().get("error")
                except ValueError:
                    error = None
                code = error.get("code") if isinstance(error, dict) else error
                if code == "deviceauth_authorization_pending":
                    continue
                if code == "slow_down":
                    interval += 5
                    continue
                raise OAuthError(
                    f"OpenAI Codex device auth failed with status {poll.status_code}: {poll.text[:300]}"
                )
            interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
            data = await post_token(
                client,
                self.token_url,
                form={
                    "grant_type": "authorization_code",
                    "client_id": CLIENT_ID,
                    "code": answer["authorization_code"],
                    "code_verifier": answer["code_verifier"],
                    "redirect_uri": f"{base}/deviceauth/callback",
                },
            )
        return _credential(data, None)

    async def login_browser(self, interaction: AuthInteraction) -> Credential:
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

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
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
