"""The ``openai`` provider (Responses API, ``OPENAI_API_KEY`` or "Sign in with ChatGPT") and
``openai-codex`` (ChatGPT Plus/Pro OAuth to the Codex backend)."""

from __future__ import annotations

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.auth.lazy_oauth import LazyOAuth
from pi_app.ai.auth.types import ProviderAuth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider


def openai_provider() -> CatalogProvider:
    auth = env_api_key_auth("OpenAI API key", ["OPENAI_API_KEY"])
    auth.oauth = LazyOAuth(
        "pi_app.ai.auth.oauth.openai_chatgpt",
        "openai_chatgpt_oauth",
        "OpenAI (ChatGPT subscription)",
        "Sign in with ChatGPT",
    )
    return catalog_provider("openai", "OpenAI", auth, base_url="https://api.openai.com/v1")


def openai_codex_provider() -> CatalogProvider:
    oauth = LazyOAuth(
        "pi_app.ai.auth.oauth.openai_codex",
        "openai_codex_oauth",
        "OpenAI (ChatGPT Plus/Pro)",
        "ChatGPT Plus/Pro (Codex)",
    )
    return catalog_provider(
        "openai-codex", "OpenAI Codex", ProviderAuth(oauth=oauth), base_url="https://chatgpt.com/backend-api"
    )
