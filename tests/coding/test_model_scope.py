"""The model scope has one owner, ``AgentSession.model_scope`` (issue 21): Ctrl+P, the model
selector, ``/model`` and ``/scoped-models`` all see the same models, and RPC's ``cycle_model``
says whether they came from a scope."""

from __future__ import annotations

from pi_app.agent import Agent, AgentOptions
from pi_app.ai.testing import fake_model, fake_provider
from pi_app.ai.types import Model
from pi_app.coding.agent_session import AgentSession
from pi_app.coding.messages import convert_to_llm
from pi_app.coding.models.resolver import ScopedModel
from pi_app.coding.session import SessionManager
from pi_app.coding.settings import SettingsManager

OPENAI_GPT = fake_model("gpt-4o", "openai")  # no credentials
AZURE_GPT = fake_model("gpt-4o", "azure")
CLAUDE = fake_model("claude-x", "anthropic")


class Registry:
    def __init__(self, models: list[Model], available: list[Model]) -> None:
        self.models = models
        self.available = available

    def get_all(self) -> tuple[Model, ...]:
        return tuple(self.models)

    async def get_available(self) -> list[Model]:
        return list(self.available)

    async def has_credentials(self, provider: str) -> bool:
        return any(x.provider == provider for x in self.available)


def make(enabled: list[str] | None) -> AgentSession:
    agent = Agent(
        AgentOptions(
            initial_state={"model": CLAUDE, "thinking_level": "off"},
            convert_to_llm=convert_to_llm,
            stream_fn=fake_provider(models=[CLAUDE], script=[]).stream_simple,
        )
    )
    settings = SettingsManager.in_memory({"enabledModels": enabled} if enabled else None)
    return AgentSession(
        agent=agent,
        session_manager=SessionManager.in_memory("/p"),
        settings_manager=settings,
        model_registry=Registry([OPENAI_GPT, AZURE_GPT, CLAUDE], available=[AZURE_GPT, CLAUDE]),
        cwd="/p",
    )


async def test_enabled_models_resolve_over_the_models_with_credentials() -> None:
    """``gpt-4o`` names the one the user can use (azure), as the selector and pi 1.6.0 show it;
    Ctrl+P cycles to it instead of finding "only one model in scope"."""
    session = make(["gpt-4o", "claude-x"])
    assert [(s.model.provider, s.model.id) for s in await session.model_scope()] == [
        ("azure", "gpt-4o"),
        ("anthropic", "claude-x"),
    ]
    cycled = await session.cycle_model()
    assert cycled is not None and cycled.model is AZURE_GPT and cycled.is_scoped
    cycled = await session.cycle_model()
    assert cycled is not None and cycled.model is CLAUDE


async def test_the_session_scope_wins_and_no_scope_cycles_every_available_model() -> None:
    session = make(["gpt-4o"])
    session.scoped_models = [ScopedModel(CLAUDE), ScopedModel(AZURE_GPT, "high")]
    assert [s.model for s in await session.model_scope()] == [CLAUDE, AZURE_GPT]

    unscoped = make(None)
    assert await unscoped.model_scope() == []
    cycled = await unscoped.cycle_model()
    assert cycled is not None and cycled.model is AZURE_GPT and not cycled.is_scoped


async def test_the_scope_known_without_the_registry_is_the_last_resolved_one() -> None:
    """Extensions' ``ctx.scoped_models`` (pi 1.6.0: "the same set /scoped-models shows") reads it."""
    session = make(["gpt-4o", "claude-x"])
    assert session.known_model_scope == []  # nothing resolved yet (launch resolves it at start)
    await session.model_scope()
    assert [s.model for s in session.known_model_scope] == [AZURE_GPT, CLAUDE]
    session.settings_manager.set_enabled_models(["claude-x"])
    assert [s.model for s in session.known_model_scope] == [CLAUDE]
    session.scoped_models = [ScopedModel(AZURE_GPT)]
    assert [s.model for s in session.known_model_scope] == [AZURE_GPT]


async def test_launch_resolves_the_enabled_models_scope_before_extensions_start(
    tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import json

    from pi_app.coding.launch import LaunchHost, LaunchOptions, build_session

    agent = tmp_path / "agent"
    agent.mkdir()
    local = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k"}
    models = [{"id": "alpha"}, {"id": "beta"}, {"id": "gamma"}]
    (agent / "models.json").write_text(json.dumps({"providers": {"local": {**local, "models": models}}}))
    (agent / "settings.json").write_text(json.dumps({"enabledModels": ["local/gamma", "local/alpha"]}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    options = LaunchOptions(cwd=str(tmp_path), no_session=True, offline=True, no_extensions=True)
    created = await build_session(options, host=LaunchHost(report=lambda line: None))
    try:
        assert [s.model.id for s in created.session.known_model_scope] == ["gamma", "alpha"]
        assert created.session.scoped_models == []  # the setting's scope, not a --models one
    finally:
        created.session.dispose()
