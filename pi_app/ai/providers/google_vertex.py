"""The ``google-vertex`` provider: Gemini on Vertex AI.

Auth is ``GOOGLE_CLOUD_API_KEY`` (or a key saved with ``/login``), else Application Default
Credentials through ``google-auth``, which the adapter imports on the first request. Whether ADC is
configured is decided without importing it, as pi 1.6.0 does: the credentials file
(``GOOGLE_APPLICATION_CREDENTIALS`` or gcloud's ``application_default_credentials.json``) exists
and a project (``GOOGLE_CLOUD_PROJECT``/``GCLOUD_PROJECT``) and ``GOOGLE_CLOUD_LOCATION`` are set.
"""

from __future__ import annotations

import os

from pi_app.ai.auth.helpers import ResolvingCheck
from pi_app.ai.auth.types import AuthContext, AuthInteraction, AuthResult, Credential, ProviderAuth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider

ADC_SOURCE = "Application Default Credentials"


def adc_file(env_value: str | None) -> str:
    if env_value:
        return env_value
    return os.path.join(os.path.expanduser("~"), ".config", "gcloud", "application_default_credentials.json")


class VertexAuth(ResolvingCheck):
    name = "Google Cloud API key"
    missing_hint = (
        "GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application Default"
        " Credentials (gcloud auth application-default login)"
    )

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        stored_env = dict((credential or {}).get("env") or {})
        if credential and credential.get("key"):
            return AuthResult(auth={"apiKey": credential["key"]}, source="stored", env=stored_env or None)
        key = await ctx.env("GOOGLE_CLOUD_API_KEY")
        if key:
            return AuthResult(auth={"apiKey": key}, source="GOOGLE_CLOUD_API_KEY", env=stored_env or None)

        async def value(name: str) -> str | None:
            return stored_env.get(name) or await ctx.env(name)

        project = await value("GOOGLE_CLOUD_PROJECT") or await value("GCLOUD_PROJECT")
        location = await value("GOOGLE_CLOUD_LOCATION")
        path = adc_file(await value("GOOGLE_APPLICATION_CREDENTIALS"))
        if project and location and await ctx.file_exists(path):
            return AuthResult(auth={}, source=ADC_SOURCE, env=stored_env or None)
        return None

    async def login(self, interaction: AuthInteraction) -> Credential:
        key = await interaction.prompt({"type": "secret", "message": "Enter Google Cloud API key"})
        return {"type": "api_key", "key": key}


def google_vertex_provider() -> CatalogProvider:
    return catalog_provider("google-vertex", "Google Vertex AI", ProviderAuth(api_key=VertexAuth()))
