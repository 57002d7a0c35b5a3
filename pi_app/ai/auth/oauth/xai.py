"""Sign-ins with the OAuth device-code flow (RFC 8628): xAI, Kimi Code, Meta and Radius.

``DeviceCodeOAuth`` asks the provider for a device code, shows the verification URL (the one with
the code in it when the server gives one) and the code, and polls the token endpoint until the user
approves; the access token is then sent as the API key. Tokens are refreshed with the refresh
token (the old one is kept when the server does not rotate it), five minutes before they expire.
Denied, expired and timed-out codes end the login with one line. A provider is its endpoints,
client id, scope and names: ``XaiOAuth`` (``auth.x.ai``), ``KimiCodeOAuth`` (``auth.kimi.com``,
or ``KIMI_CODE_OAUTH_HOST`` / ``KIMI_OAUTH_HOST`` as pi 1.6.0), ``MetaOAuth`` (plus a key mint) and
``RadiusOAuth``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from pi_app.ai.auth.oauth.common import OAuthError, now_ms, post_token
from pi_app.ai.auth.oauth.device_code import DeviceFlowError, poll_for_token
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
REFRESH_SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME_S = 3600
DENIED = {
    "access_denied": "device authorization was denied",
    "authorization_denied": "device authorization was denied",
    "expired_token": "device code expired",
}


class DeviceCodeOAuth:
    name = ""
    login_label = ""
    label = ""  # in messages: "<label> device authorization was denied"
    client_id = ""
    scope: str | None = None
    extra: dict[str, str] = {}
    https_only = True

    def __init__(
        self,
        *,
        device_code_url: str,
        token_url: str,
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
                data={
                    "client_id": self.client_id,
                    **({"scope": self.scope} if self.scope else {}),
                    **self.extra,
                },
                headers={"accept": "application/json"},
            )
            if response.status_code >= 300:
                raise OAuthError(
                    f"{self.label} device authorization failed: {response.status_code} {response.text[:300]}"
                )
            device = response.json()
            for field in ("device_code", "user_code", "verification_uri"):
                if not device.get(field):
                    raise OAuthError(f"Invalid {self.label} device code response: missing {field}")
            url = device.get("verification_uri_complete") or device["verification_uri"]
            if not str(url).startswith("https://" if self.https_only else ("https://", "http://")):
                raise OAuthError(f"{self.label} sent a verification URL that is not https: {url}")
            interaction.notify({"type": "device_code", "url": url, "code": device["user_code"]})
            try:
                token = await poll_for_token(
                    client,
                    self.token_url,
                    {
                        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                        "client_id": self.client_id,
                        "device_code": device["device_code"],
                    },
                    float(device["interval"]) if isinstance(device.get("interval"), int | float) else 5.0,
                    float(device.get("expires_in") or 15 * 60),
                    signal=getattr(interaction, "signal", None),
                    sleep=self.sleep,
                )
            except DeviceFlowError as exc:
                text = str(exc)
                for code, message in DENIED.items():
                    if f"failed: {code}" in text:
                        raise OAuthError(f"{self.label} {message}") from None
                raise OAuthError(text) from None
            return await self.finish(client, token, interaction)

    async def finish(
        self, client: httpx.AsyncClient, token: dict[str, Any], interaction: AuthInteraction
    ) -> Credential:
        """The credential from the approved device's token response."""
        return _credential(token, None)

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        async with self.http_client_factory() as client:
            data = await post_token(
                client,
                self.token_url,
                form={
                    "grant_type": "refresh_token",
                    "client_id": self.client_id,
                    "refresh_token": credential["refresh"],
                },
            )
        return _credential(data, credential.get("refresh"))

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return {"apiKey": credential["access"]}


def _credential(data: dict[str, Any], previous_refresh: str | None) -> Credential:
    refresh = data.get("refresh_token") or previous_refresh
    if not refresh:
        raise OAuthError("Invalid token response: missing refresh_token")
    lifetime = float(data.get("expires_in") or DEFAULT_LIFETIME_S)
    return {
        "type": "oauth",
        "access": data["access_token"],
        "refresh": refresh,
        "expires": now_ms() + int(lifetime * 1000) - REFRESH_SKEW_MS,
    }


class XaiOAuth(DeviceCodeOAuth):
    name = "xAI (Grok/X subscription)"
    login_label = "Sign in with SuperGrok or X Premium"
    label = "xAI"
    client_id = CLIENT_ID
    scope = SCOPE
    extra = {"referrer": "pi"}

    def __init__(
        self, *, device_code_url: str = DEVICE_CODE_URL, token_url: str = TOKEN_URL, **kwargs: Any
    ) -> None:
        super().__init__(device_code_url=device_code_url, token_url=token_url, **kwargs)


