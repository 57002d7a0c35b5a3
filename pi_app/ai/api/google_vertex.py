"""The ``google-vertex`` wire adapter: Gemini on Vertex AI (issue 23).

The body and the SSE reply are the Gemini API's (``google_generative_ai``); what differs is where
the request goes and how it is authorised:

- With an API key (``GOOGLE_CLOUD_API_KEY`` or one saved with ``/login``): Vertex's express
  endpoint ``https://aiplatform.googleapis.com/v1/publishers/google/models/<id>:streamGenerateContent``
  with ``x-goog-api-key``.
- Otherwise Application Default Credentials through ``google-auth`` (imported here only, on the
  first request; without it one line says what to install): ``google.auth.default()`` finds the
  credentials (``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's ADC file, the metadata server), an
  access token is fetched (and refreshed when it expires) and sent as ``Authorization: Bearer``, to
  ``https://<location>-aiplatform.googleapis.com/v1/projects/<project>/locations/<location>/
  publishers/google/models/<id>:streamGenerateContent`` (``global``: no location prefix). The
  project is ``GOOGLE_CLOUD_PROJECT``/``GCLOUD_PROJECT`` or the credentials' own; the location
  ``GOOGLE_CLOUD_LOCATION``.

A base URL without ``{location}`` (models.json, a proxy) replaces the host part; ``/v1`` is added
unless the URL already names an API version.
"""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_app.ai.api.google_generative_ai import GoogleGenerativeAiApi
from pi_app.ai.api.shared import StreamFailure, WireRequest, env_value
from pi_app.ai.types import Model

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

API = "google-vertex"
INSTALL_HINT = "Google Vertex AI needs google-auth: pip install 'pi-app[vertex]'"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
_VERSIONED = re.compile(r"(?:^|/)v\d+(?:beta\d*)?(?:/|$)")
_PLACEHOLDER_KEY = re.compile(r"^<[^>]+>$")

_cached: dict[str, Any] = {}
_lock = threading.Lock()


def _host(model: Model, location: str | None) -> str:
    base = (model.base_url or "").strip().rstrip("/")
    if base and "{location}" not in base:
        return base if _VERSIONED.search(base.split("://", 1)[-1]) else base + "/v1"
    if not location or location == "global":
        return "https://aiplatform.googleapis.com/v1"
    return f"https://{location}-aiplatform.googleapis.com/v1"


def adc_token(options: StreamOptions) -> tuple[str, str | None]:
    """(access token, the credentials' project) from Application Default Credentials; blocking."""
    try:
        import google.auth
        import google.auth.transport.requests
    except ImportError:
        raise StreamFailure(INSTALL_HINT) from None
    with _lock:
        entry = _cached.get("adc")
        if entry is None:
            try:
                credentials, project = google.auth.default(scopes=SCOPES)
            except Exception as exc:  # DefaultCredentialsError and friends: one line
                raise StreamFailure(f"Google Application Default Credentials: {exc}") from None
            entry = _cached["adc"] = (credentials, project)
        credentials, project = entry
        if not credentials.valid:
            try:
                credentials.refresh(google.auth.transport.requests.Request())
            except Exception as exc:
                raise StreamFailure(
                    f"Google Application Default Credentials: refresh failed: {exc}"
                ) from None
        return str(credentials.token), project


def reset_adc_cache() -> None:
    with _lock:
        _cached.clear()


class GoogleVertexApi(GoogleGenerativeAiApi):
    api = API

    async def authorize(
        self, request: WireRequest, body: bytes, model: Model, options: StreamOptions
    ) -> WireRequest:
        path = f"/publishers/google/models/{model.id}:streamGenerateContent"
        headers = {k: v for k, v in request.headers.items() if k.lower() != "x-goog-api-key"}
        key = (options.api_key or "").strip()
        if key and not _PLACEHOLDER_KEY.match(key):
            headers["x-goog-api-key"] = key
            return replace(request, url=_host(model, None) + path, headers=headers)
        token, adc_project = await asyncio.to_thread(adc_token, options)
        project = (
            env_value(options, "GOOGLE_CLOUD_PROJECT") or env_value(options, "GCLOUD_PROJECT") or adc_project
        )
        if not project:
            raise StreamFailure(
                "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT or GCLOUD_PROJECT."
            )
        location = env_value(options, "GOOGLE_CLOUD_LOCATION")
        if not location:
            raise StreamFailure("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION.")
        headers["Authorization"] = f"Bearer {token}"
        url = _host(model, location) + f"/projects/{project}/locations/{location}" + path
        return replace(request, url=url, headers=headers)


def google_vertex_api() -> GoogleVertexApi:
    return GoogleVertexApi()
