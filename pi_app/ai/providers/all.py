"""``builtin_providers()`` and ``builtin_models()``: every provider L1 ships (R-AI-42, R-AI-44).

Both return fresh objects on each call; the only I/O is the small catalogue manifest (which
providers exist). Model catalogues are read on the first ``get_models()``, adapters on the first stream, OAuth modules on the first login or refresh.
Gemini CLI OAuth is deliberately absent (00-index.md, decision D-44).
"""

from __future__ import annotations

from typing import Any

from pi_app.ai.models import MutableModels, create_models
from pi_app.ai.providers.amazon_bedrock import amazon_bedrock_provider
from pi_app.ai.providers.anthropic import anthropic_provider
from pi_app.ai.providers.azure import azure_provider
from pi_app.ai.providers.github_copilot import github_copilot_provider
from pi_app.ai.providers.google import google_provider
from pi_app.ai.providers.google_vertex import google_vertex_provider
from pi_app.ai.providers.key_providers import key_provider, key_provider_ids
from pi_app.ai.providers.openai import openai_codex_provider, openai_provider


def builtin_providers() -> list[Any]:
    return [
        anthropic_provider(),
        openai_provider(),
        google_provider(),
        google_vertex_provider(),
        amazon_bedrock_provider(),
        azure_provider(),
        *(key_provider(id) for id in key_provider_ids()),
        github_copilot_provider(),
        openai_codex_provider(),
    ]


def builtin_models(**create_models_kwargs: Any) -> MutableModels:
    models = create_models(**create_models_kwargs)
    for provider in builtin_providers():
        models.set_provider(provider)
    return models
