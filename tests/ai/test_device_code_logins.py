"""Device-code sign-ins (issue 23, acceptance 3) against a loopback authorization server:
xAI (RFC 8628) and OpenAI Codex's device login, refresh, and their one-line failures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pi_app.ai.auth.oauth.common import OAuthError
from tests.fakes.oauth_server import CODEX_USER_CODE, XAI_USER_CODE, FakeOAuthServer


class Interaction:
    signal = None

    def __init__(self, answers: list[str] | None = None, prefer_device_code: bool = False) -> None:
        self.events: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.answers = list(answers or [])
        self.prefer_device_code = prefer_device_code

    def notify(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    async def prompt(self, prompt: dict[str, Any]) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


async def no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
def auth_server() -> Iterator[FakeOAuthServer]:
    server = FakeOAuthServer(pending_polls=2)
    yield server
    server.close()


async def test_xai_device_code_login_and_refresh(auth_server: FakeOAuthServer) -> None:
    oauth = auth_server.xai(sleep=no_sleep)
    interaction = Interaction()
    credential = await oauth.login(interaction)
    assert interaction.events == [
        {
            "type": "device_code",
            "url": f"https://accounts.x.ai/device?user_code={XAI_USER_CODE}",
            "code": XAI_USER_CODE,
        }
    ]
    assert credential["access"] == "xai-access-1" and credential["refresh"] == "refresh-1"
    assert auth_server.polls == 3  # two "authorization_pending", then the tokens
    device = auth_server.requests[0][1]
    assert device["scope"] == "openid profile email offline_access grok-cli:access api:access"
    assert auth_server.requests[1][1]["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
    fresh = await oauth.refresh(credential)
    assert fresh["access"].startswith("xai-access-refreshed") and fresh["type"] == "oauth"
    assert await oauth.to_auth(fresh) == {"apiKey": fresh["access"]}


async def test_xai_denied_is_one_line() -> None:
    server = FakeOAuthServer(pending_polls=0)
    original = server.answer

    def deny(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path == "/oauth2/token":
            return 400, {"error": "access_denied"}
        return original(path, body)

    server.answer = deny  # type: ignore[method-assign]
    try:
        with pytest.raises(OAuthError, match="^xAI device authorization was denied$"):
            await server.xai(sleep=no_sleep).login(Interaction())
    finally:
        server.close()


async def test_codex_device_code_login(auth_server: FakeOAuthServer) -> None:
    oauth = auth_server.codex(sleep=no_sleep)
    interaction = Interaction(answers=["device_code"])
    credential = await oauth.login(interaction)
    assert interaction.prompts[0]["type"] == "select"
    assert [o["id"] for o in interaction.prompts[0]["options"]] == ["browser", "device_code"]
    assert interaction.events[0] == {
        "type": "device_code",
        "url": f"{auth_server.base_url}/codex/device",
        "code": CODEX_USER_CODE,
    }
    assert credential["accountId"] == "acct_fake"
    exchange = auth_server.requests[-1]
    assert exchange[0] == "/oauth/token"
    assert exchange[1]["code"] == "codex-auth-code" and exchange[1]["code_verifier"] == "codex-verifier"
    assert exchange[1]["redirect_uri"] == f"{auth_server.base_url}/deviceauth/callback"
    # --no-browser: no question, straight to the device code
    headless = Interaction(prefer_device_code=True)
    await auth_server.codex(sleep=no_sleep).login(headless)
    assert headless.prompts == [] and headless.events[0]["code"] == CODEX_USER_CODE


async def test_kimi_code_device_login_with_the_host_override(
    auth_server: FakeOAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_app.ai.auth.oauth.xai import KimiCodeOAuth
    from tests.fakes.oauth_server import KIMI_USER_CODE

    monkeypatch.setenv("KIMI_CODE_OAUTH_HOST", auth_server.base_url)
    interaction = Interaction()
    credential = await KimiCodeOAuth(sleep=no_sleep).login(interaction)
    assert interaction.events[0]["code"] == KIMI_USER_CODE
    assert interaction.events[0]["url"] == f"{auth_server.base_url}/device?user_code={KIMI_USER_CODE}"
    assert credential["access"] == "kimi-access-1"
    assert auth_server.requests[0][1]["client_id"] == "17e5f671-d194-4dfb-9706-5516cb48c098"


async def test_openrouter_sign_in_by_callback_and_by_paste(auth_server: FakeOAuthServer) -> None:
    import asyncio
    from urllib.parse import parse_qs, urlsplit

    import httpx

    from pi_app.ai.auth.oauth.openrouter import OpenRouterOAuth

    def oauth() -> OpenRouterOAuth:
        return OpenRouterOAuth(
            authorize_url="https://openrouter.ai/auth", keys_url=f"{auth_server.base_url}/api/v1/auth/keys"
        )

    class Browser(Interaction):
        """The user's browser follows the authorize URL back to pi's loopback callback."""

        def notify(self, event: dict[str, Any]) -> None:
            super().notify(event)
            if event["type"] == "auth_url":
                query = parse_qs(urlsplit(event["url"]).query)
                assert query["code_challenge_method"] == ["S256"] and query["code_challenge"]
                callback = query["callback_url"][0]
                asyncio.get_running_loop().create_task(self.visit(callback))

        async def visit(self, callback: str) -> None:
            async with httpx.AsyncClient() as client:
                self.page = await client.get(callback, params={"code": "or-code"})

        async def prompt(self, prompt: dict[str, Any]) -> str:
            await asyncio.Event().wait()  # never pasted
            return ""

    browser = Browser()
    credential = await oauth().login(browser)
    assert credential == {
        "type": "oauth",
        "access": "sk-or-v1-fake",
        "refresh": "",
        "expires": 9007199254740991,
    }
    assert browser.page.status_code == 200
    assert auth_server.requests[-1][1]["code_verifier"]
    pasted = Interaction(answers=["http://localhost:1/oauth/callback/x?code=or-code"])
    assert (await oauth().login(pasted))["access"] == "sk-or-v1-fake"
    bad = Interaction(answers=["wrong"])
    with pytest.raises(OAuthError, match=r"OpenRouter OAuth key exchange failed \(HTTP 400\): bad code"):
        await oauth().login(bad)


async def test_sign_in_with_chatgpt_for_openai(auth_server: FakeOAuthServer) -> None:
    """The browser comes back to the loopback callback with the code and the client OpenAI issued."""
    import asyncio
    from urllib.parse import parse_qs, urlsplit

    import httpx

    from pi_app.ai.auth.oauth.openai_chatgpt import OpenAIChatGPTOAuth

    class Browser(Interaction):
        device_id = "6f1c2a9e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

        def notify(self, event: dict[str, Any]) -> None:
            super().notify(event)
            if event["type"] == "auth_url":
                query = {k: v[-1] for k, v in parse_qs(urlsplit(event["url"]).query).items()}
                self.query = query
                target = (
                    f"{query['redirect_uri']}?code=chat-code&state={query['state']}&client_id=issued-client-1"
                )
                asyncio.get_running_loop().create_task(self.visit(target))

        async def visit(self, url: str) -> None:
            async with httpx.AsyncClient() as client:
                self.page = await client.get(url)

        async def prompt(self, prompt: dict[str, Any]) -> str:
            await asyncio.Event().wait()
            return ""

    oauth = OpenAIChatGPTOAuth(token_url=f"{auth_server.base_url}/api/accounts/oauth/token", callback_port=0)
    browser = Browser()
    credential = await oauth.login(browser)
    assert browser.query["client_id"] == "dynamic_agent_client"
    assert browser.query["ext_agent_host_id"] == "urn:uuid:6f1c2a9e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
    assert "chatgpt.tokens.use.direct" in browser.query["scope"]
    assert browser.page.status_code == 200
    assert credential["access"] == "chatgpt-access-1" and credential["clientId"] == "issued-client-1"
    assert "chatgpt.tokens.use.direct" in credential["scopes"]
    exchange = auth_server.requests[-1][1]
    assert exchange["code"] == "chat-code" and exchange["code_verifier"]
    fresh = await oauth.refresh(credential)
    assert fresh["clientId"] == "issued-client-1"
    with pytest.raises(OAuthError, match="requires a device ID"):
        await oauth.login(Interaction())


async def test_meta_device_login_mints_a_key_and_refresh_mints_again(auth_server: FakeOAuthServer) -> None:
    from pi_app.ai.auth.oauth.xai import MetaOAuth

    base = auth_server.base_url
    oauth = MetaOAuth(
        device_code_url=f"{base}/oidc/device/authorization/",
        token_url=f"{base}/oidc/device/token/",
        mint_url=f"{base}/muse-code/key",
        sleep=no_sleep,
    )
    interaction = Interaction()
    credential = await oauth.login(interaction)
    assert interaction.events[0] == {
        "type": "device_code",
        "url": "https://auth.meta.com/device",
        "code": "META-1",
    }
    assert credential["refresh"] == "meta-identity" and credential["access"].startswith("meta-key-")
    again = await oauth.refresh(credential)
    assert again["access"] != credential["access"] and again["refresh"] == "meta-identity"


async def test_radius_device_login(auth_server: FakeOAuthServer) -> None:
    from pi_app.ai.auth.oauth.xai import RadiusOAuth

    interaction = Interaction()
    credential = await RadiusOAuth(gateway=auth_server.base_url, sleep=no_sleep).login(interaction)
    assert interaction.events[0]["code"] == "RAD-1" and credential["access"] == "radius-access-1"
    assert auth_server.requests[0][1] == {"client_id": "pi-gateway", "scope": "gateway offline_access"}