KIMI_CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
KIMI_HOST = "https://auth.kimi.com"


class KimiCodeOAuth(DeviceCodeOAuth):
    name = "Kimi Code (subscription)"
    login_label = "Sign in with Kimi Code"
    label = "Kimi Code"
    client_id = KIMI_CLIENT_ID
    https_only = False  # 1.6.0 takes any http(s) URL it is given (a KIMI_CODE_OAUTH_HOST test server)

    def __init__(self, *, host: str | None = None, **kwargs: Any) -> None:
        import os

        base = (
            host or os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST") or KIMI_HOST
        ).rstrip("/")
        super().__init__(
            device_code_url=f"{base}/api/oauth/device_authorization",
            token_url=f"{base}/api/oauth/token",
            **kwargs,
        )


META_CLIENT_ID = "1031625952748946"
META_HOST = "https://auth.meta.com"
META_MINT_URL = "https://api.meta.ai/muse-code/key"
META_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000


class MetaOAuth(DeviceCodeOAuth):
    """Meta splits identity from API access: the device flow's identity token (not renewable) is
    stored as ``refresh`` and exchanged at the Muse Code key-mint endpoint for a Model API key that
    lives about a day (``access``); "refreshing" mints a new key, and a 401/403 from the mint means
    the session is over (one line: sign in again)."""

    name = "Meta (Muse subscription)"
    login_label = "Sign in with Meta"
    label = "Meta"
    client_id = META_CLIENT_ID

    def __init__(
        self,
        *,
        device_code_url: str = f"{META_HOST}/oidc/device/authorization/",
        token_url: str = f"{META_HOST}/oidc/device/token/",
        mint_url: str = META_MINT_URL,
        **kwargs: Any,
    ) -> None:
        super().__init__(device_code_url=device_code_url, token_url=token_url, **kwargs)
        self.mint_url = mint_url

    async def finish(
        self, client: httpx.AsyncClient, token: dict[str, Any], interaction: AuthInteraction
    ) -> Credential:
        interaction.notify({"type": "progress", "message": "Enabling Meta Model API access..."})
        return await self._mint(client, str(token["access_token"]))

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        async with self.http_client_factory() as client:
            return await self._mint(client, str(credential.get("refresh") or ""))

    async def _mint(self, client: httpx.AsyncClient, identity: str) -> Credential:
        response = await client.post(
            self.mint_url,
            content=b"{}",
            headers={
                "accept": "application/json",
                "authorization": f"Bearer {identity}",
                "content-type": "application/json",
                "x-api-version": "1.0.0",
            },
        )
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code in (401, 403):
            raise OAuthError(
                f"Meta session expired (status {response.status_code}). Run /login to sign in again."
            )
        if response.status_code >= 300:
            raise OAuthError(f"Meta API key mint failed with status {response.status_code}")
        key = body.get("api_key") if isinstance(body, dict) else None
        if not isinstance(key, str) or not key:
            action = body.get("action_url") if isinstance(body, dict) else None
            suffix = (
                f" Complete setup at {action}"
                if isinstance(action, str) and action.startswith("https://")
                else ""
            )
            raise OAuthError(f"Meta did not issue an API key.{suffix}")
        return {
            "type": "oauth",
            "refresh": identity,
            "access": key,
            "expires": now_ms() + META_KEY_LIFETIME_MS,
        }


RADIUS_GATEWAY = "https://radius.pi.dev"


class RadiusOAuth(DeviceCodeOAuth):
    """Radius (pi's gateway): its own OAuth at ``<gateway>/v1/oauth/device`` and ``/v1/oauth/token``
    (client ``pi-gateway``). Only the device-code method of 1.6.0's two is built; it works from any
    machine, the browser one (discovery + loopback on port 1456) is not."""

    name = "Radius"
    login_label = "Sign in with Radius"
    label = "Radius"
    client_id = "pi-gateway"
    scope = "gateway offline_access"

    def __init__(self, *, gateway: str = RADIUS_GATEWAY, **kwargs: Any) -> None:
        base = gateway.rstrip("/")
        super().__init__(
            device_code_url=f"{base}/v1/oauth/device", token_url=f"{base}/v1/oauth/token", **kwargs
        )


def radius_oauth() -> RadiusOAuth:
    return RadiusOAuth()


def meta_oauth() -> MetaOAuth:
    return MetaOAuth()


def xai_oauth() -> XaiOAuth:
    return XaiOAuth()


def kimi_code_oauth() -> KimiCodeOAuth:
    return KimiCodeOAuth()
