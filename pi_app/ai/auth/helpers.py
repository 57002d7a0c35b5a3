"""Ready-made ``ApiKeyAuth`` implementations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_app.ai.auth.types import AuthCheck, AuthContext, AuthInteraction, AuthResult, Credential, ProviderAuth


class EnvApiKeyAuth:
    """Stored API key first, then the first non-empty env var (R-AI-48)."""

    def __init__(self, name: str, env_vars: Sequence[str]) -> None:
        self.name = name
        self.env_vars = list(env_vars)

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        if credential and credential.get("type") == "api_key" and credential.get("key"):
            return AuthResult(auth={"apiKey": credential["key"]}, source="stored")
        for var in self.env_vars:
            value = await ctx.env(var)
            if value:
                return AuthResult(auth={"apiKey": value}, source=var)
        return None

    async def login(self, interaction: AuthInteraction) -> Credential:
        key = await interaction.prompt({"type": "secret", "message": f"Enter {self.name}"})
        return {"type": "api_key", "key": key}

    async def check(self, ctx: AuthContext, credential: Any) -> AuthCheck | None:
        if credential and credential.get("type") == "api_key":
            return {"configured": True, "type": "api_key", "source": "stored"}
        for var in self.env_vars:
            if await ctx.env(var):
                return {"configured": True, "type": "api_key", "source": var}
        return {"configured": False}


class StaticApiKeyAuth:
    """A fixed key (already resolved by the caller, e.g. from ``models.json``)."""

    def __init__(self, key: str | None, name: str = "API key", source: str = "models.json") -> None:
        self.name = name
        self.key = key
        self.source = source

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        if credential and credential.get("type") == "api_key" and credential.get("key"):
            return AuthResult(auth={"apiKey": credential["key"]}, source="stored")
        if self.key:
            return AuthResult(auth={"apiKey": self.key}, source=self.source)
        return None

    async def check(self, ctx: AuthContext, credential: Any) -> AuthCheck | None:
        if credential and credential.get("type") == "api_key":
            return {"configured": True, "type": "api_key", "source": "stored"}
        return {"configured": bool(self.key), "type": "api_key", "source": self.source}


class NoAuth:
    """For local servers that need no key: resolves to an empty ``ModelAuth`` (R-AI-37)."""

    name = "none"

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        return AuthResult(auth={}, source="none")

    async def check(self, ctx: AuthContext, credential: Any) -> AuthCheck | None:
        return {"configured": True, "source": "none"}


def env_api_key_auth(name: str, env_vars: Sequence[str]) -> ProviderAuth:
    return ProviderAuth(api_key=EnvApiKeyAuth(name, env_vars))


def static_api_key_auth(key: str | None, name: str = "API key", source: str = "models.json") -> ProviderAuth:
    return ProviderAuth(api_key=StaticApiKeyAuth(key, name, source))


def no_auth() -> ProviderAuth:
    return ProviderAuth(api_key=NoAuth())
