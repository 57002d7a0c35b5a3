"""The ``azure`` provider (pi 1.6.0's rename of ``azure-openai-responses``): Azure OpenAI and Foundry.

Responses models go through the ``azure-openai-responses`` adapter; Foundry's chat-completions
models (``openai-completions`` in the catalogue) through the plain completions adapter, sent to the
same Azure endpoint (``AZURE_OPENAI_BASE_URL`` or ``AZURE_OPENAI_RESOURCE_NAME``, from auth.json's
per-provider ``env`` or the environment) with the deployment name from
``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` as the request's model.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.models import error_stream
from pi_app.ai.providers.base import CatalogProvider, api_streams
from pi_app.ai.types import Context, Model

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions


class AzureCompletions:
    """Chat completions on an Azure endpoint: the base URL and deployment resolved per request."""

    def __init__(self) -> None:
        self.inner = api_streams("openai-completions")

    def _prepare(self, model: Model, options: StreamOptions | None) -> tuple[Model, Any] | str:
        from pi_app.ai.api.azure_openai_responses import MISSING_BASE_URL, azure_base_url, deployment_for

        base = azure_base_url(model, options)
        if not base:
            return MISSING_BASE_URL
        deployment = deployment_for(model, options)
        if deployment != model.id and options is not None:
            previous = options.on_payload

            async def rename(payload: dict[str, Any], payload_model: Model) -> dict[str, Any] | None:
                payload = {**payload, "model": deployment}
                if previous is None:
                    return payload
                result = previous(payload, payload_model)
                if inspect.isawaitable(result):
                    result = await result
                return result if result is not None else payload

            options = replace(options, on_payload=rename)
        return replace(model, base_url=base), options

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        prepared = self._prepare(model, options)
        if isinstance(prepared, str):
            return error_stream(model, prepared)
        return self.inner.stream(prepared[0], context, prepared[1])

    def stream_simple(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        prepared = self._prepare(model, options)
        if isinstance(prepared, str):
            return error_stream(model, prepared)
        return self.inner.stream_simple(prepared[0], context, prepared[1])


def azure_provider() -> CatalogProvider:
    return CatalogProvider(
        id="azure",
        name="Azure",
        auth=env_api_key_auth("Azure OpenAI API key", ["AZURE_OPENAI_API_KEY"]),
        api={
            "azure-openai-responses": api_streams("azure-openai-responses"),
            "openai-completions": AzureCompletions(),
        },
    )
