"""Every built-in provider reaches its own URL with its own auth header (acceptance 2 of issue 23).

For each provider that works from an API key, one model of each wire API it uses is asked for a
reply through ``builtin_models()`` with only that provider's 1.6.0 key variables set; a recording
transport answers in the API's wire format and keeps the request, whose URL and auth header are
compared with what the catalogue entry says.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from pi_app.ai import testing as T
from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore
from pi_app.ai.catalog.loader import catalog_provider_ids, load_catalog
from pi_app.ai.providers.all import builtin_models
from pi_app.ai.types import Context, Model, UserMessage
from tests.ai.test_catalog import PI16_ENV

CTX = Context(messages=[UserMessage(content="hi", timestamp=1)])
AZURE = {"AZURE_OPENAI_BASE_URL": "https://res.openai.azure.com"}

# api -> (path after the base URL, auth header, its value, transcript)
WIRE: dict[str, tuple[str, str, str, Any]] = {
    "anthropic-messages": ("/v1/messages", "x-api-key", "{key}", T.anthropic_transcript),
    "openai-completions": (
        "/chat/completions",
        "authorization",
        "Bearer {key}",
        T.openai_completions_transcript,
    ),
    "openai-responses": ("/responses", "authorization", "Bearer {key}", T.openai_responses_transcript),
    "azure-openai-responses": ("/responses", "api-key", "{key}", T.openai_responses_transcript),
    "pi-messages": ("/messages", "authorization", "Bearer {key}", T.pi_messages_transcript),
    "google-generative-ai": (
        "/models/{id}:streamGenerateContent",
        "x-goog-api-key",
        "{key}",
        T.google_transcript,
    ),
}
# providers whose requests need more than a key (own tests) or a sign-in
SEPARATE = {"amazon-bedrock", "google-vertex", "github-copilot", "openai-codex"}


def cases() -> list[tuple[str, str]]:
    out = []
    for provider in catalog_provider_ids():
        if provider in SEPARATE:
            continue
        seen: dict[str, str] = {}
        for model in load_catalog(provider):
            seen.setdefault(model.api, model.id)
        out.extend((provider, model_id) for model_id in seen.values())
    return out


def expected_base(model: Model, env: dict[str, str]) -> str:
    if model.provider == "azure":
        return "https://res.openai.azure.com/openai/v1"
    base = model.base_url
    for name, value in env.items():
        base = base.replace("{" + name + "}", value)
    return base.rstrip("/")


@pytest.mark.parametrize(("provider", "model_id"), cases())
async def test_request_reaches_the_catalogue_url_with_the_key(provider: str, model_id: str) -> None:
    env = {**PI16_ENV[provider], **(AZURE if provider == "azure" else {})}
    key = next(v for k, v in PI16_ENV[provider].items() if k.endswith(("_API_KEY", "_TOKEN")))
    seen: list[httpx.Request] = []
    model_api: dict[str, str] = {}

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return T.mock_sse_response(WIRE[model_api["api"]][3]([T.text("ok")]))

    models = builtin_models(
        credentials=InMemoryCredentialStore(),
        auth_context=DictAuthContext(env),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(reply)),
    )
    model = models.get_model(provider, model_id)
    assert model is not None
    model_api["api"] = model.api
    from pi_app.ai.types import StreamOptions

    result = await models.complete(model, CTX, StreamOptions(env=AZURE) if provider == "azure" else None)
    assert result.stop_reason == "stop", result.error_message
    path, header, value, _ = WIRE[model.api]
    request = seen[0]
    url = str(request.url).split("?")[0]
    assert url == expected_base(model, env) + path.format(id=model.id)
    assert request.headers[header] == value.format(key=key)
    if provider == "azure":
        assert request.url.params.get("api-version", "v1") == "v1"


async def test_azure_foundry_completions_use_the_deployment_name() -> None:
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return T.mock_sse_response(T.openai_completions_transcript([T.text("ok")]))

    env = {"AZURE_OPENAI_API_KEY": "k", **AZURE, "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "deepseek-v4-pro=my-ds"}
    models = builtin_models(
        credentials=InMemoryCredentialStore(),
        auth_context=DictAuthContext(env),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(reply)),
    )
    model = models.get_model("azure", "deepseek-v4-pro")
    assert model is not None and model.api == "openai-completions"
    from pi_app.ai.types import StreamOptions

    result = await models.complete(model, CTX, StreamOptions(env=env))
    assert result.stop_reason == "stop", result.error_message
    assert json.loads(seen[0].content)["model"] == "my-ds"
    assert str(seen[0].url) == "https://res.openai.azure.com/openai/v1/chat/completions"


async def test_cloudflare_without_account_id_is_not_configured() -> None:
    models = builtin_models(
        credentials=InMemoryCredentialStore(), auth_context=DictAuthContext({"CLOUDFLARE_API_KEY": "k"})
    )
    assert not (await models.check_auth("cloudflare-workers-ai"))["configured"]  # type: ignore[index]
    stored = InMemoryCredentialStore(
        {"cloudflare-workers-ai": {"type": "api_key", "key": "k", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc"}}}
    )
    models = builtin_models(credentials=stored, auth_context=DictAuthContext({}))
    available = await models.get_available("cloudflare-workers-ai")
    assert available, "a stored key with its env counts as configured"


async def test_auth_json_env_overrides_reach_the_request() -> None:
    """A stored credential's ``env`` (auth.json's per-provider overrides) configures the request:
    Azure's endpoint and deployment map, Cloudflare's account id in the base URL."""
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        api = "openai-completions" if request.url.path.endswith("/chat/completions") else "openai-responses"
        builder = (
            T.openai_completions_transcript if api == "openai-completions" else T.openai_responses_transcript
        )
        return T.mock_sse_response(builder([T.text("ok")]))

    stored = InMemoryCredentialStore(
        {
            "azure": {
                "type": "api_key",
                "key": "az-key",
                "env": {
                    "AZURE_OPENAI_BASE_URL": "https://stored.openai.azure.com",
                    "AZURE_OPENAI_API_VERSION": "2025-04-01-preview",
                },
            },
            "cloudflare-workers-ai": {
                "type": "api_key",
                "key": "cf-key",
                "env": {"CLOUDFLARE_ACCOUNT_ID": "acct-42"},
            },
        }
    )
    models = builtin_models(
        credentials=stored,
        auth_context=DictAuthContext({}),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(reply)),
    )
    azure = next(m for m in models.get_models("azure") if m.api == "azure-openai-responses")
    result = await models.complete(azure, CTX)
    assert result.stop_reason == "stop", result.error_message
    assert str(seen[-1].url).startswith("https://stored.openai.azure.com/openai/v1/responses")
    assert (
        seen[-1].url.params["api-version"] == "2025-04-01-preview" and seen[-1].headers["api-key"] == "az-key"
    )
    worker = models.get_models("cloudflare-workers-ai")[0]
    result = await models.complete(worker, CTX)
    assert result.stop_reason == "stop", result.error_message
    assert str(seen[-1].url).startswith("https://api.cloudflare.com/client/v4/accounts/acct-42/ai/v1/")
    assert seen[-1].headers["authorization"] == "Bearer cf-key"
