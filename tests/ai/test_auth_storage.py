"""``auth.json`` as a ``CredentialStore`` (pi_app.coding.auth_storage; D-7, D-25, R-AI-53/54)."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.auth import DictAuthContext
from pi_app.ai.providers.all import builtin_models
from pi_app.coding.auth_storage import AuthFileError, AuthStorage


def _set(value: Any) -> Any:
    async def fn(current: Any) -> Any:
        return value

    return fn


async def test_write_creates_private_file_in_private_dir(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    store = AuthStorage(path)
    await store.modify("openai", _set({"type": "api_key", "key": "sk-1"}))
    assert json.loads(path.read_text()) == {"openai": {"type": "api_key", "key": "sk-1"}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not (tmp_path / "agent" / "auth.json.lock").exists()


async def test_values_resolve_on_read_but_never_on_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY_VAR", "from-env")
    path = tmp_path / "auth.json"
    marker = tmp_path / "ran"
    path.write_text(
        json.dumps(
            {
                "a": {"type": "api_key", "key": "MY_KEY_VAR"},
                "b": {"type": "api_key", "key": f"!touch {marker} && echo from-cmd"},
                "c": {"type": "api_key", "key": "literal"},
                "d": {"type": "oauth", "access": "x", "refresh": "y", "expires": 5},
            }
        )
    )
    store = AuthStorage(path)
    infos = await store.list()
    assert infos == [
        {"providerId": "a", "type": "api_key"},
        {"providerId": "b", "type": "api_key"},
        {"providerId": "c", "type": "api_key"},
        {"providerId": "d", "type": "oauth", "expires": 5},
    ]
    assert not marker.exists()
    assert (await store.read("a"))["key"] == "from-env"
    assert (await store.read("b"))["key"] == "from-cmd" and marker.exists()
    assert (await store.read("c"))["key"] == "literal"


async def test_modify_keeps_other_providers_and_merges_outside_writes(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    store = AuthStorage(path)
    await store.modify("a", _set({"type": "api_key", "key": "1"}))

    async def slow(current: Any) -> Any:
        # another process writes provider "x" meanwhile
        data = json.loads(path.read_text())
        data["x"] = {"type": "api_key", "key": "other"}
        path.write_text(json.dumps(data))
        return {"type": "api_key", "key": "2"}

    await store.modify("b", slow)
    assert json.loads(path.read_text()) == {
        "a": {"type": "api_key", "key": "1"},
        "x": {"type": "api_key", "key": "other"},
        "b": {"type": "api_key", "key": "2"},
    }
    await store.delete("a")
    assert "a" not in json.loads(path.read_text())


async def test_corrupt_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{not json")
    store = AuthStorage(path)
    assert await store.read("openai") is None and await store.list() == []
    with pytest.raises(AuthFileError, match="Invalid JSON in"):
        await store.modify("openai", _set({"type": "api_key", "key": "k"}))
    assert path.read_text() == "{not json"


async def test_refresh_once_across_two_stores_on_one_file(tmp_path: Path) -> None:
    """Two ``Models`` (as two processes would) share auth.json; an expired token refreshes once."""
    path = tmp_path / "auth.json"
    path.write_text(
        json.dumps({"anthropic": {"type": "oauth", "access": "old", "refresh": "r", "expires": 1}})
    )
    calls = 0

    class Refresh:
        name = login_label = "fake"

        async def refresh(self, credential: Any, signal: Any = None) -> Any:
            nonlocal calls
            calls += 1
            await asyncio.sleep(0.05)
            return {"type": "oauth", "access": "new", "refresh": "r2", "expires": 10**13}

        async def to_auth(self, credential: Any) -> Any:
            return {"apiKey": credential["access"]}

    collections = [
        builtin_models(credentials=AuthStorage(path), auth_context=DictAuthContext({})) for _ in range(2)
    ]
    for models in collections:
        models.get_provider("anthropic").auth.oauth = Refresh()
    results = await asyncio.gather(*(m.get_auth("anthropic") for m in collections for _ in range(3)))
    assert calls == 1
    assert {r.auth["apiKey"] for r in results} == {"new"}
    assert json.loads(path.read_text())["anthropic"]["access"] == "new"
