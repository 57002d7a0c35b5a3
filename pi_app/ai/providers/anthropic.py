"""The ``anthropic`` provider: Claude over ``anthropic-messages``; API key or Claude Pro/Max OAuth.

Key lookup order (R-AI-44, R-AI-56): stored key, ``ANTHROPIC_OAUTH_TOKEN``, ``ANTHROPIC_API_KEY``,
``ANTHROPIC_AUTH_TOKEN``. A key from ``ANTHROPIC_AUTH_TOKEN`` is a plain gateway bearer token: it is
sent as ``Authorization: Bearer`` without the Claude Code identity. The adapter recognises
subscription tokens (``sk-ant-oat``) by their text, whatever their source.
"""

from __future__ import annotations

from typing import Any

from pi_app.ai.auth.helpers import EnvApiKeyAuth
from pi_app.ai.auth.lazy_oauth import LazyOAuth
from pi_app.ai.auth.types import AuthContext, AuthResult, Credential, ProviderAuth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider

ENV_VARS = ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


class AnthropicApiKeyAuth(EnvApiKeyAuth):
    missing_hint = "ANTHROPIC_API_KEY"

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        result = await super().resolve(ctx=ctx, credential=credential)
        if result is not None and result.source == "ANTHROPIC_AUTH_TOKEN":
            key = result.auth["apiKey"]
            return AuthResult(
                auth={"apiKey": key, "headers": {"Authorization": f"Bearer {key}"}}, source=result.source
            )
        return result


def anthropic_oauth() -> Any:
    return LazyOAuth(
        "pi_app.ai.auth.oauth.anthropic",
        "anthropic_oauth",
        "Anthropic (Claude Pro/Max)",
        "Anthropic (Claude Pro/Max)",
    )


def anthropic_provider() -> CatalogProvider:
    auth = ProviderAuth(api_key=AnthropicApiKeyAuth("Anthropic API key", ENV_VARS), oauth=anthropic_oauth())
    return catalog_provider("anthropic", "Anthropic", auth, base_url="https://api.anthropic.com")
