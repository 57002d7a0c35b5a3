"""Building a built-in provider from its catalogue file, an auth and its wire APIs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_app.ai.auth.types import ProviderAuth
from pi_app.ai.catalog.loader import load_catalog
from pi_app.ai.models import BasicProvider, LazyApi, lazy_stream
from pi_app.ai.types import Model

# api id -> (module, factory) of its adapter; imported on the first stream (R-AI-03)
ADAPTERS: dict[str, tuple[str, str]] = {
    "anthropic-messages": ("pi_app.ai.api.anthropic_messages", "anthropic_messages_api"),
    "openai-completions": ("pi_app.ai.api.openai_completions", "openai_completions_api"),
    "openai-responses": ("pi_app.ai.api.openai_responses", "openai_responses_api"),
    "azure-openai-responses": ("pi_app.ai.api.azure_openai_responses", "azure_openai_responses_api"),
    "openai-codex-responses": ("pi_app.ai.api.openai_codex_responses", "openai_codex_responses_api"),
    "google-generative-ai": ("pi_app.ai.api.google_generative_ai", "google_generative_ai_api"),
    "bedrock-converse-stream": ("pi_app.ai.api.bedrock_converse_stream", "bedrock_converse_stream_api"),
    "google-vertex": ("pi_app.ai.api.google_vertex", "google_vertex_api"),
    "pi-messages": ("pi_app.ai.api.pi_messages", "pi_messages_api"),
}


def api_streams(api: str) -> LazyApi:
    module, factory = ADAPTERS[api]
    return lazy_stream(module, factory)


def all_api_streams(apis: Sequence[str] | None = None) -> dict[str, LazyApi]:
    return {api: api_streams(api) for api in (apis or ADAPTERS)}


@dataclass
class CatalogProvider(BasicProvider):
    """A ``BasicProvider`` whose static models come from the catalogue, read on first use (R-AI-42)."""

    catalog_id: str = ""
    _catalog_loaded: bool = False

    def get_models(self) -> Sequence[Model]:
        if not self._catalog_loaded:
            self._catalog_loaded = True
            self.models = [*load_catalog(self.catalog_id or self.id), *self.models]
        return super().get_models()


def catalog_provider(
    id: str,
    name: str,
    auth: ProviderAuth,
    base_url: str | None = None,
    headers: dict[str, str] | None = None,
) -> CatalogProvider:
    """A provider serving its catalogue models; each model routes to its own API's adapter."""
    return CatalogProvider(
        id=id, name=name, base_url=base_url, headers=headers, auth=auth, api=all_api_streams()
    )
