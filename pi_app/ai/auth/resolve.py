"""``ModelsError`` and ``resolve_provider_auth`` (R-AI-45, R-AI-46, R-AI-55)."""

from __future__ import annotations

from typing import Any, Literal

from pi_app.ai.auth.types import AuthContext, AuthResult, CredentialStore
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import now_ms

ModelsErrorCode = Literal["oauth", "auth", "provider", "stream", "model_source", "model_validation"]


class ModelsError(Exception):
    """An error of the ``Models`` collection; ``str(error)`` is shown to the user as is."""

    def __init__(self, code: ModelsErrorCode, message: str, cause: BaseException | None = None) -> None:
        cause_text = str(cause) if cause is not None else ""
        text = message if not cause_text or cause_text in message else f"{message}: {cause_text}"
        super().__init__(text)
        self.code = code
        self.cause = cause


async def resolve_provider_auth(
    provider: Any,
    store: CredentialStore,
    ctx: AuthContext,
    overrides: dict[str, Any] | None = None,
    signal: AbortSignal | None = None,
) -> AuthResult | None:
    if overrides and overrides.get("api_key"):
        return AuthResult(auth={"apiKey": overrides["api_key"]}, source="override")
    auth = provider.auth
    cred = await store.read(provider.id)
    if cred and cred.get("type") == "oauth" and auth.oauth is not None:
        oauth = auth.oauth
        if now_ms() < int(cred.get("expires") or 0):
            return AuthResult(auth=await oauth.to_auth(cred), source="OAuth")

        async def refresh(current: dict[str, Any] | None) -> dict[str, Any] | None:
            if not current or current.get("type") != "oauth":
                return None
            if now_ms() < int(current.get("expires") or 0):
                return None
            try:
                fresh = await oauth.refresh(current, signal)
            except Exception as exc:  # a failed refresh is loud, never a silent fallback
                raise ModelsError("oauth", f"OAuth refresh failed for {provider.id}", exc) from exc
            return {**fresh, "type": "oauth"}

        post = await store.modify(provider.id, refresh)
        if not post or post.get("type") != "oauth":
            return None
        return AuthResult(auth=await oauth.to_auth(post), source="OAuth")
    if auth.api_key is not None:
        api_cred = cred if cred and cred.get("type") == "api_key" else None
        return await auth.api_key.resolve(ctx=ctx, credential=api_cred)
    return None
