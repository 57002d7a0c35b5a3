"""``AuthStorage``: the ``auth.json`` credential store (decisions D-7, D-25; spec 10 R-AI-54).

Implements L1's ``CredentialStore`` over ``<agentDir>/auth.json`` in pi 0.73.1's shape::

    {"anthropic": {"type": "oauth", "access": "…", "refresh": "…", "expires": 1700000000000},
     "openai": {"type": "api_key", "key": "sk-…" | "!op read …" | "OPENAI_KEY_VAR"}}

- ``read()`` resolves a stored key's value syntax (``!command``, ``$VAR``/``${VAR}``, an env-var
  name, else the literal) through ``resolve_value``; ``list()`` never resolves, runs or exposes
  anything; ``modify``'s callback sees the raw stored value.
- Every write happens under the cross-process lock ``auth.json.lock`` (kept fresh while held, so a
  slow OAuth refresh is not mistaken for a crashed holder), re-reads the file, changes one provider
  and replaces the file atomically: mode 0600 in a 0700 directory.
- A file that exists but cannot be parsed is never overwritten: reads see no credentials, writes
  fail with a one-line error naming the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pi_app.ai.auth.types import Credential, CredentialInfo
from pi_app.coding.filelock import atomic_write, file_lock
from pi_app.coding.paths import auth_path
from pi_app.coding.resolve_value import resolve_value_async

LOCK_REFRESH_S = 2.0


class AuthFileError(Exception):
    """``auth.json`` exists but is not valid; the message is shown to the user as is."""


class AuthStorage:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else auth_path()
        self._locks: dict[str, asyncio.Lock] = {}
        self.error: str | None = None

    # -- file access (blocking; always called through a thread) --------------------------------

    def _load(self) -> dict[str, Any]:
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            self.error = None
            return {}
        except OSError as exc:
            self.error = f"Cannot read {self.path}: {exc.strerror or exc}"
            raise AuthFileError(self.error) from None
        except UnicodeDecodeError as exc:
            self.error = f"Invalid {self.path}: not valid UTF-8 ({exc.reason} at byte {exc.start})"
            raise AuthFileError(self.error) from None
        try:
            data = json.loads(text) if text.strip() else {}
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
            self.error = f"Invalid JSON in {self.path}: {exc}"
            raise AuthFileError(self.error) from None
        if not isinstance(data, dict):
            self.error = f"Invalid {self.path}: expected a JSON object"
            raise AuthFileError(self.error)
        self.error = None
        return data

    def _load_quietly(self) -> dict[str, Any]:
        try:
            return self._load()
        except AuthFileError:
            return {}

    def _save(self, data: dict[str, Any]) -> None:
        directory = self.path.parent
        if not directory.exists():
            directory.mkdir(parents=True, mode=0o700, exist_ok=True)
            with contextlib.suppress(OSError):
                os.chmod(directory, 0o700)
        atomic_write(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)

    # -- CredentialStore ------------------------------------------------------------------------

    async def read(self, provider_id: str) -> Credential | None:
        data = await asyncio.to_thread(self._load_quietly)
        entry = data.get(provider_id)
        if not isinstance(entry, dict):
            return None
        credential = copy.deepcopy(entry)
        if credential.get("type") == "api_key" and isinstance(credential.get("key"), str):
            credential["key"] = await resolve_value_async(credential["key"]) or ""
        return credential

    async def list(self) -> Sequence[CredentialInfo]:
        data = await asyncio.to_thread(self._load_quietly)
        out: list[CredentialInfo] = []
        for provider_id, entry in data.items():
            if not isinstance(entry, dict):
                continue
            info: CredentialInfo = {"providerId": provider_id, "type": entry.get("type", "api_key")}
            if isinstance(entry.get("expires"), int | float):
                info["expires"] = int(entry["expires"])
            out.append(info)
        return out

    async def modify(
        self, provider_id: str, fn: Callable[[Credential | None], Awaitable[Credential | None]]
    ) -> Credential | None:
        async with self._lock(provider_id):
            async with self._file_lock():
                data = await asyncio.to_thread(self._load)
                current = data.get(provider_id)
                new = await fn(copy.deepcopy(current) if isinstance(current, dict) else None)
                if new is None:
                    return copy.deepcopy(current) if isinstance(current, dict) else None
                data = await asyncio.to_thread(self._load)  # merge with writes made meanwhile
                data[provider_id] = copy.deepcopy(new)
                await asyncio.to_thread(self._save, data)
                return copy.deepcopy(new)

    async def delete(self, provider_id: str) -> None:
        async with self._lock(provider_id):
            async with self._file_lock():
                data = await asyncio.to_thread(self._load)
                if provider_id in data:
                    del data[provider_id]
                    await asyncio.to_thread(self._save, data)

    # -- helpers --------------------------------------------------------------------------------

    def load_error(self) -> str | None:
        """Why ``auth.json`` cannot be used (one line naming the file), or None when it is fine."""
        self._load_quietly()
        return self.error

    def has_credentials(self, provider_id: str) -> bool:
        return isinstance(self._load_quietly().get(provider_id), dict)

    def _lock(self, provider_id: str) -> asyncio.Lock:
        lock = self._locks.get(provider_id)
        if lock is None:
            lock = self._locks[provider_id] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def _file_lock(self) -> Any:
        self.path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        holder = file_lock(self.path)
        await asyncio.to_thread(holder.__enter__)
        lock_dir = self.path.with_name(self.path.name + ".lock")
        keep_alive = asyncio.ensure_future(_touch_while_held(lock_dir))
        try:
            yield
        finally:
            keep_alive.cancel()
            holder.__exit__(None, None, None)


async def _touch_while_held(lock_dir: Path) -> None:
    while True:
        await asyncio.sleep(LOCK_REFRESH_S)
        with contextlib.suppress(OSError):
            os.utime(lock_dir)
