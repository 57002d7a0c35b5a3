"""A session factory for TUI tests: the real ``AgentSession`` over the scripted provider."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_provider


def fake_session_factory(
    cwd: str,
    script: Sequence[Any] = (),
    *,
    with_model: bool = True,
    models: Sequence[Any] | None = None,
    settings: dict[str, Any] | None = None,
    thinking_level: str | None = None,
    session_dir: str | None = None,
) -> tuple[Callable[[], Awaitable[Any]], Any]:
    """Returns ``(factory, provider)``; the factory must run on the agent loop (the bridge does that).

    ``models`` replaces the provider's single ``fake-model`` (the first one is selected);
    ``settings`` seeds the in-memory ``SettingsManager``; ``session_dir`` writes the session there
    (in memory without it).
    """
    provider = fake_provider(script=list(script), models=list(models) if models is not None else None)

    async def factory() -> Any:
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.sdk import create_agent_session
        from pi_app.coding.session.manager import SessionManager
        from pi_app.coding.settings import SettingsManager

        registry = ModelRegistry(InMemoryCredentialStore(), None)
        model = None
        if with_model:
            registry.models.set_provider(provider)
            model = provider.get_models()[0]
        return await create_agent_session(
            cwd,
            session_manager=(
                SessionManager.create(cwd, session_dir) if session_dir else SessionManager.in_memory(cwd)
            ),
            settings_manager=SettingsManager.in_memory(dict(settings or {})),
            model_registry=registry,
            model=model,
            thinking_level=thinking_level,
            no_context_files=True,
        )

    return factory, provider


def history_session_factory(
    cwd: str,
    messages: Sequence[Any],
    *,
    models: Sequence[Any] | None = None,
    settings: dict[str, Any] | None = None,
    thinking_level: str | None = None,
) -> tuple[Callable[[], Awaitable[Any]], Any]:
    """Like ``fake_session_factory``, over a session that already holds ``messages`` (a resumed one)."""
    provider = fake_provider(models=list(models) if models is not None else None)

    async def factory() -> Any:
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.sdk import create_agent_session
        from pi_app.coding.session.manager import SessionManager
        from pi_app.coding.settings import SettingsManager

        registry = ModelRegistry(InMemoryCredentialStore(), None)
        registry.models.set_provider(provider)
        manager = SessionManager.in_memory(cwd)
        for message in messages:
            manager.append_message(message)
        return await create_agent_session(
            cwd,
            session_manager=manager,
            settings_manager=SettingsManager.in_memory(dict(settings or {})),
            model_registry=registry,
            model=provider.get_models()[0],
            thinking_level=thinking_level,
            no_context_files=True,
            continuing=True,
        )

    return factory, provider


def resource_session_factory(
    cwd: str,
    agent_dir: str,
    script: Sequence[Any] = (),
    *,
    settings: dict[str, Any] | None = None,
    trust_project: bool = False,
) -> tuple[Callable[[], Awaitable[Any]], Any]:
    """Like ``fake_session_factory``, with the real resource loader over ``cwd`` and ``agent_dir``:
    context files, skills, prompt templates and themes found there are loaded as ``pi`` would
    (the project's ``.pi`` resources only with ``trust_project``, like ``pi --approve``)."""
    provider = fake_provider(script=list(script))

    async def factory() -> Any:
        from pi_app.coding.launch import LaunchOptions, load_resources
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.sdk import create_agent_session
        from pi_app.coding.session.manager import SessionManager
        from pi_app.coding.settings import SettingsManager

        registry = ModelRegistry(InMemoryCredentialStore(), None)
        registry.models.set_provider(provider)
        settings_manager = SettingsManager.in_memory(dict(settings or {}))
        options = LaunchOptions(cwd=cwd, offline=True, approve=trust_project)
        loader = await load_resources(options, cwd, agent_dir, settings_manager, registry)
        return await create_agent_session(
            cwd,
            agent_dir=agent_dir,
            session_manager=SessionManager.in_memory(cwd),
            settings_manager=settings_manager,
            model_registry=registry,
            model=provider.get_models()[0],
            resource_loader=loader,
        )

    return factory, provider
