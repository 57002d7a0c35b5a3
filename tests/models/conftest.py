"""Fixtures for the model registry tests: fake built-in providers and a fake wire adapter."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.auth import env_api_key_auth
from pi_app.ai.models import create_provider
from pi_app.ai.testing import FakeApi
from pi_app.ai.types import Model, ModelCost
from pi_app.coding.resolve_value import clear_command_cache


def builtin_model(provider: str, model_id: str, api: str, base_url: str, **kw: Any) -> Model:
    kw.setdefault("cost", ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    return Model(id=model_id, provider=provider, api=api, base_url=base_url, **kw)


class FakeBuiltins:
    """Stand-ins for ``builtin_providers()``: anthropic and openai, each over a recording FakeApi."""

    def __init__(self) -> None:
        self.apis: dict[str, FakeApi] = {}

    def __call__(self) -> list[Any]:
        specs = {
            "anthropic": (
                "anthropic-messages",
                "https://api.anthropic.com",
                ["ANTHROPIC_API_KEY"],
                ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-opus-5-5"],
            ),
            "openai": (
                "openai-responses",
                "https://api.openai.com/v1",
                ["OPENAI_API_KEY"],
                ["gpt-5.4", "gpt-4o"],
            ),
        }
        providers = []
        for pid, (api, url, env, ids) in specs.items():
            fake = self.apis.setdefault(pid, FakeApi(api=api))
            models = [builtin_model(pid, mid, api, url, reasoning=True) for mid in ids]
            providers.append(
                create_provider(id=pid, auth=env_api_key_auth(f"{pid} key", env), api=fake, models=models)
            )
        return providers


@pytest.fixture
def builtins() -> FakeBuiltins:
    return FakeBuiltins()


@pytest.fixture(autouse=True)
def _fresh_command_cache() -> Iterator[None]:
    clear_command_cache()
    yield
    clear_command_cache()


@pytest.fixture
def fake_adapter(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], FakeApi]:
    """Install a fake ``pi_app.ai.api.<module>`` whose factory returns a recording FakeApi."""

    def install(module: str, factory: str) -> FakeApi:
        api = FakeApi()
        mod = types.ModuleType(f"pi_app.ai.api.{module}")
        setattr(mod, factory, lambda: api)
        monkeypatch.setitem(sys.modules, f"pi_app.ai.api.{module}", mod)
        return api

    return install


@pytest.fixture
def models_json(tmp_path: Path) -> Callable[[Any], Path]:
    path = tmp_path / "agent" / "models.json"

    def write(data: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    return write
