"""The built-in catalogue: regenerated from pi 1.6.0's model data, complete, and listed as 1.6.0 lists it.

``tests/ai/data/pi16_list_models.json`` is written by ``scripts/generate_catalog.py`` straight from
1.6.0's published data (the rows 1.6.0's ``--list-models`` prints per provider; checked equal to the
real 1.6.0 output when generated). The environment variables below are the ones 1.6.0's ``--help``
names for each provider, kept here independently of our manifest.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pi_app.ai.catalog.loader import catalog_provider_ids, catalog_source, load_catalog
from pi_app.ai.types import Model, Usage
from pi_app.ai.util.cost import calculate_cost

TABLE = json.loads((Path(__file__).parent / "data" / "pi16_list_models.json").read_text("utf-8"))
CATALOG_DIR = Path(__file__).resolve().parents[2] / "pi_app" / "ai" / "catalog"

# provider -> the environment 1.6.0 needs to list it (from its --help and providers.md)
PI16_ENV: dict[str, dict[str, str]] = {
    "amazon-bedrock": {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"},
    "ant-ling": {"ANT_LING_API_KEY": "k"},
    "anthropic": {"ANTHROPIC_API_KEY": "k"},
    "azure": {"AZURE_OPENAI_API_KEY": "k"},
    "baseten": {"BASETEN_API_KEY": "k"},
    "cerebras": {"CEREBRAS_API_KEY": "k"},
    "cloudflare-ai-gateway": {
        "CLOUDFLARE_API_KEY": "k",
        "CLOUDFLARE_ACCOUNT_ID": "acc",
        "CLOUDFLARE_GATEWAY_ID": "gw",
    },
    "cloudflare-workers-ai": {"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_ACCOUNT_ID": "acc"},
    "deepseek": {"DEEPSEEK_API_KEY": "k"},
    "fireworks": {"FIREWORKS_API_KEY": "k"},
    "github-copilot": {"COPILOT_GITHUB_TOKEN": "k"},
    "google": {"GEMINI_API_KEY": "k"},
    "google-vertex": {"GOOGLE_CLOUD_API_KEY": "k"},
    "groq": {"GROQ_API_KEY": "k"},
    "huggingface": {"HF_TOKEN": "k"},
    "kimi-coding": {"KIMI_API_KEY": "k"},
    "meta": {"META_API_KEY": "k"},
    "minimax": {"MINIMAX_API_KEY": "k"},
    "minimax-cn": {"MINIMAX_CN_API_KEY": "k"},
    "mistral": {"MISTRAL_API_KEY": "k"},
    "moonshotai": {"MOONSHOT_API_KEY": "k"},
    "moonshotai-cn": {"MOONSHOT_API_KEY": "k"},
    "nvidia": {"NVIDIA_API_KEY": "k"},
    "openai": {"OPENAI_API_KEY": "k"},
    "opencode": {"OPENCODE_API_KEY": "k"},
    "opencode-go": {"OPENCODE_API_KEY": "k"},
    "openrouter": {"OPENROUTER_API_KEY": "k"},
    "qwen-token-plan": {"QWEN_TOKEN_PLAN_TEAM_API_KEY": "k"},
    "qwen-token-plan-cn": {"QWEN_TOKEN_PLAN_TEAM_CN_API_KEY": "k"},
    "qwen-token-plan-individual": {"QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY": "k"},
    "qwen-token-plan-individual-cn": {"QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY": "k"},
    "radius": {"RADIUS_API_KEY": "k"},
    "together": {"TOGETHER_API_KEY": "k"},
    "vercel-ai-gateway": {"AI_GATEWAY_API_KEY": "k"},
    "xai": {"XAI_API_KEY": "k"},
    "xiaomi": {"XIAOMI_API_KEY": "k"},
    "xiaomi-token-plan-ams": {"XIAOMI_TOKEN_PLAN_AMS_API_KEY": "k"},
    "xiaomi-token-plan-cn": {"XIAOMI_TOKEN_PLAN_CN_API_KEY": "k"},
    "xiaomi-token-plan-sgp": {"XIAOMI_TOKEN_PLAN_SGP_API_KEY": "k"},
    "zai": {"ZAI_API_KEY": "k"},
    "zai-coding-cn": {"ZAI_CODING_CN_API_KEY": "k"},
}
ALL_VARS = {var for env in PI16_ENV.values() for var in env} | {
    "ANTHROPIC_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "QWEN_TOKEN_PLAN_API_KEY",
    "QWEN_TOKEN_PLAN_CN_API_KEY",
    "GH_TOKEN",
    "GITHUB_TOKEN",
}

REQUIRED = {
    "id": str,
    "name": str,
    "api": str,
    "provider": str,
    "baseUrl": str,
    "reasoning": bool,
    "input": list,
    "cost": dict,
    "contextWindow": int,
    "maxTokens": int,
}


def test_source_version_is_recorded() -> None:
    assert catalog_source() == "@earendil-works/pi-ai 1.6.0" == TABLE["source"]


@pytest.mark.parametrize("provider", catalog_provider_ids())
def test_every_listed_model_has_every_field(provider: str) -> None:
    manifest = json.loads((CATALOG_DIR / "manifest.json").read_text("utf-8"))["providers"][provider]
    raw = json.loads((CATALOG_DIR / manifest["file"]).read_text("utf-8"))["models"]
    assert len(raw) == manifest["models"] > 0
    for model in raw:
        for field, kind in REQUIRED.items():
            assert isinstance(model.get(field), kind), f"{provider}/{model.get('id')}: {field}"
        assert model["provider"] == provider
        assert model["contextWindow"] > 0 and model["maxTokens"] > 0, model["id"]
        assert set(model["input"]) <= {"text", "image"} and "text" in model["input"]
        for price in ("input", "output", "cacheRead", "cacheWrite"):
            assert isinstance(model["cost"].get(price), int | float), f"{model['id']}: cost.{price}"
        for tier in model["cost"].get("tiers", []):
            assert {"inputTokensAbove", "input", "output", "cacheRead", "cacheWrite"} <= set(tier)


def test_catalogue_keeps_tiers_thinking_maps_and_compat() -> None:
    gpt = next(m for m in load_catalog("openai") if m.cost.tiers)
    assert gpt.cost.tiers[0]["inputTokensAbove"] > 0
    assert any(m.thinking_level_map for m in load_catalog("anthropic"))
    assert any(m.compat for m in load_catalog("openrouter"))


def test_a_price_tier_applies_above_its_threshold() -> None:
    model = Model(id="m")
    model.cost.input, model.cost.output = 1, 2
    model.cost.tiers = [
        {"inputTokensAbove": 1000, "input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0}
    ]
    small = calculate_cost(model, Usage(input=1000, output=1000))
    assert small.input == pytest.approx(0.001) and small.output == pytest.approx(0.002)
    large = calculate_cost(model, Usage(input=1001, output=1000))
    assert large.input == pytest.approx(0.01001) and large.output == pytest.approx(0.02)


def _rows(output: str) -> list[list[str]]:
    lines = output.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    return [line.split() for line in lines[1:]]


@pytest.mark.parametrize("provider", sorted(PI16_ENV))
def test_list_models_with_one_key_lists_what_pi16_lists(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pi_app.modes.list_models import list_models

    for var in list(os.environ):
        if var in ALL_VARS or var.endswith("_API_KEY"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    for var, value in PI16_ENV[provider].items():
        monkeypatch.setenv(var, value)
    assert asyncio.run(list_models(None)) == 0
    rows = _rows(capsys.readouterr().out)
    listed = [row[1:] for row in rows if row[0] == provider]
    assert listed == TABLE["providers"][provider]
    # sharing a key variable with a sibling (OPENCODE_API_KEY, MOONSHOT_API_KEY) is the only overlap
    assert {row[0] for row in rows} <= {
        p for p, env in PI16_ENV.items() if env.items() <= PI16_ENV[provider].items()
    }


def test_every_pi16_provider_is_in_the_catalogue() -> None:
    assert set(TABLE["providers"]) == set(catalog_provider_ids())
    assert set(PI16_ENV) == set(catalog_provider_ids()) - {"openai-codex"}  # ChatGPT sign-in only


def test_every_catalogue_api_has_an_adapter() -> None:
    from pi_app.ai.providers.base import ADAPTERS

    apis = {m.api for provider in catalog_provider_ids() for m in load_catalog(provider)}
    assert apis <= set(ADAPTERS)
