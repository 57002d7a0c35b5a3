"""Authentication contracts of L1: credential shapes, stores, provider auth and resolution.

Persistence is an interface (``CredentialStore``); the file-backed store lives in L3
(``pi_app.coding.auth_storage``). OAuth flows live in ``pi_app.ai.auth.oauth`` and load lazily.
"""

from pi_app.ai.auth.helpers import env_api_key_auth, no_auth, static_api_key_auth
from pi_app.ai.auth.memory_store import InMemoryCredentialStore
from pi_app.ai.auth.resolve import ModelsError, resolve_provider_auth
from pi_app.ai.auth.types import (
    ApiKeyAuth,
    AuthContext,
    AuthInteraction,
    AuthResult,
    CredentialStore,
    DictAuthContext,
    EnvAuthContext,
    OAuthAuth,
    ProviderAuth,
)

__all__ = [
    "ApiKeyAuth",
    "AuthContext",
    "AuthInteraction",
    "AuthResult",
    "CredentialStore",
    "DictAuthContext",
    "EnvAuthContext",
    "InMemoryCredentialStore",
    "ModelsError",
    "OAuthAuth",
    "ProviderAuth",
    "env_api_key_auth",
    "no_auth",
    "resolve_provider_auth",
    "static_api_key_auth",
]
