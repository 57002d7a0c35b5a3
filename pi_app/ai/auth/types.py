"""Credential shapes and the auth protocols (spec 10 §2.12).

Credentials are plain dicts in pi's ``auth.json`` shape:
``{"type": "api_key", "key": ...}`` or ``{"type": "oauth", "access", "refresh", "expires", ...}``.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

from pi_app.ai.event_stream import AbortSignal

Credential: TypeAlias = dict[str, Any]
CredentialInfo: TypeAlias = dict[str, Any]  # {"providerId", "type", "expires"?}; never secrets
ModelAuth: TypeAlias = dict[str, Any]  # {"apiKey"?, "headers"?, "baseUrl"?}
AuthCheck: TypeAlias = dict[str, Any]  # {"configured", "type"?, "source"?, "expired"?}
AuthPrompt: TypeAlias = dict[str, Any]
AuthEvent: TypeAlias = dict[str, Any]


@dataclass
class AuthResult:
    """Resolved credentials for a request, and where they came from."""

    auth: ModelAuth
    source: str
    env: dict[str, str] | None = None  # settings for the request (auth.json's per-provider ``env``)


@runtime_checkable
class CredentialStore(Protocol):
    async def read(self, provider_id: str) -> Credential | None: ...

    async def list(self) -> Sequence[CredentialInfo]: ...

    async def modify(
        self, provider_id: str, fn: Callable[[Credential | None], Awaitable[Credential | None]]
    ) -> Credential | None: ...

    async def delete(self, provider_id: str) -> None: ...


class AuthContext(Protocol):
    async def env(self, name: str) -> str | None: ...

    async def file_exists(self, path: str) -> bool: ...


class EnvAuthContext:
    """The default context: the process environment, optionally shadowed per request."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self._overrides = dict(overrides or {})

    async def env(self, name: str) -> str | None:
        if name in self._overrides:
            return self._overrides[name]
        return os.environ.get(name)

    async def file_exists(self, path: str) -> bool:
        return os.path.exists(path)


class DictAuthContext:
    """A context backed by a dict, for tests (no test touches the real environment)."""

    def __init__(self, env: Mapping[str, str] | None = None, files: Sequence[str] = ()) -> None:
        self._env = dict(env or {})
        self._files = set(files)

    async def env(self, name: str) -> str | None:
        return self._env.get(name)

    async def file_exists(self, path: str) -> bool:
        return path in self._files


class _OverlayAuthContext:
    """Per-request ``options.env`` entries shadow the base context."""

    def __init__(self, base: AuthContext, overrides: Mapping[str, str]) -> None:
        self._base = base
        self._overrides = overrides

    async def env(self, name: str) -> str | None:
        if name in self._overrides:
            return self._overrides[name]
        return await self._base.env(name)

    async def file_exists(self, path: str) -> bool:
        return await self._base.file_exists(path)


def overlay_context(base: AuthContext, overrides: Mapping[str, str] | None) -> AuthContext:
    return _OverlayAuthContext(base, overrides) if overrides else base


class AuthInteraction(Protocol):
    signal: AbortSignal | None

    async def prompt(self, p: AuthPrompt) -> str: ...

    def notify(self, e: AuthEvent) -> None: ...


class ApiKeyAuth(Protocol):
    name: str

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None: ...


class OAuthAuth(Protocol):
    name: str
    login_label: str | None

    async def login(self, interaction: AuthInteraction) -> Credential: ...

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential: ...

    async def to_auth(self, credential: Credential) -> ModelAuth: ...


@dataclass
class ProviderAuth:
    """At least one of ``api_key`` / ``oauth``."""

    api_key: Any = None
    oauth: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
