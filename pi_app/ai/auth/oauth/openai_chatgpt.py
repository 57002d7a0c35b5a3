"""Sign in with ChatGPT for the ``openai`` provider (pi 1.6.0's "OpenAI (ChatGPT subscription)").

A public-client PKCE flow with dynamic registration: the authorize URL names the placeholder client
``dynamic_agent_client`` and this installation (``ext_agent_host_id=urn:uuid:<device id>``, the
``deviceId`` pi keeps in the agent settings); OpenAI registers a client and returns its id with the
code on the loopback callback (``http://127.0.0.1:1455/auth/callback``), or in the redirect URL a
user pastes from another machine. The code is exchanged (``resource=https://api.openai.com/v1``)
for tokens whose grant must include ``chatgpt.tokens.use.direct``; the access token goes straight to
``api.openai.com`` as the API key and is refreshed with the issued client id, three minutes early.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from pi_app.ai.auth.oauth.callback_server import CallbackServer
from pi_app.ai.auth.oauth.common import OAuthError, first_code, now_ms
from pi_app.ai.auth.oauth.pkce import generate_pkce
from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal

AUTHORIZE_URL = "https://auth.openai.com/api/accounts/authorize"
TOKEN_URL = "https://auth.openai.com/api/accounts/oauth/token"
RESOURCE = "https://api.openai.com/v1"
DYNAMIC_CLIENT_ID = "dynamic_agent_client"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
DIRECT_SCOPE = "chatgpt.tokens.use.direct"
SCOPE = f"openid profile email offline_access resource.invoke {DIRECT_SCOPE}"
EXPIRY_MARGIN_MS = 3 * 60 * 1000
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


class OpenAIChatGPTOAuth:
    name = "OpenAI (ChatGPT subscription)"
    login_label = "Sign in with ChatGPT"

    def __init__(
        self,
        *,
        authorize_url: str = AUTHORIZE_URL,
        token_url: str = TOKEN_URL,
        callback_port: int = CALLBACK_PORT,
        http_client_factory: Callable[[], httpx.AsyncClient] = httpx.AsyncClient,
    ) -> None:
        self.authorize_url = authorize_url
        self.token_url = token_url
        self.callback_port = callback_port
        self.http_client_factory = http_client_factory

    async def login(self, interaction: AuthInteraction) -> Credential:
        device_id = str(getattr(interaction, "device_id", "") or "")
        if not _UUID.match(device_id):
            raise OAuthError("Sign in with ChatGPT requires a device ID (UUID) for this installation")
        verifier, challenge = generate_pkce()
        state = secrets.token_urlsafe(32)
        host = os.environ.get("PI_OAUTH_CALLBACK_HOST") or "127.0.0.1"
        server = CallbackServer(host, self.callback_port, CALLBACK_PATH, state)
        try:
            await server.start()
        except OSError:
            raise OAuthError(
                f"Port {self.callback_port} is in use, probably by an unfinished login in another pi session "
                "or by the Codex CLI. Cancel that login and try again."
            ) from None
        redirect_uri = f"http://127.0.0.1:{server.port}{CALLBACK_PATH}"
        query = {
            "client_id": DYNAMIC_CLIENT_ID,
            "agent_name_hint": "Pi",
            "ext_agent_host_id": f"urn:uuid:{device_id.lower()}",
            "response_type": "code",
            "redirect_uri": redirect_uri,
            "resource": RESOURCE,
            "scope": SCOPE,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "nonce": secrets.token_urlsafe(32),
        }
        try:
            interaction.notify({"type": "auth_url", "url": f"{self.authorize_url}?{urlencode(query)}"})

            async def from_server() -> str:
                await server.wait()
                return "callback"

            async def pasted() -> str:
                return await interaction.prompt(
                    {
                        "type": "manual_code",
                        "message": "Complete login in your browser, or paste the final redirect URL here",
                    }
                )

            answer = await first_code([from_server, pasted])
            if answer == "callback":
                code, client_id = server.query.get("code", ""), server.query.get("client_id", "").strip()
            else:
                code, client_id = _from_pasted(answer, state, redirect_uri)
        finally:
            await server.close()
        if not client_id:
            raise OAuthError("OpenAI OAuth registration callback did not contain an issued client ID")
        interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
        token = await self._token(
            {
                "grant_type": "authorization_code",
                "client_id": client_id,
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": redirect_uri,
                "resource": RESOURCE,
            }
        )
        if not token.get("id_token"):
            raise OAuthError("OpenAI OAuth token response did not contain an ID token")
        return _credential(token, client_id)

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        client_id = str(credential.get("clientId") or "").strip()
        if not client_id:
            raise OAuthError(
                "Stored OpenAI OAuth credential does not contain an issued client ID; reconnect ChatGPT"
            )
        token = await self._token(
            {
                "grant_type": "refresh_token",
                "client_id": client_id,
                "refresh_token": credential["refresh"],
                "resource": RESOURCE,
            }
        )
        return _credential(token, client_id)

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return {"apiKey": credential["access"]}

    async def _token(self, form: dict[str, str]) -> dict[str, Any]:
        async with self.http_client_factory() as client:
            response = await client.post(
                self.token_url, data=form, headers={"accept": "application/json"}, timeout=30
            )
        if response.status_code >= 300:
            raise OAuthError(
                f"OpenAI OAuth token request failed ({response.status_code}): {response.text[:300]}"
            )
        data = response.json()
        if not isinstance(data, dict):
            raise OAuthError("OpenAI OAuth token response must be an object")
        return data


def _from_pasted(text: str, state: str, redirect_uri: str) -> tuple[str, str]:
    parts = urlsplit(text.strip())
    if not parts.scheme or not parts.netloc:
        raise OAuthError("Paste the full callback URL from the browser")
    if parts.path != CALLBACK_PATH:
        raise OAuthError(f"The pasted callback URL must start with {redirect_uri}")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if query.get("error"):
        raise OAuthError(f"ChatGPT authorization failed: {query['error']}")
    if not query.get("code"):
        raise OAuthError("Missing authorization code")
    if query.get("state") != state:
        raise OAuthError("OAuth state mismatch")
    return query["code"], query.get("client_id", "").strip()


def _credential(token: dict[str, Any], client_id: str) -> Credential:
    for field in ("access_token", "refresh_token", "scope"):
        if not isinstance(token.get(field), str) or not token[field].strip():
            raise OAuthError(f"OpenAI OAuth token response has invalid {field}")
    expires_in = token.get("expires_in")
    if not isinstance(expires_in, int | float) or expires_in <= 0:
        raise OAuthError("OpenAI OAuth token response has invalid expires_in")
    scopes = token["scope"].split()
    if DIRECT_SCOPE not in scopes:
        raise OAuthError(f"OpenAI OAuth grant did not include {DIRECT_SCOPE}")
    return {
        "type": "oauth",
        "access": token["access_token"],
        "refresh": token["refresh_token"],
        "expires": now_ms() + int(expires_in * 1000) - EXPIRY_MARGIN_MS,
        "clientId": client_id,
        "scopes": scopes,
    }


def openai_chatgpt_oauth() -> OpenAIChatGPTOAuth:
    return OpenAIChatGPTOAuth()
