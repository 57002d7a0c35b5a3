"""``LazyOAuth``: an ``OAuthAuth`` whose implementation module is imported on first use (R-AI-03).

The display name and login label are known up front (for a ``/login`` picker); the module with the
real flow is imported by the first ``login``, ``refresh`` or ``to_auth`` call.
"""

from __future__ import annotations

import importlib
from typing import Any

from pi_app.ai.auth.types import AuthInteraction, Credential, ModelAuth
from pi_app.ai.event_stream import AbortSignal


class LazyOAuth:
    def __init__(self, module: str, factory: str, name: str, login_label: str | None = None) -> None:
        self.module = module
        self.factory = factory
        self.name = name
        self.login_label = login_label or name
        self._impl: Any = None

    def load(self) -> Any:
        if self._impl is None:
            self._impl = getattr(importlib.import_module(self.module), self.factory)()
        return self._impl

    async def login(self, interaction: AuthInteraction) -> Credential:
        return await self.load().login(interaction)

    async def refresh(self, credential: Credential, signal: AbortSignal | None = None) -> Credential:
        return await self.load().refresh(credential, signal)

    async def to_auth(self, credential: Credential) -> ModelAuth:
        return await self.load().to_auth(credential)
