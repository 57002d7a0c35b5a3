"""ModelRegistry: built-ins + models.json + extension providers, key order (spec 40 scenarios 23-27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore
from pi_app.ai.testing import FakeApi, fake_provider, text
from pi_app.ai.types import Context, Model, UserMessage
from pi_app.coding.models.registry import ModelRegistry, known_apis

CTX = Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=1)])


def make(
    path: Path | None, builtins, env: dict[str, str] | None = None, creds: dict | None = None
) -> ModelRegistry:
    return ModelRegistry(
        InMemoryCredentialStore(creds or {}),
        path,
        DictAuthContext(env or {}),
        builtin_providers=builtins,
    )


async def ask(registry: ModelRegistry, model: Model, api: FakeApi) -> str | None:
    api.enqueue([text("ok")])
    message = await registry.stream_simple(model, CTX).result()
    assert message.stop_reason == "stop", message.error_message
    return api.calls[-1].options.api_key


OLLAMA = {
    "providers": {
        "ollama": {
            "baseUrl": "http://127.0.0.1:11434/v1",
            "api": "openai-completions",
            "apiKey": "ollama",
            "models": [{"id": "llama3.1:8b"}],
        }
    }
}


async def test_minimal_custom_provider_gets_defaults_and_is_available(models_json, builtins) -> None:
    registry = make(models_json(OLLAMA), builtins)
    model = registry.find("ollama", "llama3.1:8b")
    assert model is not None
    assert (model.name, model.context_window, model.max_tokens, model.input) == (
        "llama3.1:8b",
        128000,
        16384,
        ["text"],
    )
    assert (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write) == (
        0,
        0,
        0,
        0,
    )
    assert model.base_url == "http://127.0.0.1:11434/v1"
    assert model in await registry.get_available()
    assert registry.get_error() is None


async def test_custom_provider_streams_through_its_wire_adapter(models_json, builtins, fake_adapter) -> None:
    completions = fake_adapter("openai_completions", "openai_completions_api")
    data = {
        "providers": {
            "fake": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "x",
                "authHeader": True,
                "headers": {"X-Team": "$TEAM", "X-Empty": "$NOPE_UNSET"},
                "models": [{"id": "fake-model", "headers": {"X-Model": "m"}}],
            }
        }
    }
    registry = make(models_json(data), builtins, env={"TEAM": "blue"})
    model = registry.find("fake", "fake-model")
    assert model is not None
    assert await ask(registry, model, completions) == "x"
    call = completions.calls[-1]
    assert call.model.base_url == "http://127.0.0.1:9/v1"
    headers = call.options.headers
    assert headers["Authorization"] == "Bearer x"
    assert headers["X-Model"] == "m"
    assert "X-Empty" not in headers


async def test_every_known_api_name_routes_to_its_adapter(models_json, builtins, fake_adapter) -> None:
    apis = {
        "openai-completions": ("openai_completions", "openai_completions_api"),
        "openai-responses": ("openai_responses", "openai_responses_api"),
        "anthropic-messages": ("anthropic_messages", "anthropic_messages_api"),
        "google-generative-ai": ("google_generative_ai", "google_generative_ai_api"),
        "azure-openai-responses": ("azure_openai_responses", "azure_openai_responses_api"),
        "openai-codex-responses": ("openai_codex_responses", "openai_codex_responses_api"),
        "bedrock-converse-stream": ("bedrock_converse_stream", "bedrock_converse_stream_api"),
        "google-vertex": ("google_vertex", "google_vertex_api"),
        "pi-messages": ("pi_messages", "pi_messages_api"),
    }
    assert set(known_apis()) == set(apis)  # every adapter pi_app.ai has, no hand-kept list
    fakes = {name: fake_adapter(*target) for name, target in apis.items()}
    models = [{"id": name, "api": name} for name in apis]
    registry = make(
        models_json({"providers": {"c": {"baseUrl": "http://h", "apiKey": "k", "models": models}}}), builtins
    )
    for name, api in fakes.items():
        model = registry.find("c", name)
        assert model is not None
        await ask(registry, model, api)
        assert api.calls and api.calls[-1].model.id == name


async def test_models_json_errors_keep_builtins(models_json, builtins) -> None:
    path = models_json('{"providers": {"ollama": {"baseUrl": "x",}}}')
    registry = make(path, builtins)
    assert registry.find("anthropic", "claude-opus-5-5") is not None
    error = registry.get_error()
    assert error is not None and error.startswith("Failed to parse models.json:")
    assert error.endswith(str(path))

    data = {"providers": {"p": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "m"}]}}}
    registry = make(models_json(data), builtins)
    assert (
        registry.get_error()
        == f'Provider p: "apiKey" is required when defining custom models.\nSkipped provider(s): p.\n\nFile: {path}'
    )
    assert registry.find("p", "m") is None
    assert len(registry.get_all()) == 5


async def test_provider_and_model_overrides_on_builtins(models_json, builtins) -> None:
    data = {
        "providers": {
            "anthropic": {
                "baseUrl": "http://proxy.local",
                "headers": {"X-Org": "acme"},
                "modelOverrides": {
                    "claude-opus-5-5": {"cost": {"input": 1}, "name": "Opus (cheap)"},
                    "does-not-exist": {"cost": {"input": 9}},
                },
            }
        }
    }
    registry = make(models_json(data), builtins)
    assert registry.get_error() is None
    anthropic = [m for m in registry.get_all() if m.provider == "anthropic"]
    assert len(anthropic) == 3
    assert all(m.base_url == "http://proxy.local" and m.headers == {"X-Org": "acme"} for m in anthropic)
    opus = registry.find("anthropic", "claude-opus-5-5")
    assert opus is not None
    assert (opus.cost.input, opus.cost.output, opus.cost.cache_read, opus.cost.cache_write) == (
        1,
        15,
        0.3,
        3.75,
    )
    assert opus.name == "Opus (cheap)"
    sonnet = registry.find("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None and sonnet.cost.input == 3
    # built-in catalogue objects are never mutated
    fresh = builtins()[0].get_models()
    assert all(m.base_url == "https://api.anthropic.com" for m in fresh)


async def test_custom_models_upsert_into_a_builtin_provider(models_json, builtins) -> None:
    data = {"providers": {"openai": {"models": [{"id": "gpt-4o", "name": "Mine"}, {"id": "gpt-new"}]}}}
    registry = make(models_json(data), builtins)
    openai = [m.id for m in registry.get_all() if m.provider == "openai"]
    assert openai == ["gpt-5.4", "gpt-4o", "gpt-new"]
    new = registry.find("openai", "gpt-new")
    assert new is not None and new.api == "openai-responses" and new.base_url == "https://api.openai.com/v1"
    assert registry.find("openai", "gpt-4o").name == "Mine"  # type: ignore[union-attr]


async def test_compat_merges_key_by_key_with_routing_objects_merged(models_json, builtins) -> None:
    data = {
        "providers": {
            "r": {
                "baseUrl": "http://h",
                "apiKey": "k",
                "api": "openai-completions",
                "compat": {"supportsStore": False, "openRouterRouting": {"only": ["a"], "order": ["x"]}},
                "models": [
                    {"id": "m", "compat": {"supportsStore": True, "openRouterRouting": {"order": ["y"]}}},
                    {"id": "n", "compat": {"reasoningEffortMap": {"high": "max"}}},
                ],
            }
        }
    }
    registry = make(models_json(data), builtins)
    m = registry.find("r", "m")
    assert m is not None
    assert m.compat == {"supportsStore": True, "openRouterRouting": {"only": ["a"], "order": ["y"]}}
    n = registry.find("r", "n")
    assert n is not None and n.thinking_level_map == {"high": "max"}


async def test_api_key_order(models_json, builtins, tmp_path: Path) -> None:
    """Scenario 26: --api-key, then auth.json, then env, then the models.json key (a command run once)."""
    path = models_json({"providers": {"openai": {"apiKey": "!echo FROM_CMD"}}})
    api = builtins.apis.setdefault("openai", FakeApi(api="openai-responses"))
    env = {"OPENAI_API_KEY": "FROM_ENV"}
    creds = {"openai": {"type": "api_key", "key": "FROM_FILE"}}

    registry = make(path, builtins, env=env, creds=creds)
    model = registry.find("openai", "gpt-4o")
    assert model is not None
    registry.set_runtime_api_key("openai", "FROM_CLI")
    assert await ask(registry, model, api) == "FROM_CLI"
    assert await registry.get_api_key(model) == "FROM_CLI"

    registry.set_runtime_api_key("openai", None)
    assert await ask(registry, model, api) == "FROM_FILE"

    registry = make(path, builtins, env=env)
    assert await ask(registry, model, api) == "FROM_ENV"

    counter = tmp_path / "count"
    path = models_json({"providers": {"openai": {"apiKey": f"!echo run >> {counter}; echo FROM_CMD"}}})
    registry = make(path, builtins)
    assert model in await registry.get_available()
    assert not counter.exists()  # the availability check never runs the command
    for _ in range(3):
        assert await ask(registry, model, api) == "FROM_CMD"
    assert counter.read_text().splitlines() == ["run"]


async def test_auth_json_key_goes_through_value_resolution(builtins) -> None:
    registry = make(
        None, builtins, env={"MY_KEY": "resolved"}, creds={"openai": {"type": "api_key", "key": "MY_KEY"}}
    )
    model = registry.find("openai", "gpt-4o")
    assert model is not None
    assert await registry.get_api_key(model) == "resolved"


async def test_no_credentials_means_not_available(builtins) -> None:
    registry = make(None, builtins)
    assert await registry.get_available() == []
    registry = make(None, builtins, env={"ANTHROPIC_API_KEY": "a"})
    assert {m.provider for m in await registry.get_available()} == {"anthropic"}
    registry.set_runtime_api_key("openai", "cli")
    assert {m.provider for m in await registry.get_available()} == {"anthropic", "openai"}


async def test_is_using_oauth_reflects_the_stored_credential(builtins) -> None:
    creds = {"anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}}
    registry = make(None, builtins, creds=creds)
    await registry.refresh()
    assert registry.is_using_oauth(registry.find("anthropic", "claude-opus-5-5"))  # type: ignore[arg-type]
    assert not registry.is_using_oauth(registry.find("openai", "gpt-4o"))  # type: ignore[arg-type]


async def test_extension_provider_override_and_unregister(builtins) -> None:
    """Scenario 27: a base-URL override applies at once and unregistering restores the built-ins."""
    registry = make(None, builtins)
    registry.register_provider("anthropic", {"base_url": "http://P"})
    assert {m.base_url for m in registry.get_all() if m.provider == "anthropic"} == {"http://P"}
    registry.unregister_provider("anthropic")
    assert {m.base_url for m in registry.get_all() if m.provider == "anthropic"} == {
        "https://api.anthropic.com"
    }
    registry.unregister_provider("never-registered")  # no-op


async def test_extension_provider_with_models_and_stream_function(builtins) -> None:
    faux = fake_provider("mine")
    registry = make(None, builtins)
    registry.register_provider(
        "mine",
        {
            "base_url": "http://mine",
            "api_key": "MINE_KEY",
            "api": "mine-api",
            "stream_simple": faux.fake.stream_simple,
            "models": [
                {
                    "id": "m1",
                    "name": "Mine 1",
                    "reasoning": False,
                    "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "context_window": 1000,
                    "max_tokens": 100,
                }
            ],
        },
    )
    model = registry.find("mine", "m1")
    assert model is not None and model.api == "mine-api" and model.base_url == "http://mine"
    assert await ask(registry, model, faux.fake) == "MINE_KEY"

    registry.register_provider(
        "anthropic",
        {
            "base_url": "http://a",
            "api_key": "k",
            "api": "anthropic-messages",
            "models": [
                dict(
                    id="only",
                    name="Only",
                    reasoning=False,
                    input=["text"],
                    cost={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    context_window=1,
                    max_tokens=1,
                )
            ],
        },
    )
    assert [m.id for m in registry.get_all() if m.provider == "anthropic"] == ["only"]
    registry.unregister_provider("anthropic")
    assert len([m for m in registry.get_all() if m.provider == "anthropic"]) == 3


def test_invalid_registrations_raise_value_error_and_change_nothing(builtins) -> None:
    registry = make(None, builtins)
    before = registry.get_all()
    model = {
        "id": "m",
        "name": "M",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "context_window": 1,
        "max_tokens": 1,
    }
    cases = [
        ({"models": [model], "api_key": "k", "api": "x"}, '"base_url" is required'),
        ({"models": [model], "base_url": "http://h", "api": "x"}, '"api_key" or "oauth" is required'),
        ({"models": [model], "base_url": "http://h", "api_key": "k"}, 'model m: no "api" specified'),
        ({"stream_simple": lambda *a: None}, '"api" is required'),
        ({"models": [{"id": "m"}], "base_url": "h", "api_key": "k", "api": "x"}, "missing name"),
    ]
    for config, text_part in cases:
        with pytest.raises(ValueError, match=text_part):
            registry.register_provider("bad", config)
    assert registry.get_all() == before
    assert registry.find("bad", "m") is None


def test_unregister_owner_drops_only_that_runtimes_providers(builtins) -> None:
    registry = make(None, builtins)
    old, new = object(), object()
    registry.register_provider("anthropic", {"base_url": "http://old"}, owner=old)
    registry.register_provider("openai", {"base_url": "http://new"}, owner=new)
    registry.unregister_owner(old)
    assert registry.registered_provider_names() == ["openai"]
    assert registry.find("anthropic", "claude-opus-5-5").base_url == "https://api.anthropic.com"  # type: ignore[union-attr]
    assert registry.find("openai", "gpt-4o").base_url == "http://new"  # type: ignore[union-attr]


async def test_refresh_rereads_models_json_and_keeps_registrations(models_json, builtins) -> None:
    path = models_json(OLLAMA)
    registry = make(path, builtins)
    registry.register_provider("anthropic", {"base_url": "http://P"})
    snapshot = registry.get_all()
    assert isinstance(snapshot, tuple)
    data = {"providers": {"ollama": {**OLLAMA["providers"]["ollama"], "models": [{"id": "qwen"}]}}}
    models_json(data)
    await registry.refresh()
    assert registry.find("ollama", "qwen") is not None
    assert registry.find("ollama", "llama3.1:8b") is None
    assert registry.find("anthropic", "claude-opus-5-5").base_url == "http://P"  # type: ignore[union-attr]
    assert registry.find("ollama", "llama3.1:8b") is None and any(m.id == "llama3.1:8b" for m in snapshot)


def test_registry_without_builtins_module_still_works(models_json) -> None:
    registry = ModelRegistry(InMemoryCredentialStore(), models_json(OLLAMA))
    assert registry.find("ollama", "llama3.1:8b") is not None


@pytest.mark.parametrize(("api", "suffix"), [("openai-completions", "/v1"), ("anthropic-messages", "")])
async def test_models_json_provider_against_the_loopback_server(api, suffix, models_json, llm_server) -> None:
    """A models.json provider streams through the real wire adapter to a fake server."""
    path = models_json(
        {
            "providers": {
                "fake": {
                    "baseUrl": llm_server.base_url + suffix,
                    "api": api,
                    "apiKey": "secret-x",
                    "headers": {"X-Extra": "yes"},
                    "models": [{"id": "fake-model"}],
                }
            }
        }
    )
    registry = ModelRegistry(InMemoryCredentialStore(), path, DictAuthContext({}), builtin_providers=list)
    llm_server.enqueue(text("hello from the server"))
    model = registry.find("fake", "fake-model")
    assert model is not None
    message = await registry.stream_simple(model, CTX).result()
    assert message.stop_reason == "stop", message.error_message
    assert message.content[0].text == "hello from the server"
    request = llm_server.requests[-1]
    assert request.api == api
    assert request.headers["x-extra"] == "yes"
    assert "secret-x" in (request.headers.get("authorization", "") + request.headers.get("x-api-key", ""))
