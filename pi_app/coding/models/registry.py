"""``ModelRegistry``: the one model/provider object of a pi process (spec 40 §2.14.5, D-8, [D-11]).

The registry owns one L1 ``MutableModels`` collection (``registry.models``) and rebuilds its
providers from three layers, in this order:

1. the built-in providers of ``pi_app.ai.providers.all.builtin_providers()`` (fresh instances);
2. ``models.json``: provider-level overrides (``baseUrl``, ``headers``, ``compat``) on built-in
   models, ``modelOverrides`` by id, custom models upserted by (provider, id), and whole custom
   providers (R-MOD-04..09);
3. provider registrations from extensions (R-MOD-14..16), in registration order.

Every rebuild replaces the collection's providers in one synchronous step, so a reader never sees a
half-built list (R-MOD-17); ``get_all()`` returns an immutable snapshot.

A built-in provider that neither ``models.json`` nor an extension touches keeps its catalogue
unread until something asks for its models (``find`` on it, ``get_available`` once it has
credentials, ``get_all``, a request): a start that names one model reads one catalogue file, not
all 42 (issue 20). What a reader sees is the same as if every catalogue had been read at the
rebuild: the catalogue is part of the package, and the rest of a provider's layers are applied
when it is loaded, not read again.

API keys resolve in the order of decision D-7: runtime override (``--api-key``) -> ``auth.json``
(API key through value resolution, or OAuth via the provider's L1 ``OAuthAuth``) -> the provider's
environment variables -> the ``apiKey`` of ``models.json`` / ``register_provider``. Only the first
and last steps are added here; ``auth.json`` and OAuth go through the L1 ``CredentialStore``.

Hand ``registry.stream_simple`` (not ``registry.models.stream_simple``) to an ``Agent``: it adds the
runtime ``--api-key`` override for its provider and always routes through the current collection.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pi_app.ai.auth.resolve import ModelsError
from pi_app.ai.auth.types import (
    AuthCheck,
    AuthContext,
    AuthResult,
    Credential,
    CredentialStore,
    EnvAuthContext,
    ProviderAuth,
)
from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.models import MutableModels, ProviderStreams, create_models, error_stream, lazy_stream
from pi_app.ai.types import Context, Model, ModelCost, SimpleStreamOptions, StreamOptions
from pi_app.coding.models.model_config import (
    CompatConfig,
    ModelDefinition,
    ModelOverride,
    ModelsConfig,
    ProviderConfig,
    ThinkingLevelName,
    load_models_config,
)
from pi_app.coding.resolve_value import is_command, resolve_headers, resolve_value_in


def known_apis() -> dict[str, tuple[str, str]]:
    """The wire adapters a custom provider can name in ``api``: every adapter ``pi_app.ai`` has
    (``pi_app.ai.providers.base.ADAPTERS``; the adapters themselves load on the first request,
    R-AI-03)."""
    from pi_app.ai.providers.base import ADAPTERS

    return dict(ADAPTERS)


_ROUTING_KEYS = ("openRouterRouting", "vercelGatewayRouting")


def load_builtin_providers() -> list[Any]:
    """The L1 built-in providers, or none while ``pi_app.ai.providers.all`` does not exist yet."""
    try:
        from pi_app.ai.providers.all import builtin_providers
    except ImportError:
        return []
    return list(builtin_providers())


# ---------------------------------------------------------------------------------------------
# Extension provider registrations (spec 40 §2.14.6)
# ---------------------------------------------------------------------------------------------


@dataclass
class ProviderModelConfig:
    """A model registered by an extension; unlike ``models.json`` nothing has a default."""

    id: str
    name: str
    reasoning: bool
    input: list[str]
    cost: dict[str, float] | ModelCost
    context_window: int
    max_tokens: int
    api: str | None = None
    base_url: str | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, str | None] | None = None


@dataclass
class ExtensionProviderConfig:
    """``register_provider(name, config)``; a plain dict with these snake_case keys also works."""

    name: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    api: str | None = None
    headers: dict[str, str] | None = None
    auth_header: bool = False
    models: list[ProviderModelConfig] | None = None
    oauth: Any = None
    filter_models: Callable[[Sequence[Model], Credential | None], Sequence[Model]] | None = None
    stream_simple: Callable[..., AssistantMessageEventStream] | None = None
    refresh_models: Any = None


_MODEL_REQUIRED = ("id", "name", "reasoning", "input", "cost", "context_window", "max_tokens")


def _snake(key: str) -> str:
    out = []
    for ch in key:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out)


def _normalise_model_config(provider: str, raw: Any) -> ProviderModelConfig:
    if isinstance(raw, ProviderModelConfig):
        return raw
    if isinstance(raw, Model):
        return ProviderModelConfig(
            id=raw.id,
            name=raw.name,
            reasoning=raw.reasoning,
            input=list(raw.input),
            cost=raw.cost,
            context_window=raw.context_window,
            max_tokens=raw.max_tokens,
            api=raw.api,
            base_url=raw.base_url or None,
            headers=raw.headers,
            compat=raw.compat,
            thinking_level_map=raw.thinking_level_map,
        )
    if not isinstance(raw, Mapping):
        raise ValueError(f"Provider {provider}: each model must be a mapping, got {type(raw).__name__}")
    data = {_snake(k): v for k, v in raw.items()}
    model_id = data.get("id") or "?"
    missing = [key for key in _MODEL_REQUIRED if data.get(key) is None]
    if missing:
        raise ValueError(f"Provider {provider}, model {model_id}: missing {', '.join(missing)}")
    known = {f for f in ProviderModelConfig.__dataclass_fields__}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"Provider {provider}, model {model_id}: unknown keys {', '.join(unknown)}")
    return ProviderModelConfig(**data)


def normalise_provider_config(name: str, config: Any) -> ExtensionProviderConfig:
    """Accept the dataclass or a dict (snake_case or camelCase keys); validate per R-MOD-14."""
    if isinstance(config, ExtensionProviderConfig):
        cfg = copy.copy(config)
    elif isinstance(config, Mapping):
        data = {_snake(k): v for k, v in config.items()}
        known = set(ExtensionProviderConfig.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Provider {name}: unknown keys {', '.join(unknown)}")
        cfg = ExtensionProviderConfig(**data)
    else:
        raise ValueError(f"Provider {name}: config must be a mapping or ExtensionProviderConfig")
    if cfg.models is not None:
        cfg.models = [_normalise_model_config(name, m) for m in cfg.models]
    if cfg.stream_simple is not None and not cfg.api:
        raise ValueError(f'Provider {name}: "api" is required when registering stream_simple.')
    if cfg.models:
        if not cfg.base_url:
            raise ValueError(f'Provider {name}: "base_url" is required when defining models.')
        if not cfg.api_key and cfg.oauth is None:
            raise ValueError(f'Provider {name}: "api_key" or "oauth" is required when defining models.')
        for model in cfg.models:
            if not (model.api or cfg.api):
                raise ValueError(f'Provider {name}, model {model.id}: no "api" specified.')
    return cfg


def _merge_registration(
    old: ExtensionProviderConfig, new: ExtensionProviderConfig
) -> ExtensionProviderConfig:
    """A second registration of the same name overrides only the values it sets."""
    merged = copy.copy(old)
    for key in ExtensionProviderConfig.__dataclass_fields__:
        value = getattr(new, key)
        if value is not None and not (key == "auth_header" and value is False):
            setattr(merged, key, value)
    return merged


# ---------------------------------------------------------------------------------------------
# Auth: auth.json -> provider env vars -> configured key (D-7)
# ---------------------------------------------------------------------------------------------


class LayeredApiKeyAuth:
    """An ``ApiKeyAuth`` that adds value resolution and the configured key to a provider's own."""

    def __init__(self, inner: Any, configured_key: str | None, auth_header: bool, name: str) -> None:
        self.inner = inner
        self.configured_key = configured_key
        self.auth_header = auth_header
        self.name = getattr(inner, "name", None) or name
        # what a missing-key message names (the provider's own variables)
        self.env_vars = list(getattr(inner, "env_vars", None) or [])
        self.required_env = list(getattr(inner, "required_env", None) or [])
        self.missing_hint = getattr(inner, "missing_hint", None)

    async def resolve(self, *, ctx: AuthContext, credential: Credential | None) -> AuthResult | None:
        result: AuthResult | None = None
        if credential and credential.get("type") == "api_key" and credential.get("key"):
            key = await resolve_value_in(str(credential["key"]), ctx.env)
            if key:
                stored = {**credential, "key": key}
                if self.inner is not None:  # the provider's own rules see the key and its ``env``
                    result = await self.inner.resolve(ctx=ctx, credential=stored)
                if result is None:
                    result = AuthResult(auth={"apiKey": key}, source="stored", env=credential.get("env"))
        elif credential and credential.get("type") == "api_key" and credential.get("env") and self.inner:
            result = await self.inner.resolve(ctx=ctx, credential=credential)  # e.g. a saved AWS profile
        if result is None and self.inner is not None:
            result = await self.inner.resolve(ctx=ctx, credential=None)
        if result is None and self.configured_key:
            key = await resolve_value_in(self.configured_key, ctx.env)
            if key:
                result = AuthResult(auth={"apiKey": key}, source="models.json")
            elif is_command(self.configured_key):  # say which command failed (issue 19 item 11)
                command = self.configured_key[1:].strip()
                raise ModelsError(
                    "auth",
                    f"API key auth failed for provider {self.name}: Failed to resolve API key for provider "
                    f'"{self.name}" from shell command: {command} (it failed or printed nothing)',
                )
        if result is not None and self.auth_header and result.auth.get("apiKey"):
            headers = dict(result.auth.get("headers") or {})
            headers["Authorization"] = f"Bearer {result.auth['apiKey']}"
            result = AuthResult(
                auth={**result.auth, "headers": headers}, source=result.source, env=result.env
            )
        return result

    async def check(self, ctx: AuthContext, credential: Any) -> AuthCheck | None:
        """Side-effect free: never runs a ``!command`` (a configured command counts as configured)."""
        if credential and credential.get("type") == "api_key":
            return {"configured": True, "type": "api_key", "source": "stored"}
        if self.inner is not None:
            check = getattr(self.inner, "check", None)
            inner_result = await check(ctx, None) if check is not None else None
            if inner_result and inner_result.get("configured"):
                return inner_result
        value = self.configured_key
        if value:
            if is_command(value):
                return {"configured": True, "type": "api_key", "source": "models_json_command"}
            if "$" in value:
                resolved = await resolve_value_in(value, ctx.env)
                return {"configured": bool(resolved), "type": "api_key", "source": "models.json"}
            return {"configured": True, "type": "api_key", "source": "models.json"}
        return {"configured": False}

    async def login(self, interaction: Any) -> Credential:
        login = getattr(self.inner, "login", None)
        if login is not None:
            return await login(interaction)
        key = await interaction.prompt({"type": "secret", "message": f"Enter {self.name}"})
        return {"type": "api_key", "key": key}


