"""Auth: refresh under concurrency, loud refresh failures, Copilot hosts, and the OAuth flows
against local fake endpoints (spec 10 §3.6–3.7; scenarios 18–22)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pi_app.ai import testing as T
from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore, ModelsError
from pi_app.ai.auth.oauth.anthropic import AnthropicOAuth
from pi_app.ai.auth.oauth.common import EXPIRY_MARGIN_MS, OAuthError, now_ms, parse_manual_input
from pi_app.ai.auth.oauth.github_copilot import GitHubCopilotOAuth
from pi_app.ai.auth.oauth.openai_codex import OpenAICodexOAuth
from pi_app.ai.auth.oauth.pkce import generate_pkce, pkce_challenge
from pi_app.ai.event_stream import AbortController
from pi_app.ai.providers.all import builtin_models
from pi_app.ai.types import Context, UserMessage

CTX = Context(messages=[UserMessage(content="hi", timestamp=1)])


class Recorder:
    def __init__(self, reply: Any = None) -> None:
        self.requests: list[httpx.Request] = []
        self.reply = reply

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.reply is not None:
            return self.reply(request)
        return T.mock_sse_response(T.anthropic_transcript([T.text("ok")]))


def collection(recorder: Recorder, store: Any, env: dict[str, str] | None = None) -> Any:
    return builtin_models(
        credentials=store,
        auth_context=DictAuthContext(env or {}),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(recorder)),
    )


class CountingRefresh:
    name = "fake"
    login_label = "fake"

    def __init__(self, fail: str | None = None) -> None:
        self.calls = 0
        self.fail = fail

    async def login(self, interaction: Any) -> dict[str, Any]:
        raise NotImplementedError

    async def refresh(self, credential: dict[str, Any], signal: Any = None) -> dict[str, Any]:
        self.calls += 1
        await asyncio.sleep(0.05)
        if self.fail:
            raise RuntimeError(self.fail)
        return {"type": "oauth", "access": "sk-ant-oat-new", "refresh": "r2", "expires": now_ms() + 3_600_000}

    async def to_auth(self, credential: dict[str, Any]) -> dict[str, Any]:
        return {"apiKey": credential["access"]}


EXPIRED = {"type": "oauth", "access": "sk-ant-oat-old", "refresh": "r1", "expires": 1}


async def test_concurrent_requests_refresh_once() -> None:
    store = InMemoryCredentialStore({"anthropic": dict(EXPIRED)})
    recorder = Recorder()
    models = collection(recorder, store)
    fake = CountingRefresh()
    models.get_provider("anthropic").auth.oauth = fake
    model = models.get_model("anthropic", "claude-sonnet-4-5")
    results = await asyncio.gather(*(models.complete(model, CTX) for _ in range(5)))
    assert all(r.stop_reason == "stop" for r in results)
    assert fake.calls == 1
    assert [r.headers["authorization"] for r in recorder.requests] == ["Bearer sk-ant-oat-new"] * 5
    assert (await store.read("anthropic"))["access"] == "sk-ant-oat-new"


async def test_refresh_failure_is_loud_and_never_falls_back_to_env() -> None:
    store = InMemoryCredentialStore({"anthropic": dict(EXPIRED)})
    recorder = Recorder()
    models = collection(recorder, store, {"ANTHROPIC_API_KEY": "env-key"})
    models.get_provider("anthropic").auth.oauth = CountingRefresh(fail="400 invalid_grant")
    result = await models.complete(models.get_model("anthropic", "claude-sonnet-4-5"), CTX)
    assert result.stop_reason == "error"
    assert result.error_message == "OAuth refresh failed for anthropic: 400 invalid_grant"
    assert recorder.requests == []
    with pytest.raises(ModelsError) as info:
        await models.get_auth("anthropic")
    assert info.value.code == "oauth"


async def test_check_auth_reports_expired_without_refreshing() -> None:
    store = InMemoryCredentialStore({"anthropic": dict(EXPIRED)})
    models = collection(Recorder(), store)
    fake = CountingRefresh()
    models.get_provider("anthropic").auth.oauth = fake
    check = await models.check_auth("anthropic")
    assert check == {"configured": True, "type": "oauth", "source": "stored", "expired": True}
    assert fake.calls == 0
    assert await models.check_auth("nope") is None


async def test_copilot_base_url_and_headers_from_token() -> None:
    token = "tid=1;exp=9;proxy-ep=proxy.enterprise.githubcopilot.com;sku=x"
    store = InMemoryCredentialStore(
        {
            "github-copilot": {
                "type": "oauth",
                "access": token,
                "refresh": "gh",
                "expires": now_ms() + 3_600_000,
            }
        }
    )
    recorder = Recorder(lambda r: T.mock_sse_response(T.openai_completions_transcript([T.text("ok")])))
    models = collection(recorder, store)
    result = await models.complete(models.get_model("github-copilot", "kimi-k3"), CTX)
    assert result.stop_reason == "stop", result.error_message
    request = recorder.requests[0]
    assert str(request.url) == "https://api.enterprise.githubcopilot.com/chat/completions"
    assert request.headers["x-initiator"] == "user"
    assert request.headers["openai-intent"] == "conversation-edits"
    assert request.headers["authorization"] == f"Bearer {token}"
    assert request.headers["copilot-integration-id"] == "vscode-chat"


def test_pkce() -> None:
    verifier, challenge = generate_pkce()
    assert len(verifier) == 43 and "=" not in verifier and "=" not in challenge
    # RFC 7636 appendix B example
    assert (
        pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("https://x/callback?code=abc&state=v", "abc"),
        ("abc#v", "abc"),
        ("code=abc&state=v", "abc"),
        ("abc", "abc"),
    ],
)
def test_manual_input_forms(text: str, code: str) -> None:
    assert parse_manual_input(text, "v") == code


def test_manual_input_errors() -> None:
    with pytest.raises(OAuthError, match="OAuth state mismatch"):
        parse_manual_input("abc#other", "v")
    with pytest.raises(OAuthError, match="Missing authorization code"):
        parse_manual_input("", "v")


class ScriptedInteraction:
    def __init__(self, answer: Any = None, signal: Any = None) -> None:
        self.events: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.answer = answer
        self.signal = signal

    def notify(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    async def prompt(self, prompt: dict[str, Any]) -> str:
        self.prompts.append(prompt)
        if callable(self.answer):
            result = self.answer(self, prompt)
            return await result if asyncio.iscoroutine(result) else result
        if self.answer is None:
            await asyncio.Event().wait()
        return self.answer

    def state(self) -> str:
        url = next(e["url"] for e in self.events if e["type"] == "auth_url")
        return parse_qs(urlsplit(url).query)["state"][0]


def token_endpoint(tokens: dict[str, Any], seen: list[httpx.Request]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=tokens)

    return lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_anthropic_login_by_paste() -> None:
    seen: list[httpx.Request] = []
    oauth = AnthropicOAuth(
        callback_port=0,
        http_client_factory=token_endpoint(
            {"access_token": "sk-ant-oat-1", "refresh_token": "r", "expires_in": 3600}, seen
        ),
    )
    store = InMemoryCredentialStore()
    models = builtin_models(credentials=store, auth_context=DictAuthContext({}))
    models.get_provider("anthropic").auth.oauth = oauth
    interaction = ScriptedInteraction(lambda i, p: f"https://x/callback?code=abc&state={i.state()}")
    before = now_ms()
    credential = await models.login("anthropic", "oauth", interaction)
    assert [e["type"] for e in interaction.events] == ["auth_url", "progress"]
    url = interaction.events[0]["url"]
    assert url.startswith("https://claude.ai/oauth/authorize?code=true&client_id=")
    assert "code_challenge_method=S256" in url
    body = json.loads(seen[0].content)
    assert body["grant_type"] == "authorization_code" and body["code"] == "abc"
    assert body["code_verifier"] == interaction.state()
    assert (
        before + 3_600_000 - EXPIRY_MARGIN_MS
        <= credential["expires"]
        <= now_ms() + 3_600_000 - EXPIRY_MARGIN_MS
    )
    assert (await store.read("anthropic"))["access"] == "sk-ant-oat-1"


async def test_anthropic_login_with_wrong_state_stores_nothing() -> None:
    seen: list[httpx.Request] = []
    oauth = AnthropicOAuth(callback_port=0, http_client_factory=token_endpoint({"access_token": "x"}, seen))
    store = InMemoryCredentialStore()
    models = builtin_models(credentials=store, auth_context=DictAuthContext({}))
    models.get_provider("anthropic").auth.oauth = oauth
    with pytest.raises(ModelsError, match="OAuth state mismatch"):
        await models.login("anthropic", "oauth", ScriptedInteraction("abc#wrong"))
    assert await store.read("anthropic") is None and seen == []


async def test_anthropic_login_through_the_browser_redirect() -> None:
    seen: list[httpx.Request] = []
    oauth = AnthropicOAuth(
        callback_port=0,
        http_client_factory=token_endpoint({"access_token": "sk-ant-oat-2", "expires_in": 60}, seen),
    )
    browser_results: list[int] = []

    async def browser(interaction: ScriptedInteraction, prompt: Any) -> str:
        url = next(e["url"] for e in interaction.events if e["type"] == "auth_url")
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        async with httpx.AsyncClient() as client:
            browser_results.append((await client.get(redirect.replace("/callback", "/other"))).status_code)
            browser_results.append(
                (await client.get(redirect, params={"code": "c", "state": "bad"})).status_code
            )
            browser_results.append(
                (await client.get(redirect, params={"error": "access_denied"})).status_code
            )
            browser_results.append(
                (await client.get(redirect, params={"code": "c", "state": interaction.state()})).status_code
            )
        await asyncio.Event().wait()  # the user never pastes anything
        return ""

    credential = await oauth.login(ScriptedInteraction(browser))
    # the good redirect wins the race, which cancels the (never answered) paste prompt
    assert browser_results[:3] == [404, 400, 400]
    assert credential["access"] == "sk-ant-oat-2"
    assert json.loads(seen[0].content)["code"] == "c"


async def test_anthropic_refresh_request() -> None:
    seen: list[httpx.Request] = []
    oauth = AnthropicOAuth(
        http_client_factory=token_endpoint({"access_token": "new", "expires_in": 60}, seen)
    )
    fresh = await oauth.refresh({"type": "oauth", "access": "old", "refresh": "r1", "expires": 0})
    assert json.loads(seen[0].content) == {
        "grant_type": "refresh_token",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "refresh_token": "r1",
    }
    assert fresh["access"] == "new" and fresh["refresh"] == "r1"


async def test_copilot_device_flow() -> None:
    polls = [
        {"error": "authorization_pending"},
        {"error": "slow_down", "interval": 2},
        {"access_token": "gho_token"},
    ]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        path = request.url.path
        if path == "/login/device/code":
            return httpx.Response(
                200,
                json={
                    "device_code": "dc",
                    "user_code": "ABCD-1234",
                    "verification_uri": "https://github.com/login/device",
                    "interval": 1,
                    "expires_in": 900,
                },
            )
        if path == "/login/oauth/access_token":
            return httpx.Response(200, json=polls.pop(0))
        if path == "/copilot_internal/v2/token":
            return httpx.Response(
                200,
                json={
                    "token": "tid=1;proxy-ep=proxy.individual.githubcopilot.com;",
                    "expires_at": 2_000_000_000,
                },
            )
        return httpx.Response(200, json={})

    sleeps: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    oauth = GitHubCopilotOAuth(
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        sleep=fake_sleep,
        model_ids=lambda: ["gpt-4.1"],
    )
    store = InMemoryCredentialStore()
    models = builtin_models(credentials=store, auth_context=DictAuthContext({}))
    models.get_provider("github-copilot").auth.oauth = oauth
    interaction = ScriptedInteraction("")
    credential = await models.login("github-copilot", "oauth", interaction)
    assert interaction.prompts[0]["allowEmpty"] is True
    device = [e for e in interaction.events if e["type"] == "device_code"]
    assert device == [{"type": "device_code", "url": "https://github.com/login/device", "code": "ABCD-1234"}]
    assert sleeps == [pytest.approx(1.2), pytest.approx(1.2), pytest.approx(2.8)]
    assert credential["refresh"] == "gho_token" and credential["expires"] == 2_000_000_000 * 1000 - 300_000
    assert (await store.read("github-copilot"))["access"].startswith("tid=1")
    token_request = next(r for r in seen if r.url.path == "/copilot_internal/v2/token")
    assert token_request.headers["authorization"] == "Bearer gho_token"
    assert any(r.url.path == "/models/gpt-4.1/policy" for r in seen)
    auth = await models.get_auth("github-copilot")
    assert auth.auth["baseUrl"] == "https://api.individual.githubcopilot.com"


async def test_copilot_device_flow_error_and_enterprise_validation() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/login/device/code":
            return httpx.Response(
                200,
                json={
                    "device_code": "d",
                    "user_code": "u",
                    "verification_uri": "v",
                    "interval": 1,
                    "expires_in": 9,
                },
            )
        return httpx.Response(200, json={"error": "access_denied", "error_description": "User said no"})

    async def no_sleep(seconds: float) -> None:
        return None

    oauth = GitHubCopilotOAuth(
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)), sleep=no_sleep
    )
    with pytest.raises(OAuthError, match="Device flow failed: access_denied: User said no"):
        await oauth.login(ScriptedInteraction("https://ghe.example.com/"))
    with pytest.raises(OAuthError, match="Invalid GitHub Enterprise URL/domain"):
        await oauth.login(ScriptedInteraction("not a domain"))


async def test_login_cancelled_and_unsupported() -> None:
    models = builtin_models(credentials=InMemoryCredentialStore(), auth_context=DictAuthContext({}))
    controller = AbortController()

    async def cancel(interaction: ScriptedInteraction, prompt: Any) -> str:
        controller.abort()
        raise RuntimeError("prompt closed")

    with pytest.raises(ModelsError, match="Login cancelled"):
        await models.login("github-copilot", "oauth", ScriptedInteraction(cancel, signal=controller.signal))
    with pytest.raises(ModelsError, match="Provider groq does not support oauth login"):
        await models.login("groq", "oauth", ScriptedInteraction())
    with pytest.raises(ModelsError, match="Unknown provider: nope"):
        await models.login("nope", "api_key", ScriptedInteraction())


def _jwt(claims: dict[str, Any]) -> str:
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"h.{payload}.s"


async def test_codex_login_by_paste_reads_the_account_id() -> None:
    access = _jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_1"}})
    seen: list[httpx.Request] = []
    oauth = OpenAICodexOAuth(
        callback_port=0,
        http_client_factory=token_endpoint(
            {"access_token": access, "refresh_token": "r", "expires_in": 3600}, seen
        ),
    )
    interaction = ScriptedInteraction(
        lambda i, p: (
            "browser"
            if p.get("type") == "select"
            else f"http://localhost:1455/auth/callback?code=xyz&state={i.state()}"
        )
    )
    credential = await oauth.login(interaction)
    assert credential["accountId"] == "acct_1"
    form = parse_qs(seen[0].content.decode())
    assert (
        form["grant_type"] == ["authorization_code"] and form["code"] == ["xyz"] and "code_verifier" in form
    )
    assert interaction.events[0]["url"].startswith("https://auth.openai.com/oauth/authorize?")
    assert await oauth.to_auth(credential) == {"apiKey": access, "headers": {"chatgpt-account-id": "acct_1"}}
