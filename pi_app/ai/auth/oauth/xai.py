"""xAI sign-in with a SuperGrok or X Premium subscription: the OAuth device-code flow (RFC 8628).

pi asks ``auth.x.ai`` for a device code, shows the verification URL (the one with the code in it
when the server gives one) and the code, and polls the token endpoint until the user approves;
the access token is then sent as the API key. Tokens are refreshed with the refresh token (xAI may
keep the old one), five minutes before they expire. Denied, expired and timed-out codes end the
login with one line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from pi_app.ai.auth.oauth.common import OAuthError, now_ms, post_token
from pi_app.ai.auth.oauth.device_code import DeviceFlowError, poll_for_token
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
REFRESH_SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME_S = 3600
DENIED = {
    "access_denied": "xAI device authorization was denied",
    "authorization_denied": "xAI device authorization was denied",
    "expired_token": "xAI device code expired",
}


class XaiOAuth:
    name = "xAI (Grok/X subscription)"
    login_label = "Sign in with SuperGrok or X Premium"

    def __init__(
        self,
        *,
        device_code_url: str = DEVICE_CODE_URL,
        token_url: str = TOKEN_URL,
        http_client_factory: Callable[[], httpx.AsyncClient] = httpx.AsyncClient,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.device_code_url = device_code_url
        self.token_url = token_url
        self.http_client_factory = http_client_factory
        self.sleep = sleep

    async def login(self, interaction: AuthInteraction) -> Credential:
        async with self.http_client_factory() as client:
            response = await client.post(
                self.device_code_url,
                data={"client_id": CLIENT_ID, "scope": SCOPE, "referrer": "pi"},
                headers={"accept": "application/json"},
            )
            if response.status_code >= 300:
                raise OAuthError(
                    f"xAI device authorization failed: {response.status_code} {response.text[:300]}"
                )
            device = response.json()
            for field in ("device_code", "user_code", "verification_uri", "expires_in"):
                if not device.get(field):
                    raise OAuthError(f"Invalid xAI device code response: missing {field}")
            url = device.get("verification_uri_complete") or device["verification_uri"]
            if not str(url).startswith("https://"):
                raise OAuthError(f"xAI sent a verification URL that is not https: {url}")
            interaction.notify({"type": "device_code", "url": url, "code": device["user_code"]})
            try:
                token = await poll_for_token(
                    client,
                    self.token_url,
                    {
                        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                        "client_id": CLIENT_ID,
                        "device_code": device["device_code"],
                    },
                    float(device.get("interval") or 5),
                    float(device["expires_in"]),
                    signal=getattr(interaction, "signal", None),
                    sleep=self.sleep,
                )
            except DeviceFlowError as exc:
                text = str(exc)
                for code, message in DENIED.items():
                    if f"failed: {code}" in text:
                        raise OAuthError(message) from None
                raise OAuthError(text) from None
        return _credential(token, None)

    async def refresh(self, credential: Credential, signal: Any = None) -> Credential:
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                form={
                    "grant_type": "refresh_token",
                    "client_id": CLIENT_ID,
                    "refresh_token": credential["refresh"],
                },
            )
        return _credential(data, credential.get("refresh"))

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return {"apiKey": credential["access"]}


def _credential(data: dict[str, Any], previous_refresh: str | None) -> Credential:
    refresh = data.get("refresh_token") or previous_refresh
    if not refresh:
        raise OAuthError("Invalid xAI token response: missing refresh_token")
    lifetime = float(data.get("expires_in") or DEFAULT_LIFETIME_S)
    return {
        "type": "oauth",
        "access": data["access_token"],
        "refresh": refresh,
        "expires": now_ms() + int(lifetime * 1000) - REFRESH_SKEW_MS,
    }


def xai_oauth() -> XaiOAuth:
    return XaiOAuth()
