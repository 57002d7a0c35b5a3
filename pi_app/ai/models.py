"""Providers and the ``Models`` collection (spec 10 §2.11, §3.5).

A ``ProviderStreams`` is one wire-API implementation (e.g. ``anthropic-messages``); a ``Provider``
is one vendor's runtime object (id, auth, models, one or more wire APIs); ``Models`` holds providers,
routes a request by ``model.provider``, resolves auth and injects it, and never raises from a
stream function: every failure becomes an ``error`` event (spec 10 §2.10).

There is no global registry: every caller builds its own collection with ``create_models()``.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import re
import weakref
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from pi_app.ai.auth.memory_store import InMemoryCredentialStore
from pi_app.ai.auth.resolve import ModelsError, resolve_provider_auth
from pi_app.ai.auth.types import (
    AuthContext,
    AuthInteraction,
    AuthResult,
    Credential,
    CredentialInfo,
    CredentialStore,
    EnvAuthContext,
    ProviderAuth,
    overlay_context,
)
from pi_app.ai.event_stream import AbortSignal, AssistantMessageEventStream
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    now_ms,
)

if TYPE_CHECKING:
    import httpx

    from pi_app.ai.types import StreamOptions


class ProviderStreams(Protocol):
    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream: ...

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream: ...


class Provider(Protocol):
    id: str
    name: str
    base_url: str | None
    headers: dict[str, str] | None
    auth: ProviderAuth

    def get_models(self) -> Sequence[Model]: ...

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream: ...

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream: ...


# ---------------------------------------------------------------------------------------------
# Helpers shared by adapters and the collection
# ---------------------------------------------------------------------------------------------


def error_message_for(model: Model, text: str, *, aborted: bool = False) -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="aborted" if aborted else "error",
        error_message=text or ("Request was aborted" if aborted else "Unknown error"),
        timestamp=now_ms(),
    )


def error_stream(model: Model, text: str, *, aborted: bool = False) -> AssistantMessageEventStream:
    """A stream whose only event is ``error`` (pre-flight failure, R-AI-25)."""
    stream = AssistantMessageEventStream()
    message = error_message_for(model, text, aborted=aborted)
    stream.push(ErrorEvent(reason=message.stop_reason, error=message))
    return stream


def missing_key_message(provider: Provider) -> str:
    """One line naming what to set: the key variable(s) and ``/login`` (or ``pi auth login``)."""
    api_key = getattr(provider.auth, "api_key", None)
    hint = getattr(api_key, "missing_hint", None)
    if hint is None:
        names = list(getattr(api_key, "env_vars", None) or [])
        required = list(getattr(api_key, "required_env", None) or [])
        hint = " and ".join(names[:1] + required) if names else ""
    if not hint:
        return f"No credentials for {provider.id}: sign in with /login (or pi auth login {provider.id})"
    return f"No API key for {provider.id}: set {hint}, or use /login (or pi auth login {provider.id})"


@dataclass
class MissingSetting:
    name: str


_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


async def fill_base_url(url: str, ctx: AuthContext, env: Mapping[str, str]) -> str | MissingSetting:
    """Replace ``{VAR}`` in a catalogue base URL (Cloudflare's account id) from the request env."""
    out = url
    for name in dict.fromkeys(_PLACEHOLDER.findall(url)):
        value = env.get(name) or await ctx.env(name)
        if not value:
            return MissingSetting(name)
        out = out.replace("{" + name + "}", value)
    return out


def merge_headers(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """Later layers win on case-insensitive name collisions (R-AI-29)."""
    merged: dict[str, tuple[str, str]] = {}
    for layer in layers:
        if not layer:
            continue
        for name, value in layer.items():
            merged[name.lower()] = (name, value)
    return {name: value for name, value in merged.values()}


def forward_stream(
    target: AssistantMessageEventStream,
    model: Model,
    make_source: Callable[[], Awaitable[AssistantMessageEventStream]],
    signal: AbortSignal | None = None,
) -> AssistantMessageEventStream:
    """Run ``make_source`` in a producer task and copy its events into ``target``.

    Any exception becomes an ``error`` event; the target always ends with exactly one terminal.
    """

    async def produce() -> None:
        try:
            source = await make_source()
            async for event in source:
                target.push(event)
            if not target.done:
                message = error_message_for(model, "stream ended without a terminal event")
                target.push(ErrorEvent(reason="error", error=message))
        except asyncio.CancelledError:
            aborted = error_message_for(model, "Request was aborted", aborted=True)
            target.push(ErrorEvent(reason="aborted", error=aborted))
            raise
        except Exception as exc:  # rule 2 of spec 10 §2.10: never raise from a stream
            was_aborted = bool(signal is not None and getattr(signal, "aborted", False))
            text = "Request was aborted" if was_aborted else (str(exc) or type(exc).__name__)
            message = error_message_for(model, text, aborted=was_aborted)
            target.push(ErrorEvent(reason=message.stop_reason, error=message))
        finally:
            target.end()

    target.producer = asyncio.get_running_loop().create_task(produce())
    return target


# ---------------------------------------------------------------------------------------------
# Lazy wire adapters
# ---------------------------------------------------------------------------------------------


class LazyApi:
    """A ``ProviderStreams`` that imports its adapter module on the first stream (R-AI-03).

    ``module`` is a dotted path and ``factory`` the name of a zero-argument function in it that
    returns the real ``ProviderStreams``.
    """

    def __init__(self, module: str, factory: str) -> None:
        self.module = module
        self.factory = factory
        self._impl: ProviderStreams | None = None

    def _load(self) -> ProviderStreams:
        if self._impl is None:
            mod = importlib.import_module(self.module)
            self._impl = getattr(mod, self.factory)()
        return self._impl

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        try:
            impl = self._load()
        except Exception as exc:
            return error_stream(model, f"Failed to load {self.module}: {exc}")
        return impl.stream(model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        try:
            impl = self._load()
        except Exception as exc:
            return error_stream(model, f"Failed to load {self.module}: {exc}")
        return impl.stream_simple(model, context, options)


def lazy_stream(module: str, factory: str) -> LazyApi:
    return LazyApi(module, factory)


# ---------------------------------------------------------------------------------------------
# create_provider
# ---------------------------------------------------------------------------------------------


@dataclass
class BasicProvider:
    """The ``Provider`` built by :func:`create_provider`."""

    id: str
    auth: ProviderAuth
    api: Any
    name: str = ""
    base_url: str | None = None
    headers: dict[str, str] | None = None
    models: list[Model] = field(default_factory=list)
    fetch_models: Callable[..., Awaitable[Sequence[Model]]] | None = None
    filter_models: Callable[[Sequence[Model], Credential | None], Sequence[Model]] | None = None
    _dynamic: list[Model] = field(default_factory=list)

    def get_models(self) -> Sequence[Model]:
        if not self._dynamic:
            return list(self.models)
        by_id = {m.id: m for m in self.models}
        for m in self._dynamic:
            by_id[m.id] = m
        return list(by_id.values())

    async def refresh_models(self, ctx: Any = None) -> None:
        if self.fetch_models is None:
            return
        fetched = await self.fetch_models(ctx)
        self._dynamic = list(fetched)

    def _streams_for(self, model: Model) -> ProviderStreams | None:
        if isinstance(self.api, Mapping):
            return self.api.get(model.api)
        return self.api

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        impl = self._streams_for(model)
        if impl is None:
            return error_stream(model, f"No API implementation for api '{model.api}' in provider '{self.id}'")
        return impl.stream(model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        impl = self._streams_for(model)
        if impl is None:
            return error_stream(model, f"No API implementation for api '{model.api}' in provider '{self.id}'")
        return impl.stream_simple(model, context, options)


def create_provider(
    *,
    id: str,
    auth: ProviderAuth,
    api: ProviderStreams | Mapping[str, ProviderStreams],
    name: str | None = None,
    base_url: str | None = None,
    headers: dict[str, str] | None = None,
    models: Sequence[Model] = (),
    fetch_models: Callable[..., Awaitable[Sequence[Model]]] | None = None,
    filter_models: Callable[[Sequence[Model], Credential | None], Sequence[Model]] | None = None,
) -> BasicProvider:
    return BasicProvider(
        id=id,
        name=name or id,
        auth=auth,
        api=api,
        base_url=base_url,
        headers=headers,
        models=list(models),
        fetch_models=fetch_models,
        filter_models=filter_models,
    )


# ---------------------------------------------------------------------------------------------
# The collection
# ---------------------------------------------------------------------------------------------


@dataclass
class ModelsRefreshResult:
    """Providers whose model lists were refreshed, and the errors of the others."""

    refreshed: list[str] = field(default_factory=list)
    errors: dict[str, ModelsError] = field(default_factory=dict)


class MutableModels:
    """The ``Models`` collection with ``set_provider``/``delete_provider``/``clear_providers``."""

    def __init__(
        self,
        *,
        credentials: CredentialStore | None = None,
        auth_context: AuthContext | None = None,
        http_client_factory: Callable[[], Any] | None = None,
        model_cache: Any = None,
    ) -> None:
        self.credentials: CredentialStore = (
            credentials if credentials is not None else InMemoryCredentialStore()
        )
        self.auth_context: AuthContext = auth_context if auth_context is not None else EnvAuthContext()
        self.http_client_factory = http_client_factory
        self.model_cache = model_cache
        self._providers: dict[str, Any] = {}  # Providers, some with extras (filter_models)
        self._model_errors: dict[str, ModelsError] = {}
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    def http_client(self) -> httpx.AsyncClient:
        """The collection's HTTP client for the running loop, created on first use (R-AI-84)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or getattr(client, "is_closed", False):
            if self.http_client_factory is not None:
                client = self.http_client_factory()
            else:
                from pi_app.ai.http.client import new_http_client

                client = new_http_client()
            self._clients[loop] = client
        return client

    # -- providers ------------------------------------------------------------------------------

    def set_provider(self, provider: Any) -> None:
        self._providers.pop(provider.id, None)
        self._providers[provider.id] = provider

    def delete_provider(self, id: str) -> None:
        self._providers.pop(id, None)

    def clear_providers(self) -> None:
        self._providers.clear()

    def get_providers(self) -> Sequence[Any]:
        return list(self._providers.values())

    def get_provider(self, id: str) -> Any | None:
        return self._providers.get(id)

    def get_models(self, provider: str | None = None) -> Sequence[Model]:
        providers = (
            [self._providers[provider]]
            if provider in self._providers
            else ([] if provider is not None else list(self._providers.values()))
        )
        out: list[Model] = []
        for p in providers:
            try:
                out.extend(p.get_models())
            except Exception as exc:
                self._model_errors[p.id] = ModelsError(
                    "model_source", f"Failed to list models of {p.id}", exc
                )
        return out

    def get_model(self, provider: str, id: str) -> Model | None:
        for m in self.get_models(provider):
            if m.id == id:
                return m
        return None

    async def refresh(self, options: StreamOptions | None = None) -> ModelsRefreshResult:
        result = ModelsRefreshResult()

        async def one(p: Any) -> None:
            refresh = getattr(p, "refresh_models", None)
            if refresh is None:
                return
            try:
                await refresh(None)
                result.refreshed.append(p.id)
            except Exception as exc:
                result.errors[p.id] = ModelsError("model_source", f"Failed to refresh models of {p.id}", exc)

        await asyncio.gather(*(one(p) for p in self._providers.values()))
        return result

    # -- auth -----------------------------------------------------------------------------------

    async def check_auth(self, provider_id: str) -> dict[str, Any] | None:
        provider = self._providers.get(provider_id)
        if provider is None:
            return None
        return await self._check_auth(provider, await self._credential_infos())

    async def _credential_infos(self) -> dict[Any, CredentialInfo]:
        return {i.get("providerId"): i for i in await self.credentials.list()}

    async def _check_auth(self, provider: Any, infos: Mapping[Any, CredentialInfo]) -> dict[str, Any] | None:
        provider_id = provider.id
        info = infos.get(provider_id)
        if info and info.get("type") == "oauth" and provider.auth.oauth is not None:
            expires = info.get("expires")
            return {
                "configured": True,
                "type": "oauth",
                "source": "stored",
                "expired": bool(expires is not None and now_ms() >= int(expires)),
            }
        api_key = provider.auth.api_key
        if info and info.get("type") == "api_key" and api_key is not None:
            return {"configured": True, "type": "api_key", "source": "stored"}
        if api_key is not None:
            check = getattr(api_key, "check", None)
            if check is not None:
                return await check(self.auth_context, None)
            result = await api_key.resolve(ctx=self.auth_context, credential=None)
            return {
                "configured": result is not None,
                "type": "api_key",
                "source": result.source if result else None,
            }
        return {"configured": False}

    async def get_available(
        self, provider_id: str | None = None, *, configured: Collection[str] = ()
    ) -> Sequence[Model]:
        """The models of providers with credentials, in provider order; the stored credentials
        are read once. A provider in ``configured`` (e.g. one with a ``--api-key``) counts as
        configured without a check and lists its models unfiltered."""
        out: list[Model] = []
        providers = (
            [self._providers[provider_id]]
            if provider_id in self._providers
            else ([] if provider_id is not None else list(self._providers.values()))
        )
        infos: Mapping[Any, CredentialInfo] | None = None
        for p in providers:
            if p.id in configured:
                out.extend(p.get_models())
                continue
            if infos is None:
                infos = await self._credential_infos()
            check = await self._check_auth(p, infos)
            if not check or not check.get("configured"):
                continue
            models = list(p.get_models())
            if getattr(p, "filter_models", None):
                models = list(p.filter_models(models, await self.credentials.read(p.id)))
            out.extend(models)
        return out

    async def get_auth(
        self, model_or_provider_id: Model | str, overrides: dict[str, Any] | None = None
    ) -> AuthResult | None:
        provider_id = (
            model_or_provider_id if isinstance(model_or_provider_id, str) else model_or_provider_id.provider
        )
        provider = self._providers.get(provider_id)
        if provider is None:
            raise ModelsError("provider", f"Unknown provider: {provider_id}")
        return await resolve_provider_auth(provider, self.credentials, self.auth_context, overrides)

    async def login(self, provider_id: str, type: str, interaction: AuthInteraction) -> Credential:
        provider = self._providers.get(provider_id)
        if provider is None:
            raise ModelsError("provider", f"Unknown provider: {provider_id}")
        impl = provider.auth.oauth if type == "oauth" else provider.auth.api_key
        login = getattr(impl, "login", None) if impl is not None else None
        if login is None:
            raise ModelsError("auth", f"Provider {provider_id} does not support {type} login")
        try:
            credential = await login(interaction)
        except ModelsError:
            raise
        except Exception as exc:
            signal = getattr(interaction, "signal", None)
            if signal is not None and signal.aborted:
                raise ModelsError("auth", "Login cancelled") from exc
            raise ModelsError("auth", f"Login failed for {provider_id}", exc) from exc

        async def store(_: Credential | None) -> Credential | None:
            return credential

        await self.credentials.modify(provider_id, store)
        return credential

    async def logout(self, provider_id: str) -> None:
        await self.credentials.delete(provider_id)

    # -- streaming ------------------------------------------------------------------------------

    def _route(
        self,
        model: Model,
        context: Context,
        options: StreamOptions | None,
        simple: bool,
        transform_headers: Callable[[dict[str, str]], Any] | None = None,
    ) -> AssistantMessageEventStream:
        asyncio.get_running_loop()  # R-AI-18: a programming error outside a loop
        signal = getattr(options, "signal", None)
        if signal is not None and signal.aborted:
            return error_stream(model, "Request was aborted", aborted=True)
        provider = self._providers.get(model.provider)
        if provider is None:
            return error_stream(model, f"Unknown provider: {model.provider}")
        opts = (
            copy.copy(options)
            if options is not None
            else (SimpleStreamOptions() if simple else StreamOptions())
        )

        async def make_source() -> AssistantMessageEventStream:
            ctx = overlay_context(self.auth_context, opts.env)
            overrides = {"api_key": opts.api_key} if opts.api_key else None
            try:
                resolved = await resolve_provider_auth(provider, self.credentials, ctx, overrides, signal)
            except ModelsError as exc:
                return error_stream(model, str(exc))
            if resolved is None:
                return error_stream(model, missing_key_message(provider))
            auth = resolved.auth
            target_model = model
            if auth.get("baseUrl"):
                target_model = replace(model, base_url=auth["baseUrl"])
            request_env = {**(resolved.env or {}), **(opts.env or {})}
            if "{" in (target_model.base_url or ""):
                base_url = await fill_base_url(target_model.base_url, ctx, request_env)
                if isinstance(base_url, MissingSetting):
                    return error_stream(model, f"{base_url.name} is not set (needed by {provider.id})")
                target_model = replace(target_model, base_url=base_url)
            headers = merge_headers(provider.headers, model.headers, auth.get("headers"), opts.headers)
            if transform_headers is not None:
                maybe = transform_headers(headers)
                headers = await maybe if asyncio.iscoroutine(maybe) else maybe
            request_opts = replace(
                opts,
                api_key=auth.get("apiKey") or opts.api_key,
                headers=headers or None,
                env=request_env or None,
            )
            if getattr(request_opts, "http_client", None) is None:
                request_opts.http_client = self.http_client()
            if simple:
                return provider.stream_simple(target_model, context, request_opts)
            return provider.stream(target_model, context, request_opts)

        return forward_stream(AssistantMessageEventStream(), model, make_source, signal)

    def stream(
        self,
        model: Model,
        context: Context,
        options: StreamOptions | None = None,
        *,
        transform_headers: Callable[[dict[str, str]], Any] | None = None,
    ) -> AssistantMessageEventStream:
        """Route to the model's provider; ``transform_headers`` is a Models-only hook (R-AI-29)."""
        return self._route(model, context, options, False, transform_headers)

    def stream_simple(
        self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions | None = None,
        *,
        transform_headers: Callable[[dict[str, str]], Any] | None = None,
    ) -> AssistantMessageEventStream:
        return self._route(model, context, options, True, transform_headers)

    async def complete(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessage:
        return await self.stream(model, context, options).result()

    async def complete_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        return await self.stream_simple(model, context, options).result()

    async def aclose(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        client = self._clients.pop(loop, None) if loop is not None else None
        if client is not None:
            await client.aclose()
        for p in self._providers.values():
            closer = getattr(p, "aclose", None)
            if closer is not None:
                await closer()


Models = MutableModels


def create_models(
    *,
    credentials: CredentialStore | None = None,
    auth_context: AuthContext | None = None,
    http_client_factory: Callable[[], Any] | None = None,
    model_cache: Any = None,
) -> MutableModels:
    return MutableModels(
        credentials=credentials,
        auth_context=auth_context,
        http_client_factory=http_client_factory,
        model_cache=model_cache,
    )
