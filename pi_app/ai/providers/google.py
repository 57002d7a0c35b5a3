"""The ``google`` provider: Gemini over ``google-generative-ai`` with ``GEMINI_API_KEY``."""

from __future__ import annotations

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider


def google_provider() -> CatalogProvider:
    auth = env_api_key_auth("Gemini API key", ["GEMINI_API_KEY"])
    return catalog_provider(
        "google", "Google", auth, base_url="https://generativelanguage.googleapis.com/v1beta"
    )
