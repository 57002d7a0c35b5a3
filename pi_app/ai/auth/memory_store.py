"""``InMemoryCredentialStore``: a ``CredentialStore`` for tests and embedding."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Sequence

from pi_app.ai.auth.types import Credential, CredentialInfo


class InMemoryCredentialStore:
    def __init__(self, initial: dict[str, Credential] | None = None) -> None:
        self._data: dict[str, Credential] = copy.deepcopy(initial or {})
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, provider_id: str) -> asyncio.Lock:
        lock = self._locks.get(provider_id)
        if lock is None:
            lock = self._locks[provider_id] = asyncio.Lock()
        return lock

    async def read(self, provider_id: str) -> Credential | None:
        value = self._data.get(provider_id)
        return copy.deepcopy(value) if value is not None else None

    async def list(self) -> Sequence[CredentialInfo]:
        out: list[CredentialInfo] = []
        for provider_id, cred in self._data.items():
            info: CredentialInfo = {"providerId": provider_id, "type": cred.get("type", "api_key")}
            if "expires" in cred:
                info["expires"] = cred["expires"]
            out.append(info)
        return out

    async def modify(
        self, provider_id: str, fn: Callable[[Credential | None], Awaitable[Credential | None]]
    ) -> Credential | None:
        async with self._lock(provider_id):
            current = copy.deepcopy(self._data.get(provider_id))
            new = await fn(current)
            if new is not None:
                self._data[provider_id] = copy.deepcopy(new)
            value = self._data.get(provider_id)
            return copy.deepcopy(value) if value is not None else None

    async def delete(self, provider_id: str) -> None:
        async with self._lock(provider_id):
            self._data.pop(provider_id, None)