def _with_configured_key(auth: ProviderAuth, key: str | None, auth_header: bool, name: str) -> ProviderAuth:
    """A copy of ``auth`` whose API-key layer also knows the configured key (set values win)."""
    current = auth.api_key
    if isinstance(current, LayeredApiKeyAuth):
        layered = LayeredApiKeyAuth(
            current.inner, key or current.configured_key, auth_header or current.auth_header, name
        )
    else:
        layered = LayeredApiKeyAuth(current, key, auth_header, name)
    return ProviderAuth(api_key=layered, oauth=auth.oauth, extra=dict(auth.extra))


# ---------------------------------------------------------------------------------------------
# The provider object installed in the collection
# ---------------------------------------------------------------------------------------------


class _FunctionStreams:
    """``ProviderStreams`` over an extension's ``stream_simple(model, context, options)``."""

    def __init__(self, fn: Callable[..., AssistantMessageEventStream]) -> None:
        self.fn = fn

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        return self.fn(model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        return self.fn(model, context, options)


@dataclass
class RegistryProvider:
    """One provider as the registry built it: models plus routing to the right wire adapter.

    Built-in models go through the built-in provider (``inner``), which may add vendor specifics;
    custom and extension models go through the adapter named by their ``api``; an extension's
    ``stream_simple`` wins for its ``api``.
    """

    id: str
    name: str
    auth: ProviderAuth
    models: list[Model] = field(default_factory=list)
    base_url: str | None = None
    headers: dict[str, str] | None = None
    inner: Any = None
    builtin_ids: set[str] = field(default_factory=set)
    streams: dict[str, ProviderStreams] = field(default_factory=dict)
    adapters: dict[str, ProviderStreams] = field(default_factory=dict)
    filter_models: Callable[[Sequence[Model], Credential | None], Sequence[Model]] | None = None
    loader: Callable[[RegistryProvider], None] | None = None
    """Fills ``models``, ``builtin_ids`` and ``adapters`` of a built-in provider on first use."""

    def ensure_loaded(self) -> None:
        """Run the pending ``loader`` once (thread-safe); a no-op for a provider already built."""
        if self.loader is None:
            return
        with _LOAD_LOCK:
            loader = self.loader
            if loader is not None:
                loader(self)
                self.loader = None

    def get_models(self) -> Sequence[Model]:
        self.ensure_loaded()
        return list(self.models)

    def _route(self, model: Model) -> ProviderStreams | None:
        self.ensure_loaded()
        if model.api in self.streams:
            return self.streams[model.api]
        if self.inner is not None and model.id in self.builtin_ids:
            return self.inner
        if model.api in self.adapters:
            return self.adapters[model.api]
        return self.inner

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        impl = self._route(model)
        if impl is None:
            return error_stream(model, f"No API implementation for api '{model.api}' in provider '{self.id}'")
        return impl.stream(model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        impl = self._route(model)
        if impl is None:
            return error_stream(model, f"No API implementation for api '{model.api}' in provider '{self.id}'")
        return impl.stream_simple(model, context, options)

    async def aclose(self) -> None:
        closer = getattr(self.inner, "aclose", None)
        if closer is not None:
            await closer()


_LOAD_LOCK = threading.RLock()  # one provider's catalogue is read once, whichever thread asks first


# ---------------------------------------------------------------------------------------------
# Merging helpers (R-MOD-05..09)
# ---------------------------------------------------------------------------------------------


def merge_compat(base: Mapping[str, Any] | None, override: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Key-by-key merge; routing objects merge key by key rather than being replaced (R-MOD-06)."""
    if not base and not override:
        return None
    merged: dict[str, Any] = copy.deepcopy(dict(base or {}))
    for key, value in (override or {}).items():
        if key in _ROUTING_KEYS and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **copy.deepcopy(dict(value))}
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _compat_dict(compat: CompatConfig | None) -> dict[str, Any] | None:
    return compat.to_json_dict() if compat is not None else None


def _merge_headers(*layers: Mapping[str, str] | None) -> dict[str, str] | None:
    merged: dict[str, str] = {}
    for layer in layers:
        merged.update(layer or {})
    return merged or None


def _thinking_map(model_map: Any, compat: Mapping[str, Any] | None) -> dict[str, str | None] | None:
    if model_map is not None:
        return dict(model_map.to_json_dict()) if hasattr(model_map, "to_json_dict") else dict(model_map)
    legacy = (compat or {}).get("reasoningEffortMap")
    return dict(legacy) if legacy else None


def model_from_definition(
    provider: str,
    definition: ModelDefinition,
    config: ProviderConfig,
    defaults: Model | None = None,
) -> Model:
    """A custom ``models.json`` model with the R-MOD-04 defaults (built-in provider defaults first)."""
    compat = merge_compat(_compat_dict(config.compat), _compat_dict(definition.compat))
    headers = _merge_headers(resolve_headers(config.headers), resolve_headers(definition.headers))
    cost = definition.cost
    model_cost = (
        ModelCost(cost.input, cost.output, cost.cache_read, cost.cache_write) if cost else ModelCost()
    )
    if cost is not None and cost.tiers:
        model_cost.tiers = [t.to_json_dict() for t in cost.tiers]
    return Model(
        id=definition.id,
        name=definition.name or definition.id,
        api=definition.api or config.api or (defaults.api if defaults else "") or "",
        provider=provider,
        base_url=definition.base_url or config.base_url or (defaults.base_url if defaults else ""),
        reasoning=bool(definition.reasoning) if definition.reasoning is not None else False,
        input=list(definition.input) if definition.input is not None else ["text"],
        cost=model_cost,
        context_window=int(definition.context_window) if definition.context_window is not None else 128000,
        max_tokens=int(definition.max_tokens) if definition.max_tokens is not None else 16384,
        headers=headers,
        compat=compat,
        thinking_level_map=_thinking_map(definition.thinking_level_map, compat),
        input_limits=definition.input_limits.to_json_dict() if definition.input_limits else None,
        prompt_cache=definition.prompt_cache.to_json_dict() if definition.prompt_cache else None,
        sampling_params=copy.deepcopy(definition.sampling_params),
        sampling_params_by_thinking_level=_by_level(definition.sampling_params_by_thinking_level),
    )


def _by_level(params: Mapping[ThinkingLevelName, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    """A deep copy of ``samplingParamsByThinkingLevel``, keyed by level name."""
    return None if params is None else {level: copy.deepcopy(p) for level, p in params.items()}


def _merge_objects(base: Mapping[str, Any] | None, override: Mapping[str, Any]) -> dict[str, Any]:
    """Object fields of ``modelOverrides`` merge key by key, nested objects too (pi 1.6.0)."""
    merged: dict[str, Any] = copy.deepcopy(dict(base or {}))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge_objects(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_model_override(model: Model, override: ModelOverride) -> Model:
    """R-MOD-08: scalars replace, cost per field, headers/thinkingLevelMap per key, compat deep."""
    out = replace(model, cost=replace(model.cost))
    if override.name is not None:
        out.name = override.name
    if override.reasoning is not None:
        out.reasoning = override.reasoning
    if override.input is not None:
        out.input = list(override.input)
    if override.context_window is not None:
        out.context_window = int(override.context_window)
    if override.max_tokens is not None:
        out.max_tokens = int(override.max_tokens)
    if override.cost is not None:
        for attr in ("input", "output", "cache_read", "cache_write"):
            value = getattr(override.cost, attr)
            if value is not None:
                setattr(out.cost, attr, value)
        if override.cost.tiers is not None:
            out.cost.tiers = [t.to_json_dict() for t in override.cost.tiers]
    if override.input_limits is not None:
        out.input_limits = _merge_objects(model.input_limits, override.input_limits.to_json_dict())
    if override.prompt_cache is not None:
        out.prompt_cache = _merge_objects(model.prompt_cache, override.prompt_cache.to_json_dict())
    if override.sampling_params is not None:
        out.sampling_params = _merge_objects(model.sampling_params, override.sampling_params)
    if override.sampling_params_by_thinking_level is not None:
        out.sampling_params_by_thinking_level = _merge_objects(
            model.sampling_params_by_thinking_level,
            _by_level(override.sampling_params_by_thinking_level) or {},
        )
    if override.headers is not None:
        out.headers = _merge_headers(model.headers, resolve_headers(override.headers))
    if override.compat is not None:
        out.compat = merge_compat(model.compat, _compat_dict(override.compat))
    if override.thinking_level_map is not None:
        out.thinking_level_map = {
            **(model.thinking_level_map or {}),
            **override.thinking_level_map.to_json_dict(),
        }
    return out


def _model_from_registration(provider: str, cfg: ExtensionProviderConfig, m: ProviderModelConfig) -> Model:
    if isinstance(m.cost, ModelCost):
        cost = m.cost
    else:
        values: dict[str, Any] = {_snake(k): v for k, v in m.cost.items()}
        cost = ModelCost(**values)
    return Model(
        id=m.id,
        name=m.name,
        api=m.api or cfg.api or "",
        provider=provider,
        base_url=m.base_url or cfg.base_url or "",
        reasoning=m.reasoning,
        input=list(m.input),
        cost=replace(cost),
        context_window=m.context_window,
        max_tokens=m.max_tokens,
        headers=_merge_headers(resolve_headers(cfg.headers), resolve_headers(m.headers)),
        compat=copy.deepcopy(m.compat),
        thinking_level_map=dict(m.thinking_level_map) if m.thinking_level_map else None,
    )


# ---------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------


@dataclass
class _Registration:
    """A provider an extension registered, with the extension that owns it."""

    config: ExtensionProviderConfig
    owner: Any = None


class ModelRegistry:
    def __init__(
        self,
        credentials: CredentialStore,
        models_json_path: Path | str | None,
        auth_context: AuthContext | None = None,
        *,
        builtin_providers: Callable[[], Iterable[Any]] | None = None,
    ) -> None:
        self.credentials = credentials
        self.models_json_path = Path(models_json_path) if models_json_path is not None else None
        self.auth_context: AuthContext = auth_context if auth_context is not None else EnvAuthContext()
        self._builtin_factory = builtin_providers or load_builtin_providers
        self.models: MutableModels = create_models(credentials=credentials, auth_context=self.auth_context)
        self._registrations: dict[str, _Registration] = {}
        self._runtime_keys: dict[str, str] = {}
        self._adapters: dict[str, ProviderStreams] = {}
        self._credential_types: dict[str, str] = {}
        self._display_names: dict[str, str] = {}
        self._built: dict[str, RegistryProvider] = {}
        self._snapshot: tuple[Model, ...] | None = ()
        self._builtin_ids: frozenset[str] = frozenset()
        self._error: str | None = None
        self._rebuild()

    # -- reads (synchronous, over the last snapshot) ---------------------------------------------

    def get_all(self) -> tuple[Model, ...]:
        snapshot = self._snapshot
        if snapshot is None:
            built = self._built
            snapshot = tuple(m for p in built.values() for m in p.get_models())
            if self._built is built:  # not rebuilt meanwhile
                self._snapshot = snapshot
        return snapshot

    def provider_models(self, provider: str) -> Sequence[Model]:
        """The models of ``provider`` alone (only its catalogue is read); empty when unknown."""
        owner = self._built.get(provider)
        return owner.get_models() if owner is not None else ()

    def find(self, provider: str, model_id: str) -> Model | None:
        # every model a provider holds names that provider, so only its own list can match
        owner = self._built.get(provider)
        if owner is None:
            return None
        for model in owner.get_models():
            if model.provider == provider and model.id == model_id:
                return model
        return None

    def get_error(self) -> str | None:
        """The last ``models.json`` problem (R-MOD-01), or None."""
        return self._error

    def get_provider_ids(self) -> list[str]:
        return [p.id for p in self.models.get_providers()]

    def is_builtin_provider(self, provider: str) -> bool:
        return provider in self._builtin_ids

    def get_provider_display_name(self, provider: str) -> str:
        return self._display_names.get(provider, provider)

    def has_provider(self, provider: str) -> bool:
        return self.models.get_provider(provider) is not None

    # -- auth --------------------------------------------------------------------------------------

    def set_runtime_api_key(self, provider: str, key: str | None) -> None:
        """The ``--api-key`` override for one provider (D-7 step 1); None removes it."""
        if key:
            self._runtime_keys[provider] = key
        else:
            self._runtime_keys.pop(provider, None)

    async def _refresh_credential_types(self) -> None:
        try:
            infos = await self.credentials.list()
        except Exception:
            return
        self._credential_types = {str(i.get("providerId")): str(i.get("type")) for i in infos}

    async def get_available(self) -> list[Model]:
        """Models whose provider has credentials; never refreshes OAuth (R-MOD-13)."""
        await self._refresh_credential_types()
        return list(await self.models.get_available(configured=self._runtime_keys.keys()))

    async def has_credentials(self, provider: str) -> bool:
        if provider in self._runtime_keys:
            return True
        check = await self.models.check_auth(provider)
        return bool(check and check.get("configured"))

    async def get_api_key_for_provider(self, provider: str) -> str | None:
        if provider in self._runtime_keys:
            return self._runtime_keys[provider]
        if self.models.get_provider(provider) is None:
            return None
        result = await self.models.get_auth(provider)
        await self._refresh_credential_types()
        return result.auth.get("apiKey") if result is not None else None

    async def get_api_key(self, model: Model) -> str | None:
        """The key a request for ``model`` would use (D-7 order); OAuth refreshes when expired."""
        return await self.get_api_key_for_provider(model.provider)

    def is_using_oauth(self, model: Model) -> bool:
        """Whether the stored credential of the model's provider is OAuth (as of the last check)."""
        return self._credential_types.get(model.provider) == "oauth"

    # -- streaming -------------------------------------------------------------------------------

    def _with_runtime_key(self, model: Model, options: StreamOptions | None, simple: bool) -> Any:
        key = self._runtime_keys.get(model.provider)
        if not key:
            return options
        if options is None:
            return SimpleStreamOptions(api_key=key) if simple else StreamOptions(api_key=key)
        if getattr(options, "api_key", None):
            return options
        return replace(options, api_key=key)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None, **kwargs: Any
    ) -> AssistantMessageEventStream:
        return self.models.stream_simple(
            model, context, self._with_runtime_key(model, options, True), **kwargs
        )

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
    ) -> AssistantMessageEventStream:
        return self.models.stream(model, context, self._with_runtime_key(model, options, False), **kwargs)

    # -- extension providers (R-MOD-14..16) ------------------------------------------------------

    def register_provider(self, name: str, config: Any, *, owner: Any = None) -> None:
        """Validate and apply at once; raises ``ValueError`` for an invalid config."""
        cfg = normalise_provider_config(name, config)
        previous = self._registrations.get(name)
        merged = _merge_registration(previous.config, cfg) if previous is not None else cfg
        self._registrations[name] = _Registration(
            merged, owner if owner is not None else getattr(previous, "owner", None)
        )
        try:
            self._rebuild()
        except Exception:
            if previous is None:
                self._registrations.pop(name, None)
            else:
                self._registrations[name] = previous
            self._rebuild()
            raise

    def unregister_provider(self, name: str) -> None:
        """No-op if not registered; otherwise rebuild without it (built-ins come back, R-MOD-15)."""
        if self._registrations.pop(name, None) is not None:
            self._rebuild()

    def unregister_owner(self, owner: Any) -> None:
        """Drop every registration made by one extension runtime (R-MOD-16)."""
        names = [n for n, r in self._registrations.items() if r.owner is owner]
        for name in names:
            del self._registrations[name]
        if names:
            self._rebuild()

    def registered_provider_names(self) -> list[str]:
        return list(self._registrations)

    async def refresh(self) -> None:
        """Re-read ``models.json`` and rebuild; extension registrations are re-applied (R-MOD-10)."""
        self._rebuild()
        await self._refresh_credential_types()

    # -- building ----------------------------------------------------------------------------------

    def _adapter(self, api: str) -> ProviderStreams | None:
        if api not in self._adapters:
            target = known_apis().get(api)
            if target is None:
                return None
            self._adapters[api] = lazy_stream(*target)
        return self._adapters[api]

    def _adapters_for(self, models: Iterable[Model]) -> dict[str, ProviderStreams]:
        out: dict[str, ProviderStreams] = {}
        for model in models:
            adapter = self._adapter(model.api)
            if adapter is not None:
                out[model.api] = adapter
        return out

    def _rebuild(self) -> None:
        builtins = {p.id: p for p in self._builtin_factory()}
        config, error = load_models_config(self.models_json_path, builtins.keys())
        self._error = error
        providers: dict[str, RegistryProvider] = {}
        display: dict[str, str] = {}

        for pid, inner in builtins.items():
            inner_auth = inner.auth
            api_key = inner_auth.api_key
            providers[pid] = RegistryProvider(
                id=pid,
                name=getattr(inner, "name", pid) or pid,
                auth=ProviderAuth(
                    api_key=LayeredApiKeyAuth(api_key, None, False, pid) if api_key is not None else None,
                    oauth=inner_auth.oauth,
                    extra=dict(inner_auth.extra),
                ),
                base_url=getattr(inner, "base_url", None),
                headers=getattr(inner, "headers", None),
                inner=inner,
                filter_models=getattr(inner, "filter_models", None),
                loader=self._load_builtin,
            )
            display[pid] = getattr(inner, "name", pid) or pid

        if config is not None:
            self._apply_models_json(config, providers, display)
        for name, registration in self._registrations.items():
            self._apply_registration(name, registration.config, providers, display)

        for provider in providers.values():
            if provider.loader is None:
                provider.adapters = self._adapters_for(provider.models)

        # one synchronous swap: readers never observe a half-built collection
        self.models.clear_providers()
        for provider in providers.values():
            self.models.set_provider(provider)
        self._display_names = display
        self._builtin_ids = frozenset(builtins)
        self._built = providers
        self._snapshot = None

    def _load_builtin(self, provider: RegistryProvider) -> None:
        """A built-in provider's catalogue models, copied so that the registry's are its own."""
        models = [replace(m, cost=replace(m.cost)) for m in provider.inner.get_models()]
        provider.models = models
        provider.builtin_ids = {m.id for m in models}
        provider.adapters = self._adapters_for(models)

    def _apply_models_json(
        self, config: ModelsConfig, providers: dict[str, RegistryProvider], display: dict[str, str]
    ) -> None:
        for pid, pconf in config.providers.items():
            existing = providers.get(pid)
            if pconf.name:
                display[pid] = pconf.name
            if existing is None:
                models = [model_from_definition(pid, d, pconf) for d in pconf.models or []]
                providers[pid] = RegistryProvider(
                    id=pid,
                    name=pconf.name or pid,
                    auth=ProviderAuth(
                        api_key=LayeredApiKeyAuth(None, pconf.api_key, bool(pconf.auth_header), pid)
                    ),
                    models=models,
                    base_url=pconf.base_url,
                )
                continue
            # a built-in provider: provider-level override, then modelOverrides, then upserts
            existing.ensure_loaded()
            provider_headers = resolve_headers(pconf.headers)
            provider_compat = _compat_dict(pconf.compat)
            updated: list[Model] = []
            for model in existing.models:
                model = replace(
                    model,
                    base_url=pconf.base_url or model.base_url,
                    headers=_merge_headers(model.headers, provider_headers),
                    compat=merge_compat(model.compat, provider_compat),
                )
                override = (pconf.model_overrides or {}).get(model.id)
                if override is not None:
                    model = apply_model_override(model, override)
                updated.append(model)
            defaults = existing.models[0] if existing.models else None
            for definition in pconf.models or []:
                custom = model_from_definition(pid, definition, pconf, defaults)
                updated = [m for m in updated if m.id != custom.id]
                existing.builtin_ids.discard(custom.id)
                updated.append(custom)
            existing.models = updated
            if pconf.base_url:
                existing.base_url = pconf.base_url
            existing.auth = _with_configured_key(existing.auth, pconf.api_key, bool(pconf.auth_header), pid)

    def _apply_registration(
        self,
        name: str,
        cfg: ExtensionProviderConfig,
        providers: dict[str, RegistryProvider],
        display: dict[str, str],
    ) -> None:
        existing = providers.get(name)
        if existing is None:
            existing = providers[name] = RegistryProvider(
                id=name, name=cfg.name or name, auth=ProviderAuth(), base_url=cfg.base_url
            )
        existing.ensure_loaded()
        if cfg.name:
            display[name] = cfg.name
            existing.name = cfg.name
        existing.auth = _with_configured_key(existing.auth, cfg.api_key, cfg.auth_header, name)
        if cfg.oauth is not None:
            existing.auth.oauth = cfg.oauth
        if cfg.stream_simple is not None and cfg.api:
            existing.streams[cfg.api] = _FunctionStreams(cfg.stream_simple)
        if cfg.filter_models is not None:
            existing.filter_models = cfg.filter_models
        if cfg.models:
            existing.models = [_model_from_registration(name, cfg, m) for m in cfg.models]
            existing.builtin_ids = set()
            existing.base_url = cfg.base_url
        elif cfg.base_url or cfg.headers:
            headers = resolve_headers(cfg.headers)
            existing.models = [
                replace(m, base_url=cfg.base_url or m.base_url, headers=_merge_headers(m.headers, headers))
                for m in existing.models
            ]
            if cfg.base_url:
                existing.base_url = cfg.base_url
