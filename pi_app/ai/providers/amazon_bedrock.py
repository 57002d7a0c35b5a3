"""The ``amazon-bedrock`` provider: models over Bedrock's Converse stream API.

Credentials come from the standard AWS chain, which the adapter resolves through ``botocore`` on
the first request (env keys, ``AWS_PROFILE`` and the shared config/credentials files, SSO cache,
container and web-identity roles); a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``, or one saved
with ``/login``) is sent as a bearer token instead of signing. Deciding whether the provider is
configured only looks at the environment and the profile files, as pi 1.6.0 does, so listing
models never imports ``botocore``.
"""

from __future__ import annotations

import os

from pi_app.ai.auth.helpers import ResolvingCheck
from pi_app.ai.auth.types import AuthContext, AuthInteraction, AuthResult, Credential, ProviderAuth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider

AMBIENT = (
    "AWS_PROFILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


class BedrockAuth(ResolvingCheck):
    name = "AWS credentials or Bedrock API key"
    missing_hint = "AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK"

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        stored_env = dict((credential or {}).get("env") or {})
        if credential and credential.get("key"):
            return AuthResult(auth={"apiKey": credential["key"]}, source="stored", env=stored_env or None)
        token = await ctx.env("AWS_BEARER_TOKEN_BEDROCK")
        if token:
            return AuthResult(
                auth={"apiKey": token}, source="AWS_BEARER_TOKEN_BEDROCK", env=stored_env or None
            )
        if stored_env.get("AWS_PROFILE"):
            return AuthResult(auth={}, source="AWS_PROFILE", env=stored_env)
        if await ctx.env("AWS_ACCESS_KEY_ID") and await ctx.env("AWS_SECRET_ACCESS_KEY"):
            return AuthResult(auth={}, source="AWS_ACCESS_KEY_ID", env=stored_env or None)
        for var in AMBIENT:
            if await ctx.env(var):
                return AuthResult(auth={}, source=var, env=stored_env or None)
        return None

    async def login(self, interaction: AuthInteraction) -> Credential:
        key = await interaction.prompt(
            {"type": "secret", "message": "Enter Bedrock API key (or leave empty to use an AWS profile)"}
        )
        if key:
            return {"type": "api_key", "key": key}
        profile = await interaction.prompt({"type": "text", "message": "Enter AWS profile name"})
        return {"type": "api_key", "key": "", "env": {"AWS_PROFILE": profile or "default"}}


def aws_region(env: dict[str, str] | None = None) -> str | None:
    """``AWS_REGION`` / ``AWS_DEFAULT_REGION`` from the request env, then the process env."""
    for var in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = (env or {}).get(var) or os.environ.get(var)
        if value:
            return value
    return None


def amazon_bedrock_provider() -> CatalogProvider:
    return catalog_provider("amazon-bedrock", "Amazon Bedrock", ProviderAuth(api_key=BedrockAuth()))
