"""What ``/login``, ``/logout`` and ``pi auth`` share: which providers take which sign-in, saving an
API key, removing stored credentials, and the model to pick after a first sign-in.

The API-key route offers every provider (built-in, models.json, extensions): the key is saved as
``{"type": "api_key", "key": ...}`` (plus ``env`` for a provider that needs more, e.g. Cloudflare's
account id) in ``auth.json`` (0600), where pi 1.6.0 keeps it; the next request resolves it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_app.ai.auth.types import AuthInteraction, Credential

if TYPE_CHECKING:
    from pi_app.ai.types import Model
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.settings import SettingsManager

# listed first and marked ✦ in /login, as pi 1.6.0 features them
FEATURED = ("radius", "openrouter")


@dataclass
class LoginProvider:
    id: str
    name: str
    configured: bool
    oauth_label: str | None = None  # set when the provider offers an account sign-in


async def login_providers(registry: ModelRegistry, *, api_key: bool) -> list[LoginProvider]:
    """Providers offering an API key (``api_key``) or an account sign-in: the featured ones first,
    then by display name."""
    out = []
    for provider in registry.models.get_providers():
        auth = getattr(provider, "auth", None)
        oauth = getattr(auth, "oauth", None)
        if api_key and getattr(auth, "api_key", None) is None:
            continue
        if not api_key and oauth is None:
            continue
        check = await registry.models.check_auth(provider.id)
        label = getattr(oauth, "login_label", None) if oauth is not None else None
        out.append(
            LoginProvider(
                id=provider.id,
                name=registry.get_provider_display_name(provider.id),
                configured=bool(check and check.get("configured")),
                oauth_label=label or (registry.get_provider_display_name(provider.id) if oauth else None),
            )
        )

    def order(p: LoginProvider) -> tuple[int, str]:
        return (FEATURED.index(p.id) if p.id in FEATURED else len(FEATURED), p.name.lower())

    return sorted(out, key=order)


async def save_api_key(registry: ModelRegistry, provider_id: str, interaction: AuthInteraction) -> Credential:
    """Ask for the key (and any other setting the provider needs) and store it in ``auth.json``."""
    credential = await registry.models.login(provider_id, "api_key", interaction)
    await registry.refresh()
    return credential


async def stored_credential_type(registry: ModelRegistry, provider_id: str) -> str | None:
    for info in await registry.credentials.list():
        if info.get("providerId") == provider_id:
            return str(info.get("type") or "api_key")
    return None


async def remove_credentials(registry: ModelRegistry, provider_id: str) -> str:
    """Delete the provider's stored credential; the one line to show."""
    name = registry.get_provider_display_name(provider_id)
    kind = await stored_credential_type(registry, provider_id)
    if kind is None:
        return (
            f"No stored credentials for {name}. Environment variables and models.json config are unchanged."
        )
    await registry.credentials.delete(provider_id)
    await registry.refresh()
    what = "API key" if kind == "api_key" else "credentials"
    return f"Removed stored {what} for {name}. Environment variables and models.json config are unchanged."


async def model_after_login(registry: ModelRegistry, provider_id: str) -> Model | None:
    """The provider's default model (1.6.0's per-provider default), else its first available one."""
    from pi_app.coding.models.resolver import DEFAULT_MODEL_PER_PROVIDER

    available = [m for m in await registry.get_available() if m.provider == provider_id]
    wanted = DEFAULT_MODEL_PER_PROVIDER.get(provider_id)
    for model in available:
        if model.id == wanted:
            return model
    return available[0] if available else None


def device_id(settings_manager: SettingsManager | None) -> str:
    """This installation's ``deviceId`` (agent settings), created on first use, as pi 1.6.0 keeps it
    for "Sign in with ChatGPT"."""
    import uuid

    if settings_manager is None:  # no session yet: an id for this sign-in only
        return str(uuid.uuid4())
    try:
        current = settings_manager.get_global_settings().get("deviceId")
    except Exception:
        current = None
    if isinstance(current, str) and current:
        return current
    created = str(uuid.uuid4())
    try:
        settings_manager.set("deviceId", created)
    except Exception:  # unwritable settings: the sign-in still works this time
        pass
    return created
