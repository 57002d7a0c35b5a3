"""GitHub Copilot login (R-AI-62, R-AI-63): GitHub device code, then a Copilot token.

The stored credential keeps the GitHub token as ``refresh`` and the short-lived Copilot token as
``access``; ``refresh()`` trades the GitHub token for a new Copilot token. ``to_auth`` derives the
API host from the Copilot token on every call (R-AI-57), so a moved account follows automatically.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

import httpx

from pi_app.ai.auth.oauth.common import OAuthError
from pi_app.ai.auth.oauth.device_code import DeviceFlowError, poll_for_token
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.providers.github_copilot import copilot_base_url

CLIENT_ID = "Iv1.b507a08c87ecfe98"
EDITOR_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.26.7",
    "Editor-Version": "vscode/1.99.3",
    "Editor-Plugin-Version": "copilot-chat/0.26.7",
    "Copilot-Integration-Id": "vscode-chat",
}
_DOMAIN = re.compile(r"^[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")


def parse_enterprise_domain(answer: str) -> str | None:
    """``None`` for github.com (blank answer); the host of a URL or bare domain; raises if unusable."""
    value = (answer or "").strip()
    if not value:
        return None
    host = re.sub(r"^https?://", "", value).split("/", 1)[0].strip().lower()
    if not _DOMAIN.match(host):
        raise OAuthError("Invalid GitHub Enterprise URL/domain")
    return None if host == "github.com" else host


class GitHubCopilotOAuth:
    name = "GitHub Copilot"
    login_label = "GitHub Copilot"

    def __init__(
        self,
        *,
        http_client_factory: Callable[[], httpx.AsyncClient] = httpx.AsyncClient,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        model_ids: Callable[[], list[str]] | None = None,
    ) -> None:
        self.http_client_factory = http_client_factory
        self.sleep = sleep
        self.model_ids = model_ids or _catalog_model_ids

    async def login(self, interaction: AuthInteraction) -> Credential:
        answer = await interaction.prompt(
            {
                "type": "text",
                "message": "GitHub Enterprise URL/domain (blank for github.com)",
                "allowEmpty": True,
            }
        )
        enterprise = parse_enterprise_domain(answer)
        domain = enterprise or "github.com"
        async with self.http_client_factory() as client:
            response = await client.post(
                f"https://{domain}/login/device/code",
                data={"client_id": CLIENT_ID, "scope": "read:user"},
                headers={"accept": "application/json"},
            )
            try:
                device = response.json()
            except ValueError:
                device = {}
            fields = ("device_code", "user_code", "verification_uri", "interval", "expires_in")
            if not isinstance(device, dict) or any(device.get(f) in (None, "") for f in fields):
                raise OAuthError("Invalid device code response fields")
            interaction.notify(
                {"type": "device_code", "url": device["verification_uri"], "code": device["user_code"]}
            )
            try:
                token = await poll_for_token(
                    client,
                    f"https://{domain}/login/oauth/access_token",
                    {
                        "client_id": CLIENT_ID,
                        "device_code": device["device_code"],
                        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    },
                    float(device["interval"]),
                    float(device["expires_in"]),
                    signal=getattr(interaction, "signal", None),
                    sleep=self.sleep,
                )
            except DeviceFlowError as exc:
                raise OAuthError(str(exc)) from None
            credential = await self._copilot_token(client, token["access_token"], enterprise)
            await self._enable_models(client, credential, interaction)
        return credential

    async def _copilot_token(
        self, client: httpx.AsyncClient, github_token: str, enterprise: str | None
    ) -> Credential:
        host = f"api.{enterprise}" if enterprise else "api.github.com"
        response = await client.get(
            f"https://{host}/copilot_internal/v2/token",
            headers={
                "Authorization": f"Bearer {github_token}",
                "accept": "application/json",
                **EDITOR_HEADERS,
            },
        )
        if response.status_code >= 300:
            raise OAuthError(f"Copilot token request failed: {response.status_code} {response.text[:300]}")
        data = response.json()
        if not data.get("token") or not data.get("expires_at"):
            raise OAuthError("Invalid Copilot token response")
        credential: Credential = {
            "type": "oauth",
            "refresh": github_token,
            "access": data["token"],
            "expires": int(data["expires_at"]) * 1000 - 5 * 60 * 1000,
        }
        if enterprise:
            credential["enterpriseUrl"] = enterprise
        return credential

    async def _enable_models(
        self, client: httpx.AsyncClient, credential: Credential, interaction: AuthInteraction
    ) -> None:
        base = copilot_base_url(credential["access"], credential.get("enterpriseUrl"))
        interaction.notify({"type": "progress", "message": "Enabling models..."})
        for model_id in self.model_ids():
            try:
                await client.post(
                    f"{base}/models/{model_id}/policy",
                    json={"state": "enabled"},
                    headers={"Authorization": f"Bearer {credential['access']}", **EDITOR_HEADERS},
                )
            except httpx.HTTPError:
                pass  # a model the account cannot enable is not a login failure

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        async with self.http_client_factory() as client:
            return await self._copilot_token(client, credential["refresh"], credential.get("enterpriseUrl"))

    async def to_auth(self, credential: Credential) -> ModelAuth:
        access = credential["access"]
        return {"apiKey": access, "baseUrl": copilot_base_url(access, credential.get("enterpriseUrl"))}


def _catalog_model_ids() -> list[str]:
    from pi_app.ai.catalog.loader import load_catalog

    return [m.id for m in load_catalog("github-copilot")]


def github_copilot_oauth() -> GitHubCopilotOAuth:
    return GitHubCopilotOAuth()
