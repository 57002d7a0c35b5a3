"""models.json schema, loader and error texts (spec 40 R-MOD-01..03, scenarios 23 and 24)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.coding.models.model_config import load_models_config, strip_json_comments


def write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_missing_file_is_not_an_error(tmp_path: Path) -> None:
    assert load_models_config(tmp_path / "models.json") == (None, None)


def test_minimal_custom_provider_parses(tmp_path: Path) -> None:
    path = write(
        tmp_path / "models.json",
        {
            "providers": {
                "ollama": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "apiKey": "ollama",
                    "models": [{"id": "llama3.1:8b"}],
                }
            }
        },
    )
    config, error = load_models_config(path)
    assert error is None
    assert config is not None
    provider = config.providers["ollama"]
    assert provider.base_url == "http://localhost:11434/v1"
    assert provider.models is not None and provider.models[0].id == "llama3.1:8b"


def test_trailing_comma_is_a_parse_error_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "models.json", '{"providers": {"a": {"baseUrl": "x",}}}')
    config, error = load_models_config(path)
    assert config is None
    assert error is not None
    assert error.startswith("Failed to parse models.json: ")
    assert error.endswith(f"\n\nFile: {path}")


def test_comments_are_accepted_like_pi(tmp_path: Path) -> None:
    text = '{\n // local server\n "providers": {"a": {"baseUrl": "http://x//y" /* keep */}}}'
    path = write(tmp_path / "models.json", text)
    config, error = load_models_config(path)
    assert error is None
    assert config is not None and config.providers["a"].base_url == "http://x//y"
    assert strip_json_comments('"a//b"') == '"a//b"'


def test_schema_errors_list_each_problem_with_its_path(tmp_path: Path) -> None:
    path = write(
        tmp_path / "models.json",
        {
            "providers": {
                "p": {
                    "baseUrl": "http://x",
                    "apiKey": "k",
                    "api": "openai-completions",
                    "models": [{"id": "m", "contextWindow": "big", "input": ["audio"]}],
                },
                "q": {"headers": 5},
            }
        },
    )
    config, error = load_models_config(path)
    # the broken providers are skipped and named; the file itself still loads (issue 18)
    assert config is not None and config.providers == {} and error is not None
    lines = error.splitlines()
    assert lines[0] == "Invalid models.json schema:"
    assert "  - providers.p.models.0.contextWindow: Input should be a valid number" in lines
    assert any(line.startswith("  - providers.p.models.0.input.0:") for line in lines)
    assert any(line.startswith("  - providers.q.headers:") for line in lines)
    assert "Skipped provider(s): p, q." in lines
    assert lines[-2:] == ["", f"File: {path}"]


def test_root_must_be_an_object_and_have_providers(tmp_path: Path) -> None:
    _, error = load_models_config(write(tmp_path / "a.json", []))
    assert error is not None and "  - root: must be an object" in error
    _, error = load_models_config(write(tmp_path / "b.json", {}))
    assert error is not None and "  - providers: is required" in error


def test_unknown_keys_are_reported(tmp_path: Path) -> None:
    _, error = load_models_config(write(tmp_path / "m.json", {"providers": {"a": {"baseURL": "http://x"}}}))
    assert error is not None and "  - providers.a.baseURL: unknown property" in error


def test_unknown_keys_are_ignored_and_the_rest_kept(tmp_path: Path) -> None:
    data = {
        "$schema": "https://pi.dev/schemas/models.schema.json",
        "futureTopLevel": 1,
        "providers": {
            "a": {
                "baseUrl": "http://x",
                "apiKey": "k",
                "api": "openai-completions",
                "someNewKey": True,
                "compat": {"supportsFinishReason": False, "noSuchCompat": 1},
                "models": [{"id": "m", "futureField": {"x": 1}, "contextWindow": 1000}],
            }
        },
    }
    config, error = load_models_config(write(tmp_path / "m.json", data))
    assert config is not None and config.providers["a"].models[0].context_window == 1000
    assert error is not None
    lines = error.splitlines()
    assert lines[0] == "Unknown models.json field(s), ignored:"
    for path in (
        "futureTopLevel",
        "providers.a.someNewKey",
        "providers.a.models.0.futureField",
        "providers.a.compat.noSuchCompat",
    ):
        assert f"  - {path}: unknown property" in lines
    assert not any("$schema" in line or "supportsFinishReason" in line for line in lines)
    # a documented 1.6.0 compat key this pi does not act on is kept on the provider's compat
    assert config.providers["a"].compat is not None
    assert config.providers["a"].compat.to_json_dict() == {"supportsFinishReason": False}


def test_a_1_6_file_with_schema_loads_without_a_warning(tmp_path: Path) -> None:
    template = Path(__file__).resolve().parents[1] / "fixtures/pi-reference-1.6/config-home/models.json.tmpl"
    path = write(tmp_path / "models.json", template.read_text().replace("@PORT@", "1"))
    config, error = load_models_config(path, ["anthropic", "openai"])
    assert error is None and config is not None
    model = config.providers["fake"].models[0]
    assert model.cost is not None and model.cost.tiers and model.cost.tiers[0].input_tokens_above == 200000
    assert model.sampling_params == {"temperature": 0.6, "top_p": 0.95}


def test_cost_needs_all_four_fields_in_a_definition(tmp_path: Path) -> None:
    data = {
        "providers": {
            "a": {
                "baseUrl": "http://x",
                "apiKey": "k",
                "api": "openai-completions",
                "models": [{"id": "m", "cost": {"input": 1}}],
            }
        }
    }
    _, error = load_models_config(write(tmp_path / "m.json", data))
    assert error is not None
    assert "  - providers.a.models.0.cost.output: is required" in error


def test_semantic_errors_use_the_spec_texts(tmp_path: Path) -> None:
    cases = {
        "no_key": (
            {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "m"}]},
            'Provider p: "apiKey" is required when defining custom models.',
        ),
        "no_url": (
            {"apiKey": "k", "api": "openai-completions", "models": [{"id": "m"}]},
            'Provider p: "baseUrl" is required when defining custom models.',
        ),
        "empty": ({}, 'Provider p: must specify "baseUrl", "compat", "modelOverrides", or "models".'),
        "no_api": (
            {"baseUrl": "http://x", "apiKey": "k", "models": [{"id": "m"}]},
            'Provider p, model m: no "api" specified. Set at provider or model level.',
        ),
        "bad_window": (
            {"baseUrl": "http://x", "apiKey": "k", "api": "a", "models": [{"id": "m", "contextWindow": 0}]},
            "Provider p, model m: invalid contextWindow",
        ),
        "bad_max": (
            {"baseUrl": "http://x", "apiKey": "k", "api": "a", "models": [{"id": "m", "maxTokens": -1}]},
            "Provider p, model m: invalid maxTokens",
        ),
    }
    for name, (provider, message) in cases.items():
        path = write(tmp_path / f"{name}.json", {"providers": {"p": provider}})
        config, error = load_models_config(path)
        assert config is not None and config.providers == {}  # only that provider is left out
        assert error == f"{message}\nSkipped provider(s): p.\n\nFile: {path}", name


def test_a_provider_without_api_key_is_skipped_and_the_others_kept(tmp_path: Path) -> None:
    """Issue 19 item 11: one provider missing ``apiKey`` used to hide every custom provider."""
    good = {"baseUrl": "http://x", "apiKey": "k", "api": "openai-completions", "models": [{"id": "g"}]}
    keyless = {"baseUrl": "http://y", "api": "openai-completions", "models": [{"id": "n"}]}
    path = write(tmp_path / "m.json", {"providers": {"good": good, "keyless": keyless}})
    config, error = load_models_config(path)
    assert config is not None and list(config.providers) == ["good"]
    assert error is not None and error.splitlines()[:2] == [
        'Provider keyless: "apiKey" is required when defining custom models.',
        "Skipped provider(s): keyless.",
    ]


def test_override_only_entries_may_be_just_a_key_or_headers(tmp_path: Path) -> None:
    for body in ({"apiKey": "k"}, {"headers": {"X-A": "1"}}):
        config, error = load_models_config(write(tmp_path / "m.json", {"providers": {"openai": body}}))
        assert error is None and config is not None


def test_builtin_provider_models_need_no_url_key_or_api(tmp_path: Path) -> None:
    data = {"providers": {"anthropic": {"models": [{"id": "claude-new"}]}}}
    path = write(tmp_path / "m.json", data)
    assert load_models_config(path, ["anthropic"])[1] is None
    assert load_models_config(path)[1] is not None


def test_typescript_pi_models_json_loads_unchanged(tmp_path: Path) -> None:
    """A models.json as TypeScript pi 0.73.1 users write it, with every kind of field."""
    data = {
        "providers": {
            "openrouter": {
                "name": "OpenRouter",
                "baseUrl": "https://openrouter.ai/api/v1",
                "apiKey": "OPENROUTER_API_KEY",
                "api": "openai-completions",
                "headers": {"HTTP-Referer": "https://example.org"},
                "authHeader": True,
                "compat": {
                    "supportsStore": False,
                    "maxTokensField": "max_tokens",
                    "thinkingFormat": "openrouter",
                    "openRouterRouting": {"only": ["anthropic"], "allow_fallbacks": False},
                    "supportsLongCacheRetention": True,
                },
                "models": [
                    {
                        "id": "anthropic/claude-sonnet-4.5",
                        "name": "Sonnet via OR",
                        "reasoning": True,
                        "thinkingLevelMap": {"xhigh": None, "minimal": "low"},
                        "input": ["text", "image"],
                        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
                        "contextWindow": 200000,
                        "maxTokens": 64000,
                        "headers": {"X-Title": "pi"},
                        "compat": {"requiresReasoningContentOnAssistantMessages": True},
                    }
                ],
            },
            "anthropic": {
                "modelOverrides": {
                    "claude-sonnet-4-5": {
                        "cost": {"input": 1},
                        "compat": {"supportsEagerToolInputStreaming": False},
                    }
                }
            },
            "openai": {"compat": {"sendSessionIdHeader": True}},
        }
    }
    config, error = load_models_config(write(tmp_path / "models.json", data))
    assert error is None, error
    assert config is not None
    assert config.providers["openrouter"].models[0].thinking_level_map.xhigh is None  # type: ignore[index,union-attr]
