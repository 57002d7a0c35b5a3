"""The ``models.json`` schema, its loader and its error texts (spec 40 §2.14.2, R-MOD-01..03, D-8).

The file keeps pi 0.73.1's camelCase keys; the pydantic models here use snake_case attributes with
camelCase aliases. Validation is strict about types (a string is not a number) and rejects unknown
keys, so a typo such as ``baseURL`` is reported instead of silently ignored. ``compat`` accepts the
union of pi 0.73.1's per-API compat keys (completions, responses, anthropic) plus the legacy
``reasoningEffortMap``.

``load_models_config(path)`` never raises for content problems: it returns ``(config, None)``,
``(None, None)`` when the file does not exist, or ``(None, error)`` with one of the R-MOD-02 texts:

- JSON syntax: ``Failed to parse models.json: <message>`` + blank line + ``File: <path>``
- schema:      ``Invalid models.json schema:`` + one ``  - <path>: <message>`` line per problem
               + blank line + ``File: <path>``
- semantic:    the specific message (R-MOD-03) + blank line + ``File: <path>``

Decision: ``//`` and ``/* */`` comments are stripped before parsing because pi 0.73.1 accepts them,
so a commented TypeScript-pi file loads unchanged; a trailing comma is still a syntax error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

InputKind = Literal["text", "image"]
ThinkingFormat = Literal["openai", "openrouter", "together", "deepseek", "zai", "qwen", "qwen-chat-template"]


class _Schema(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True, defer_build=True
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase form with unset keys left out (what the file said)."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class ThinkingLevelMapConfig(_Schema):
    off: str | None = None
    minimal: str | None = None
    low: str | None = None
    medium: str | None = None
    high: str | None = None
    xhigh: str | None = None


class VercelGatewayRouting(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, defer_build=True)
    only: list[str] | None = None
    order: list[str] | None = None


class CompatConfig(_Schema):
    # openai-completions
    supports_store: bool | None = None
    supports_developer_role: bool | None = None
    supports_reasoning_effort: bool | None = None
    supports_usage_in_streaming: bool | None = None
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] | None = None
    requires_tool_result_name: bool | None = None
    requires_assistant_after_tool_result: bool | None = None
    requires_thinking_as_text: bool | None = None
    requires_reasoning_content_on_assistant_messages: bool | None = None
    thinking_format: ThinkingFormat | None = None
    cache_control_format: Literal["anthropic"] | None = None
    open_router_routing: dict[str, Any] | None = None
    vercel_gateway_routing: VercelGatewayRouting | None = None
    supports_strict_mode: bool | None = None
    reasoning_effort_map: dict[str, str] | None = None
    # shared / openai-responses / anthropic-messages
    supports_long_cache_retention: bool | None = None
    send_session_id_header: bool | None = None
    supports_eager_tool_input_streaming: bool | None = None


class CostConfig(_Schema):
    input: float
    output: float
    cache_read: float
    cache_write: float


class CostOverride(_Schema):
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


class ModelDefinition(_Schema):
    id: str = Field(min_length=1)
    name: str | None = Field(default=None, min_length=1)
    api: str | None = Field(default=None, min_length=1)
    base_url: str | None = Field(default=None, min_length=1)
    reasoning: bool | None = None
    thinking_level_map: ThinkingLevelMapConfig | None = None
    input: list[InputKind] | None = None
    cost: CostConfig | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None


class ModelOverride(_Schema):
    name: str | None = Field(default=None, min_length=1)
    reasoning: bool | None = None
    thinking_level_map: ThinkingLevelMapConfig | None = None
    input: list[InputKind] | None = None
    cost: CostOverride | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None


class ProviderConfig(_Schema):
    name: str | None = Field(default=None, min_length=1)
    base_url: str | None = Field(default=None, min_length=1)
    api_key: str | None = Field(default=None, min_length=1)
    api: str | None = Field(default=None, min_length=1)
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None
    auth_header: bool | None = None
    models: list[ModelDefinition] | None = None
    model_overrides: dict[str, ModelOverride] | None = None


class ModelsConfig(_Schema):
    providers: dict[str, ProviderConfig]


# ---------------------------------------------------------------------------------------------
# Loading and error texts
# ---------------------------------------------------------------------------------------------


def strip_json_comments(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments outside strings (pi 0.73.1 accepts them)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _format_loc(loc: Iterable[Any]) -> str:
    parts = [str(p) for p in loc]
    return ".".join(parts) if parts else "root"


def format_schema_errors(error: ValidationError) -> list[str]:
    lines: list[str] = []
    for item in error.errors(include_url=False):
        loc = item.get("loc", ())
        # pydantic appends the union/literal branch name to the location; keep the JSON path only
        clean = [p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))]
        message = item.get("msg", "invalid value")
        if item.get("type") == "missing":
            message = "is required"
        elif item.get("type") == "extra_forbidden":
            message = "unknown property"
        lines.append(f"  - {_format_loc(clean)}: {message}")
    return lines


def semantic_error(config: ModelsConfig, builtin_provider_ids: Iterable[str] = ()) -> str | None:
    """R-MOD-03. Built-in providers may add models without ``baseUrl``/``apiKey``/``api``. The
    first problem found, or None."""
    problems = provider_problems(config, builtin_provider_ids)
    return next(iter(problems.values()), None)


def provider_problems(config: ModelsConfig, builtin_provider_ids: Iterable[str] = ()) -> dict[str, str]:
    """Each provider of ``config`` that cannot be used, with the one line saying why."""
    builtins = set(builtin_provider_ids)
    out: dict[str, str] = {}
    for name, provider in config.providers.items():
        problem = _provider_problem(name, provider, name in builtins)
        if problem:
            out[name] = problem
    return out


def _provider_problem(name: str, provider: Any, is_builtin: bool) -> str | None:
    models = provider.models or []
    if not models:
        has_override = any(
            value is not None
            for value in (
                provider.base_url,
                provider.headers,
                provider.api_key,
                provider.compat,
                provider.model_overrides,
            )
        )
        if not has_override:
            return f'Provider {name}: must specify "baseUrl", "compat", "modelOverrides", or "models".'
        return None
    if not is_builtin:
        if not provider.base_url:
            return f'Provider {name}: "baseUrl" is required when defining custom models.'
        if not provider.api_key:
            return f'Provider {name}: "apiKey" is required when defining custom models.'
    for model in models:
        if not model.api and not provider.api and not is_builtin:
            return f'Provider {name}, model {model.id}: no "api" specified. Set at provider or model level.'
        if model.context_window is not None and model.context_window <= 0:
            return f"Provider {name}, model {model.id}: invalid contextWindow"
        if model.max_tokens is not None and model.max_tokens <= 0:
            return f"Provider {name}, model {model.id}: invalid maxTokens"
    return None


def parse_models_config(
    text: str, path: str | Path, builtin_provider_ids: Iterable[str] = ()
) -> tuple[ModelsConfig | None, str | None]:
    file_line = f"File: {path}"
    try:
        raw = json.loads(strip_json_comments(text))
    except (ValueError, RecursionError) as exc:  # also 5000-digit numbers and absurd nesting
        return None, f"Failed to parse models.json: {exc}\n\n{file_line}"
    if not isinstance(raw, dict):
        return None, f"Invalid models.json schema:\n  - root: must be an object\n\n{file_line}"
    try:
        config = ModelsConfig.model_validate(raw)
    except ValidationError as exc:
        lines = "\n".join(format_schema_errors(exc))
        return None, f"Invalid models.json schema:\n{lines}\n\n{file_line}"
    problems = provider_problems(config, builtin_provider_ids)
    if problems:  # only the broken providers are left out (issue 19 item 11): the rest still work
        kept = {k: v for k, v in config.providers.items() if k not in problems}
        config = config.model_copy(update={"providers": kept})
        skipped = ", ".join(problems)
        lines = "\n".join(problems.values())
        return config, f"{lines}\nSkipped provider(s): {skipped}.\n\n{file_line}"
    return config, None


def load_models_config(
    path: str | Path | None, builtin_provider_ids: Iterable[str] = ()
) -> tuple[ModelsConfig | None, str | None]:
    """Read and validate ``models.json``; a missing file is ``(None, None)``."""
    if path is None:
        return None, None
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"Failed to read models.json: {exc}\n\nFile: {target}"
    return parse_models_config(text, target, builtin_provider_ids)
