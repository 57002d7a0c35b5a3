"""The ``azure-openai-responses`` wire adapter (spec 10 §A.7.1).

Same body and events as ``openai-responses``, sent to the Azure v1 base URL with an ``api-key``
header and ``api-version`` query parameter; ``model`` is the deployment name
(``AZURE_OPENAI_DEPLOYMENT_NAME_MAP="model=deployment,…"``); no store/cache-retention fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_app.ai.api.openai_responses import OpenAIResponsesApi, responses_body
from pi_app.ai.api.shared import WireRequest, env_value, has_header, join_url, merge_headers
from pi_app.ai.types import Context, Model

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

API = "azure-openai-responses"
MISSING_BASE_URL = (
    "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
    "or configure baseUrl for the model."
)


AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")


def normalize_azure_base_url(base: str) -> str:
    """An Azure host given bare (or as ``/openai``, ``/openai/v1/responses``) gets ``/openai/v1``."""
    from urllib.parse import urlsplit, urlunsplit

    trimmed = base.strip().rstrip("/")
    parts = urlsplit(trimmed)
    host = parts.hostname or ""
    if host.endswith(AZURE_HOSTS) and parts.path.rstrip("/") in ("", "/openai", "/openai/v1/responses"):
        return urlunsplit((parts.scheme, parts.netloc, "/openai/v1", "", ""))
    return trimmed


def azure_base_url(model: Model, options: StreamOptions | None) -> str:
    explicit = env_value(options, "AZURE_OPENAI_BASE_URL")
    if explicit:
        return normalize_azure_base_url(explicit)
    resource = env_value(options, "AZURE_OPENAI_RESOURCE_NAME")
    if resource:
        return f"https://{resource}.openai.azure.com/openai/v1"
    return normalize_azure_base_url(model.base_url or "") if model.base_url else ""


def deployment_for(model: Model, options: StreamOptions | None) -> str:
    mapping = env_value(options, "AZURE_OPENAI_DEPLOYMENT_NAME_MAP") or ""
    for pair in mapping.split(","):
        name, sep, deployment = pair.partition("=")
        if sep and name.strip() == model.id and deployment.strip():
            return deployment.strip()
    return model.id


class AzureOpenAIResponsesApi(OpenAIResponsesApi):
    api = API

    def build_request(self, model: Model, context: Context, options: StreamOptions) -> WireRequest:
        base = azure_base_url(model, options)
        if not base:
            raise ValueError(MISSING_BASE_URL)
        supplied = merge_headers(model.headers, options.headers)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if options.api_key and not has_header(supplied, "api-key"):
            headers["api-key"] = options.api_key
        headers = merge_headers(headers, supplied)
        body = responses_body(model, context, options, caching=False)
        body.pop("store", None)
        body["model"] = deployment_for(model, options)
        version = env_value(options, "AZURE_OPENAI_API_VERSION") or "v1"
        return WireRequest(
            url=join_url(base, "/responses"), headers=headers, body=body, params={"api-version": version}
        )


def azure_openai_responses_api() -> AzureOpenAIResponsesApi:
    return AzureOpenAIResponsesApi()
