"""Model reference resolution: patterns, ``--model``/``--provider``, scopes, the initial model.

Implements spec 40 R-MOD-20..29 over any list of ``Model`` objects (pure functions) plus the
registry-aware entry points the CLI and ``AgentSession`` call:

- ``resolve_cli_model(registry, provider, model_pattern)`` -> ``ResolvedModel`` or raises
  ``ModelResolutionError`` with the R-MOD-24 text (the CLI prints it in red and exits 1);
- ``resolve_model_scope(patterns, available)`` for ``--models`` / ``enabledModels`` (R-MOD-23);
- ``find_initial_model(...)`` (R-MOD-25) and ``restore_session_model(...)`` (R-MOD-26);
- ``cycle_model(...)`` (R-MOD-27) and ``no_models_message(path)`` (decision D-31).

Warnings are returned as text without a ``Warning:`` prefix; the shell decides how to show them.
Clamping a level to a model is L1's job (``pi_app.ai.thinking``, decision D-18); levels returned
here are the requested ones.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pi_app.ai.types import Model

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
DEFAULT_THINKING_LEVEL = "medium"

# Preferred default model per provider; the key order is the preference order (spec 40 §2.14.7).
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-5-5",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-5-5",
    "openai": "gpt-6.2-sol",
    "azure": "gpt-6.2-sol",
    "openai-codex": "gpt-6.2-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-4-argon",
    "google-vertex": "gemini-4-argon",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.7-code",
    "vercel-ai-gateway": "zai/glm-5.3",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M3",
    "minimax-cn": "MiniMax-M3",
    "moonshotai": "kimi-k2.7-code",
    "moonshotai-cn": "kimi-k2.7-code",
    "huggingface": "moonshotai/Kimi-K2.7-Code",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.3",
    "opencode": "kimi-k2.7-code",
    "opencode-go": "kimi-k3.1-pro",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.7-code",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "qwen-token-plan": "qwen3.8-max",
    "qwen-token-plan-cn": "qwen3.8-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "qwen-token-plan-individual-cn": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}

_DATED_SUFFIX = re.compile(r"-\d{8}$")
_GLOB_CHARS = ("*", "?", "[")


class ModelResolutionError(Exception):
    """A ``--model``/``--provider`` problem; ``str(error)`` is the one line to show."""


@dataclass
class ScopedModel:
    """One entry of ``--models``: a model and the thinking level given with it."""

    model: Model
    thinking_level: str | None = None


@dataclass
class ResolvedModel:
    """What ``--provider``/``--model`` name: the model, its thinking level and a warning."""

    model: Model | None
    thinking_level: str | None = None
    warning: str | None = None


@dataclass
class InitialModel:
    """The model a session starts with, and where that choice came from (``source``)."""

    model: Model | None
    thinking_level: str
    source: str  # cli | scope | session | default | preferred | available | none
    warnings: list[str] = field(default_factory=list)
    message: str | None = None  # e.g. "Restored model: p/id" or the restore fallback text


def is_valid_thinking_level(level: str | None) -> bool:
    return level in THINKING_LEVELS


def canonical_ref(model: Model) -> str:
    return f"{model.provider}/{model.id}"


# ---------------------------------------------------------------------------------------------
# R-MOD-20..22: matching one reference
# ---------------------------------------------------------------------------------------------


def _unique(matches: list[Model]) -> Model | None:
    return matches[0] if len(matches) == 1 else None


def find_exact_model_reference_match(reference: str, models: Sequence[Model]) -> Model | None:
    """R-MOD-20: ``provider/id``, then split at the first ``/``, then bare id; ambiguity -> None."""
    ref = reference.strip().lower()
    if not ref:
        return None
    full = [m for m in models if canonical_ref(m).lower() == ref]
    if len(full) > 1:
        return None
    if full:
        return full[0]
    if "/" in ref:
        provider, _, model_id = ref.partition("/")
        split = [m for m in models if m.provider.lower() == provider and m.id.lower() == model_id]
        if len(split) > 1:
            return None
        if split:
            return split[0]
    return _unique([m for m in models if m.id.lower() == ref])


def is_alias_id(model_id: str) -> bool:
    return model_id.endswith("-latest") or not _DATED_SUFFIX.search(model_id)


def try_match_model(pattern: str, models: Sequence[Model]) -> Model | None:
    """R-MOD-21: exact, else substring of id or name; prefer aliases, then the greatest id."""
    exact = find_exact_model_reference_match(pattern, models)
    if exact is not None:
        return exact
    needle = pattern.lower()
    if not needle:
        return None
    matches = [m for m in models if needle in m.id.lower() or needle in m.name.lower()]
    if not matches:
        return None
    aliases = [m for m in matches if is_alias_id(m.id)]
    pool = aliases or matches
    return sorted(pool, key=lambda m: m.id, reverse=True)[0]


def parse_model_pattern(pattern: str, models: Sequence[Model], *, strict: bool) -> ResolvedModel:
    """R-MOD-22: the whole pattern first, then ``prefix:level`` split at the last colon."""
    whole = try_match_model(pattern, models)
    if whole is not None:
        return ResolvedModel(whole)
    if ":" not in pattern:
        return ResolvedModel(None)
    prefix, _, suffix = pattern.rpartition(":")
    if is_valid_thinking_level(suffix):
        inner = parse_model_pattern(prefix, models, strict=strict)
        if inner.model is None:
            return inner
        if inner.warning:
            return ResolvedModel(inner.model, None, inner.warning)
        return ResolvedModel(inner.model, suffix, None)
    if strict:
        return ResolvedModel(None)
    inner = parse_model_pattern(prefix, models, strict=strict)
    if inner.model is None:
        return inner
    warning = f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.'
    return ResolvedModel(inner.model, None, warning)


# ---------------------------------------------------------------------------------------------
# R-MOD-23: scopes
# ---------------------------------------------------------------------------------------------


def parse_model_list(text: str | Iterable[str] | None) -> list[str]:
    """``"a, b,c"`` or a list -> ``["a", "b", "c"]`` (blank entries dropped)."""
    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else list(text)
    return [item.strip() for item in items if item and item.strip()]


def _split_level(pattern: str) -> tuple[str, str | None]:
    prefix, sep, suffix = pattern.rpartition(":")
    if sep and is_valid_thinking_level(suffix):
        return prefix, suffix
    return pattern, None


def resolve_model_scope(
    patterns: Iterable[str], available: Sequence[Model]
) -> tuple[list[ScopedModel], list[str]]:
    """Resolve ``--models``/``enabledModels`` over the available models; returns (scope, warnings)."""
    scope: list[ScopedModel] = []
    warnings: list[str] = []
    seen: set[tuple[str, str]] = set()

    def add(model: Model, level: str | None) -> None:
        key = (model.provider, model.id)
        if key not in seen:
            seen.add(key)
            scope.append(ScopedModel(model, level))

    for pattern in parse_model_list(list(patterns)):
        if any(ch in pattern for ch in _GLOB_CHARS):
            glob, level = _split_level(pattern)
            glob_lower = glob.lower()
            matched = [
                m
                for m in available
                if fnmatch.fnmatchcase(canonical_ref(m).lower(), glob_lower)
                or fnmatch.fnmatchcase(m.id.lower(), glob_lower)
            ]
            if not matched:
                warnings.append(f'No models match pattern "{pattern}"')
            for model in matched:
                add(model, level)
            continue
        resolved = parse_model_pattern(pattern, available, strict=False)
        if resolved.warning:
            warnings.append(resolved.warning)
        if resolved.model is None:
            warnings.append(f'No models match pattern "{pattern}"')
            continue
        add(resolved.model, resolved.thinking_level)
    return scope, warnings


# ---------------------------------------------------------------------------------------------
# R-MOD-24: --model / --provider
# ---------------------------------------------------------------------------------------------


def default_model_for_provider(provider: str, models: Sequence[Model]) -> Model | None:
    own = [m for m in models if m.provider == provider]
    preferred = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    for model in own:
        if model.id == preferred:
            return model
    return own[0] if own else None


def _not_found(reference: str) -> ModelResolutionError:
    return ModelResolutionError(f'Model "{reference}" not found. Use --list-models to see available models.')


def resolve_cli_model(
    registry: ModelRegistry, provider: str | None, model_pattern: str | None
) -> ResolvedModel:
    """Resolve ``--provider``/``--model`` over ALL models (strict level suffixes).

    A named provider (``--provider``, or a pattern's ``provider/`` prefix) is looked up in that
    provider's models alone; every catalogue is read only when the reference could be anyone's
    (a bare pattern, an unknown prefix, or a named provider that has no such model and the whole
    pattern may still be another provider's id). Reading all 43 built-in catalogues took a
    fifth of ``pi -p --model ...``'s start-up (issue 20)."""
    everyone: list[Model] | None = None

    def all_models() -> list[Model]:
        nonlocal everyone
        if everyone is None:
            everyone = list(registry.get_all())
        return everyone

    by_lower = {p.lower(): p for p in registry.get_provider_ids()}
    canonical: str | None = None
    if provider:
        canonical = by_lower.get(provider.lower())
        if canonical is None:
            message = f'Unknown provider "{provider}". Use --list-models to see available providers/models.'
            problem = registry.get_error()
            if problem:  # say why a provider the user wrote in models.json is not there (issue 18)
                message += f"\nmodels.json: {problem}"
            raise ModelResolutionError(message)
    if not model_pattern:
        if canonical is None:
            return ResolvedModel(None)
        default = default_model_for_provider(canonical, registry.provider_models(canonical))
        if default is None:
            raise ModelResolutionError(f'No models available for provider "{canonical}".')
        return ResolvedModel(default)

    pattern = model_pattern.strip()
    inferred = False
    if canonical is None and "/" in pattern:
        prefix, _, rest = pattern.partition("/")
        if prefix.lower() in by_lower:
            canonical, pattern, inferred = by_lower[prefix.lower()], rest, True
        else:
            exact = find_exact_model_reference_match(pattern, all_models())
            if exact is not None:
                return ResolvedModel(exact)
    elif canonical is not None and pattern.lower().startswith(canonical.lower() + "/"):
        pattern = pattern[len(canonical) + 1 :]

    candidates = list(registry.provider_models(canonical)) if canonical else all_models()
    resolved = parse_model_pattern(pattern, candidates, strict=True)
    if resolved.model is not None:
        return resolved
    if inferred:
        retry = parse_model_pattern(model_pattern.strip(), all_models(), strict=True)
        if retry.model is not None:
            return retry
    if canonical is not None:
        base = default_model_for_provider(canonical, candidates)
        if base is not None:
            model_id, level = _split_level(pattern)
            custom = replace(base, id=model_id, name=model_id, cost=replace(base.cost))
            warning = f'Model "{model_id}" not found for provider "{canonical}". Using custom model id.'
            return ResolvedModel(custom, level, warning)
    raise _not_found(model_pattern)


# ---------------------------------------------------------------------------------------------
# R-MOD-25, R-MOD-26: the initial model and session restore
# ---------------------------------------------------------------------------------------------


async def _has_credentials(registry: ModelRegistry, provider: str) -> bool:
    check = getattr(registry, "has_credentials", None)
    if check is not None:
        return bool(await check(provider))
    return any(m.provider == provider for m in await registry.get_available())


def first_preferred_model(available: Sequence[Model]) -> Model | None:
    """R-MOD-25 step 5: the first available model matching the default table, in table order."""
    for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
        for model in available:
            if model.provider == provider and model.id == model_id:
                return model
    return None


async def _fallback(registry: ModelRegistry) -> tuple[Model | None, str]:
    available = list(await registry.get_available())
    preferred = first_preferred_model(available)
    if preferred is not None:
        return preferred, "preferred"
    if available:
        return available[0], "available"
    return None, "none"


async def restore_session_model(
    registry: ModelRegistry, provider: str, model_id: str, current: Model | None = None
) -> tuple[Model | None, str | None, bool]:
    """R-MOD-26 -> (model, message, restored). The message is the info or the fallback warning."""
    model = registry.find(provider, model_id)
    if model is not None and await _has_credentials(registry, provider):
        return model, f"Restored model: {provider}/{model_id}", True
    reason = "model no longer exists" if model is None else "no API key available"
    message = f"Could not restore model {provider}/{model_id} ({reason})"
    if current is not None:
        return current, message, False
    fallback, _ = await _fallback(registry)
    return fallback, message, False


async def find_initial_model(
    registry: ModelRegistry,
    *,
    cli_provider: str | None = None,
    cli_model: str | None = None,
    cli_thinking: str | None = None,
    scoped_models: Sequence[ScopedModel] = (),
    is_continuing: bool = False,
    session_model: tuple[str, str] | None = None,
    default_provider: str | None = None,
    default_model: str | None = None,
    default_thinking_level: str | None = None,
) -> InitialModel:
    """R-MOD-25. Raises ``ModelResolutionError`` only for a bad ``--model``/``--provider``."""
    base_level = cli_thinking or default_thinking_level or DEFAULT_THINKING_LEVEL
    if cli_model or cli_provider:
        resolved = resolve_cli_model(registry, cli_provider, cli_model)
        if resolved.model is not None:
            level = cli_thinking or resolved.thinking_level or base_level
            warnings = [resolved.warning] if resolved.warning else []
            return InitialModel(resolved.model, level, "cli", warnings)
    if not is_continuing and scoped_models:
        chosen = next(
            (
                s
                for s in scoped_models
                if default_provider and s.model.provider == default_provider and s.model.id == default_model
            ),
            scoped_models[0],
        )
        return InitialModel(chosen.model, cli_thinking or chosen.thinking_level or base_level, "scope")
    if is_continuing and session_model is not None:
        model, message, _restored = await restore_session_model(registry, *session_model)
        if model is not None:
            return InitialModel(model, base_level, "session", message=message)
    if default_provider and default_model:
        model = registry.find(default_provider, default_model)
        if model is not None:
            return InitialModel(model, base_level, "default")
    model, source = await _fallback(registry)
    return InitialModel(model, base_level, source)


# ---------------------------------------------------------------------------------------------
# R-MOD-27: cycling
# ---------------------------------------------------------------------------------------------


async def cycle_candidates(
    registry: ModelRegistry, scoped_models: Sequence[ScopedModel]
) -> list[ScopedModel]:
    """Scoped models whose provider has credentials, else every available model."""
    if scoped_models:
        out: list[ScopedModel] = []
        for scoped in scoped_models:
            if await _has_credentials(registry, scoped.model.provider):
                out.append(scoped)
        return out
    return [ScopedModel(m) for m in await registry.get_available()]


async def cycle_model(
    registry: ModelRegistry, current: Model | None, scoped_models: Sequence[ScopedModel], direction: int = 1
) -> ScopedModel | None:
    """The next candidate (wrap-around) or None when fewer than two candidates exist."""
    candidates = await cycle_candidates(registry, scoped_models)
    if len(candidates) < 2:
        return None
    index = 0
    if current is not None:
        for i, scoped in enumerate(candidates):
            if scoped.model.provider == current.provider and scoped.model.id == current.id:
                index = i
                break
    return candidates[(index + (1 if direction >= 0 else -1)) % len(candidates)]


# ---------------------------------------------------------------------------------------------
# D-31: nothing configured
# ---------------------------------------------------------------------------------------------


def no_models_message(models_json_path: str | Path) -> str:
    """One line naming an API-key variable and ``models.json``; the TUI appends a ``/login`` hint."""
    return (
        "No models available: set an API key such as ANTHROPIC_API_KEY or OPENAI_API_KEY, "
        f"or add a provider to {models_json_path}"
    )
