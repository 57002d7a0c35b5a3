"""Model patterns, CLI resolution, scopes, initial model and cycling (spec 40 R-MOD-20..27, 28-30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore
from pi_app.ai.types import Model
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.models.resolver import (
    ModelResolutionError,
    ScopedModel,
    cycle_model,
    find_exact_model_reference_match,
    find_initial_model,
    no_models_message,
    parse_model_list,
    parse_model_pattern,
    resolve_cli_model,
    resolve_model_scope,
    restore_session_model,
    try_match_model,
)


def m(provider: str, model_id: str, name: str = "") -> Model:
    return Model(id=model_id, provider=provider, name=name, api="openai-completions", base_url="http://x")


SONNETS = [m("anthropic", "claude-sonnet-4-5-20250929"), m("anthropic", "claude-sonnet-4-5")]


def test_pattern_prefers_the_alias_over_the_dated_id() -> None:
    assert try_match_model("sonnet", SONNETS).id == "claude-sonnet-4-5"  # type: ignore[union-attr]
    dated_only = [m("a", "model-20240101"), m("a", "model-20250101")]
    assert try_match_model("model", dated_only).id == "model-20250101"  # type: ignore[union-attr]
    latest = [m("a", "x-20250101"), m("a", "x-latest"), m("a", "x-2")]
    assert try_match_model("x", latest).id == "x-latest"  # type: ignore[union-attr]


def test_pattern_matches_names_case_insensitively() -> None:
    models = [m("a", "id-1", name="Super Fast"), m("a", "id-2", name="Slow")]
    assert try_match_model("FAST", models).id == "id-1"  # type: ignore[union-attr]
    assert try_match_model("nothing", models) is None


def test_exact_reference_rules() -> None:
    models = [m("zai", "glm-5"), m("openrouter", "zai/glm-5"), m("a", "dup"), m("b", "dup")]
    assert find_exact_model_reference_match("ZAI/GLM-5", models).provider == "zai"  # type: ignore[union-attr]
    assert find_exact_model_reference_match("openrouter/zai/glm-5", models).provider == "openrouter"  # type: ignore[union-attr]
    assert find_exact_model_reference_match("dup", models) is None  # ambiguous bare id
    assert find_exact_model_reference_match("b/dup", models).provider == "b"  # type: ignore[union-attr]


def test_level_suffixes_strict_and_scope_mode() -> None:
    high = parse_model_pattern("sonnet:high", SONNETS, strict=True)
    assert (high.model.id, high.thinking_level, high.warning) == ("claude-sonnet-4-5", "high", None)  # type: ignore[union-attr]
    assert parse_model_pattern("sonnet:turbo", SONNETS, strict=True).model is None
    scoped = parse_model_pattern("sonnet:turbo", SONNETS, strict=False)
    assert scoped.model is not None and scoped.model.id == "claude-sonnet-4-5"
    assert scoped.thinking_level is None
    assert (
        scoped.warning == 'Invalid thinking level "turbo" in pattern "sonnet:turbo". Using default instead.'
    )
    colon_id = [m("ollama", "llama3.1:8b")]
    assert parse_model_pattern("llama3.1:8b", colon_id, strict=True).model is not None
    both = parse_model_pattern("llama3.1:8b:low", colon_id, strict=True)
    assert both.model is not None and both.thinking_level == "low"


class Registry:
    """A minimal registry stand-in for the pure resolver paths."""

    def __init__(self, models: list[Model], available: list[Model] | None = None) -> None:
        self.models = models
        self.available = models if available is None else available

    def get_all(self) -> tuple[Model, ...]:
        return tuple(self.models)

    def get_provider_ids(self) -> list[str]:
        return list(dict.fromkeys(x.provider for x in self.models))

    def provider_models(self, provider: str) -> list[Model]:
        return [x for x in self.models if x.provider == provider]

    def get_error(self) -> str | None:
        return None

    def find(self, provider: str, model_id: str) -> Model | None:
        return next((x for x in self.models if x.provider == provider and x.id == model_id), None)

    async def get_available(self) -> list[Model]:
        return list(self.available)

    async def has_credentials(self, provider: str) -> bool:
        return any(x.provider == provider for x in self.available)


def test_cli_model_resolution_texts() -> None:
    registry = Registry([*SONNETS, m("zai", "glm-5"), m("openrouter", "zai/glm-5"), m("openai", "gpt-5.4")])
    assert resolve_cli_model(registry, None, "sonnet").model.id == "claude-sonnet-4-5"  # type: ignore[union-attr]
    with pytest.raises(ModelResolutionError) as err:
        resolve_cli_model(registry, None, "sonnet:turbo")
    assert str(err.value) == 'Model "sonnet:turbo" not found. Use --list-models to see available models.'
    with pytest.raises(ModelResolutionError) as err:
        resolve_cli_model(registry, "nope", "x")
    assert str(err.value) == 'Unknown provider "nope". Use --list-models to see available providers/models.'

    assert resolve_cli_model(registry, None, "zai/glm-5").model.provider == "zai"  # type: ignore[union-attr]
    assert resolve_cli_model(registry, "openrouter", "zai/glm-5").model.provider == "openrouter"  # type: ignore[union-attr]
    assert resolve_cli_model(registry, "ZAI", "zai/glm-5").model.provider == "zai"  # type: ignore[union-attr]

    custom = resolve_cli_model(registry, "openai", "my-new-model")
    assert (
        custom.model is not None and custom.model.id == "my-new-model" and custom.model.provider == "openai"
    )
    assert custom.warning == 'Model "my-new-model" not found for provider "openai". Using custom model id.'
    assert registry.find("openai", "my-new-model") is None


def test_inferred_provider_falls_back_to_a_raw_id() -> None:
    registry = Registry([m("openai", "gpt-5.4"), m("openrouter", "openai/o-special")])
    resolved = resolve_cli_model(registry, None, "openai/o-special")
    assert resolved.model is not None and resolved.model.provider == "openrouter"


def test_scopes_globs_levels_and_warnings() -> None:
    available = [*SONNETS, m("anthropic", "claude-opus-5-5")]
    scope, warnings = resolve_model_scope(
        parse_model_list("claude-*:high, gpt-4o,claude-opus-5-5"), available
    )
    assert [(s.model.id, s.thinking_level) for s in scope] == [
        ("claude-sonnet-4-5-20250929", "high"),
        ("claude-sonnet-4-5", "high"),
        ("claude-opus-5-5", "high"),
    ]
    assert warnings == ['No models match pattern "gpt-4o"']
    scope, _ = resolve_model_scope(["anthropic/CLAUDE-OPUS*", "sonnet:turbo"], available)
    assert [(s.model.id, s.thinking_level) for s in scope] == [
        ("claude-opus-5-5", None),
        ("claude-sonnet-4-5", None),
    ]
    assert resolve_model_scope(["claude-*"], [])[0] == []


async def test_initial_model_order() -> None:
    opus = m("anthropic", "claude-opus-5-5")
    gpt = m("openai", "gpt-5.4")
    other = m("openai", "gpt-4o")
    registry = Registry([other, gpt, opus], available=[other, gpt, opus])

    first = await find_initial_model(registry, cli_model="gpt-4o:low")
    assert (first.model, first.thinking_level, first.source) == (other, "low", "cli")
    forced = await find_initial_model(registry, cli_model="gpt-4o:low", cli_thinking="high")
    assert forced.thinking_level == "high"

    scope = [ScopedModel(gpt, "minimal"), ScopedModel(opus, None)]
    scoped = await find_initial_model(
        registry,
        scoped_models=scope,
        default_provider="anthropic",
        default_model="claude-opus-5-5",
        default_thinking_level="low",
    )
    assert (scoped.model, scoped.thinking_level) == (opus, "low")
    scoped = await find_initial_model(registry, scoped_models=scope)
    assert (scoped.model, scoped.thinking_level) == (gpt, "minimal")

    saved = await find_initial_model(registry, default_provider="openai", default_model="gpt-4o")
    assert (saved.model, saved.source) == (other, "default")
    preferred = await find_initial_model(registry)
    assert (preferred.model, preferred.source, preferred.thinking_level) == (opus, "preferred", "medium")

    nothing = await find_initial_model(Registry([gpt], available=[]))
    assert nothing.model is None and nothing.source == "none"


async def test_restore_session_model() -> None:
    gpt = m("openai", "gpt-5.4")
    registry = Registry([gpt, m("anthropic", "claude-x")], available=[gpt])
    model, message, restored = await restore_session_model(registry, "openai", "gpt-5.4")
    assert (model, message, restored) == (gpt, "Restored model: openai/gpt-5.4", True)
    model, message, restored = await restore_session_model(registry, "anthropic", "claude-x")
    assert message == "Could not restore model anthropic/claude-x (no API key available)"
    assert model == gpt and not restored
    _, message, _ = await restore_session_model(registry, "gone", "m", current=gpt)
    assert message == "Could not restore model gone/m (model no longer exists)"
    continuing = await find_initial_model(registry, is_continuing=True, session_model=("openai", "gpt-5.4"))
    assert continuing.source == "session" and continuing.message == "Restored model: openai/gpt-5.4"


async def test_cycling_over_a_scope_with_credentials_only() -> None:
    a1, a2 = m("anthropic", "claude-a"), m("anthropic", "claude-b")
    g = m("openai", "gpt-4o")
    registry = Registry([a1, a2, g], available=[a1, a2])
    scope = [ScopedModel(a1, "high"), ScopedModel(g, None), ScopedModel(a2, "high")]
    nxt = await cycle_model(registry, a1, scope, 1)
    assert nxt is not None and nxt.model == a2 and nxt.thinking_level == "high"
    assert (await cycle_model(registry, a2, scope, 1)).model == a1  # type: ignore[union-attr]
    assert (await cycle_model(registry, a1, scope, -1)).model == a2  # type: ignore[union-attr]
    assert await cycle_model(Registry([a1, g], available=[]), a1, scope) is None
    unscoped = await cycle_model(registry, a2, [], 1)
    assert unscoped is not None and unscoped.model == a1


async def test_with_a_real_registry(builtins) -> None:
    registry = ModelRegistry(
        InMemoryCredentialStore(),
        None,
        DictAuthContext({"ANTHROPIC_API_KEY": "k"}),
        builtin_providers=builtins,
    )
    resolved = resolve_cli_model(registry, None, "anthropic/sonnet:high")
    assert resolved.model is not None and resolved.model.id == "claude-sonnet-4-5"
    assert resolved.thinking_level == "high"
    initial = await find_initial_model(registry)
    assert initial.model is not None and initial.model.id == "claude-opus-5-5"
    scope, warnings = resolve_model_scope(["claude-*:high", "gpt-4o"], await registry.get_available())
    assert len(scope) == 3 and warnings == ['No models match pattern "gpt-4o"']


def test_no_models_message_is_one_line_naming_a_key_and_the_file() -> None:
    text = no_models_message("/home/u/.pi/agent/models.json")
    assert "\n" not in text
    assert "ANTHROPIC_API_KEY" in text and "/home/u/.pi/agent/models.json" in text


def test_a_named_provider_reads_only_its_own_catalogue(tmp_path: Path) -> None:
    """``--provider X`` / ``--model X/id`` must not read the other 42 built-in catalogues (issue 20)."""
    registry = ModelRegistry(InMemoryCredentialStore(), tmp_path / "models.json")
    loaded = lambda: sorted(p.id for p in registry._built.values() if p.loader is None)  # noqa: E731
    assert loaded() == []
    assert resolve_cli_model(registry, "anthropic", "claude-opus-5-5").model is not None
    assert resolve_cli_model(registry, None, "openai/gpt-6.2-sol").model is not None
    assert loaded() == ["anthropic", "openai"]
    resolve_cli_model(registry, None, "sonnet")  # a bare pattern can be anyone's
    assert len(loaded()) > 40
