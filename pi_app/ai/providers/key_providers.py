"""Built-in providers that are pure data: an API key from env vars and an existing wire API (R-AI-44).

Every provider in the catalogue manifest (``pi_app/ai/catalog/manifest.json``: display name, key
variables, other required variables) that has no module of its own in ``CODE_PROVIDERS`` is built
here; each model routes to its own wire API's adapter, with the base URL, compat flags and headers
from its catalogue entry. Adding another such provider is one entry in the catalogue generator
(R-AI-43).
"""

from __future__ import annotations

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.auth.lazy_oauth import LazyOAuth
from pi_app.ai.catalog.loader import catalog_provider_entry, catalog_provider_ids
from pi_app.ai.providers.base import CatalogProvider, catalog_provider

# providers with their own module (OAuth, signing, special auth)
CODE_PROVIDERS = frozenset(
    {
        "anthropic",
        "openai",
        "google",
        "github-copilot",
        "openai-codex",
        "amazon-bedrock",
        "google-vertex",
        "azure",
    }
)


# providers that also offer an account sign-in: id -> (module, factory, name, /login label)
ACCOUNT_LOGINS: dict[str, tuple[str, str, str, str]] = {
    "xai": (
        "pi_app.ai.auth.oauth.xai",
        "xai_oauth",
        "xAI (Grok/X subscription)",
        "Sign in with SuperGrok or X Premium",
    ),
    "kimi-coding": (
        "pi_app.ai.auth.oauth.xai",
        "kimi_code_oauth",
        "Kimi Code (subscription)",
        "Sign in with Kimi Code",
    ),
    "radius": ("pi_app.ai.auth.oauth.xai", "radius_oauth", "Radius", "Sign in with Radius"),
    "meta": ("pi_app.ai.auth.oauth.xai", "meta_oauth", "Meta (Muse subscription)", "Sign in with Meta"),
    "openrouter": (
        "pi_app.ai.auth.oauth.openrouter",
        "openrouter_oauth",
        "OpenRouter OAuth",
        "Sign in with OpenRouter",
    ),
}


def key_provider_ids() -> list[str]:
    return [id for id in catalog_provider_ids() if id not in CODE_PROVIDERS]


def key_provider(id: str) -> CatalogProvider:
    entry = catalog_provider_entry(id) or {}
    name = str(entry.get("name") or id)
    auth = env_api_key_auth(f"{name} API key", entry.get("env") or [], entry.get("requiredEnv") or [])
    if id in ACCOUNT_LOGINS:
        auth.oauth = LazyOAuth(*ACCOUNT_LOGINS[id])
    return catalog_provider(id, name, auth)
