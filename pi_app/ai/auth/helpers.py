"""Ready-made ``ApiKeyAuth`` implementations."""

from __future__ import annotations

from collections.abc import Sequence

from pi_app.ai.auth.types import AuthCheck, AuthContext, AuthInteraction, AuthResult, Credential, ProviderAuth


class EnvApiKeyAuth:
    """Stored API key first, then the first non-empty env var (R-AI-48).

    ``required_env`` names other variables the provider cannot work without (Cloudflare's account
    id): each comes from the stored credential's ``env`` (auth.json's per-provider overrides) or the
    environment, and the provider counts as configured only when all are present. The credential's
    ``env`` travels with the result, so the request sees it (base URL placeholders, Azure settings).
    """

    def __init__(self, name: str, env_vars: Sequence[str], required_env: Sequence[str] = ()) -> None:
        self.name = name
        self.env_vars = list(env_vars)
        self.required_env = list(required_env)

    async def _extra_env(self, ctx: AuthContext, credential: Credential | None) -> dict[str, str] | None:
        stored = dict((credential or {}).get("env") or {})
        for var in self.required_env:
            if not stored.get(var):
                value = await ctx.env(var)
                if not value:
                    return None
                stored[var] = value
        return stored

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        env = await self._extra_env(ctx, credential)
        if env is None:
            return None
        if credential and credential.get("type") == "api_key" and credential.get("key"):
            return AuthResult(auth={"apiKey": credential["key"]}, source="stored", env=env or None)
        for var in self.env_vars:
            value = await ctx.env(var)
            if value:
                return AuthResult(auth={"apiKey": value}, source=var, env=env or None)
        return None

    async def login(self, interaction: AuthInteraction) -> Credential:
        key = await interaction.prompt({"type": "secret", "message": f"Enter {self.name}"})
        credential: Credential = {"type": "api_key", "key": key}
        if self.required_env:
            env = {}
            for var in self.required_env:
                env[var] = await interaction.prompt({"type": "text", "message": f"Enter {var}"})
            credential["env"] = env
        return credential

    async def check(self, ctx: AuthContext, credential: Credential | None) -> AuthCheck | None:
        if await self._extra_env(ctx, credential) is None:
            return {"configured": False}
        if credential and credential.get("type") == "api_key":
            return {"configured": True, "type": "api_key", "source": "stored"}
        for var in self.env_vars:
            if await ctx.env(var):
                return {"configured": True, "type": "api_key", "source": var}
        return {"configured": False}


class ResolvingCheck:
    """``check()`` for an auth whose ``resolve()`` reads only the environment and files (no I/O
    beyond that): configured exactly when it resolves (Bedrock's and Vertex's ambient credentials)."""

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        raise NotImplementedError

    async def check(self, ctx: AuthContext, credential: Credential | None) -> AuthCheck | None:
        result = await self.resolve(ctx=ctx, credential=credential)
        if result is None:
            return {"configured": False}
        return {"configured": True, "type": "api_key", "source": result.source}


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

    async def check(self, ctx: AuthContext, credential: Credential | None) -> AuthCheck | None:
        if credential and credential.get("type") == "api_key":
            return {"configured": True, "type": "api_key", "source": "stored"}
        return {"configured": bool(self.key), "type": "api_key", "source": self.source}


class NoAuth:
    """For local servers that need no key: resolves to an empty ``ModelAuth`` (R-AI-37)."""

    name = "none"

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        return AuthResult(auth={}, source="none")

    async def check(self, ctx: AuthContext, credential: Credential | None) -> AuthCheck | None:
        return {"configured": True, "source": "none"}


def env_api_key_auth(name: str, env_vars: Sequence[str], required_env: Sequence[str] = ()) -> ProviderAuth:
    return ProviderAuth(api_key=EnvApiKeyAuth(name, env_vars, required_env))


def static_api_key_auth(key: str | None, name: str = "API key", source: str = "models.json") -> ProviderAuth:
    return ProviderAuth(api_key=StaticApiKeyAuth(key, name, source))


def no_auth() -> ProviderAuth:
    return ProviderAuth(api_key=NoAuth())
