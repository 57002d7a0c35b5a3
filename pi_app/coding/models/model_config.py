"""The ``models.json`` schema, its loader and its error texts (spec 40 §2.14.2, R-MOD-01..03, D-8).

The file keeps pi 0.73.1's camelCase keys; the ``msgspec.Struct``s here use snake_case attributes
with camelCase encoded names. ``pi_app.ai.util.structs.convert`` fills them in pydantic's strict
mode and words each problem as pydantic did (the schema was pydantic models until issue 20 took
pydantic off the start path): strict about types (a string is not a number) and unknown keys are
found, so a typo such as ``baseURL`` is reported instead of silently ignored. ``compat`` accepts
the union of pi 0.73.1's per-API compat keys (completions, responses, anthropic) plus the legacy
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
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from pi_app.ai.util.structs import ConversionError, ErrorDetail, UnknownFields, convert, dump, replace

InputKind = Literal["text", "image"]
ThinkingLevelName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
ThinkingFormat = Literal[
    "openai",
    "openrouter",
    "together",
    "deepseek",
    "zai",
    "qwen",
    "qwen-chat-template",
    "baseten",
    "chat-template",
    "string-thinking",
    "ant-ling",
]

# Every compat key of pi 1.6.0's models configuration reference (all APIs). Keys outside this set
# are reported as unknown; the ones without a typed field below are kept but have no effect here.
DOCUMENTED_COMPAT_KEYS = frozenset(
    """supportsStore supportsDeveloperRole supportsReasoningEffort supportsUsageInStreaming
    supportsFinishReason maxTokensField requiresToolResultName requiresAssistantAfterToolResult
    requiresNonNullAssistantContent requiresToolsWithToolHistory requiresThinkingAsText
    requiresReasoningContentOnAssistantMessages thinkingFormat chatTemplateKwargs chatTemplateArgs
    openRouterRouting vercelGatewayRouting zaiToolStream thinkingTokenBudgetField
    supportsThinkingTokenBudget supportsOpenAIGrammarTools supportsMidConvoSystemMessages
    supportsMidConvoToolAdditions supportsStrictMode cacheControlFormat sendSessionAffinityHeaders
    sessionAffinityFormat promptCacheKeyMode supportsLongCacheRetention vllmPriority
    supportsAdditionalTools supportsToolSearch supportsExplicitPromptCacheMode supportsMidConvoEffort
    supportsMaxOutputTokens supportsEagerToolInputStreaming supportsCacheControlOnTools
    supportsTemperature forceAdaptiveThinking allowEmptySignature supportsStrictTools
    supportsMidConvoToolChanges supportsMessageThreads allowedFallbackModels imageInput
    sendImageOptInHeader reasoningEffortMap sendSessionIdHeader""".split()
)


NonEmptyStr = Annotated[str, msgspec.Meta(min_length=1)]


class _Schema(msgspec.Struct, rename="camel", dict=True):
    """camelCase keys, snake_case attributes (Python names accepted too), unknown keys refused."""

    unknown_fields: ClassVar[UnknownFields] = "forbid"
    populate_by_name: ClassVar[bool] = True

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase form with unset keys left out (what the file said)."""
        return dump(self, by_alias=True, exclude_unset=True)


class ThinkingLevelMapConfig(_Schema):
    off: str | None = None
    minimal: str | None = None
    low: str | None = None
    medium: str | None = None
    high: str | None = None
    xhigh: str | None = None
    max: str | None = None


class VercelGatewayRouting(msgspec.Struct, dict=True):
    unknown_fields: ClassVar[UnknownFields] = "allow"
    only: list[str] | None = None
    order: list[str] | None = None


class CompatConfig(_Schema):
    """The compat keys this pi acts on are typed fields; the other keys pi 1.6.0 documents
    (``DOCUMENTED_COMPAT_KEYS``) are kept as extra values, so they reach the model's ``compat``."""

    unknown_fields: ClassVar[UnknownFields] = "allow"
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


class CostTier(_Schema):
    """Request-wide prices once the request's input exceeds ``inputTokensAbove`` (pi 1.6.0)."""

    input_tokens_above: float
    input: float
    output: float
    cache_read: float
    cache_write: float


class CostConfig(_Schema):
    input: float
    output: float
    cache_read: float
    cache_write: float
    tiers: list[CostTier] | None = None


class CostOverride(_Schema):
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None
    tiers: list[CostTier] | None = None


class ImageResizeConfig(_Schema):
    max_width: Annotated[int, msgspec.Meta(gt=0)] | None = None
    max_height: Annotated[int, msgspec.Meta(gt=0)] | None = None
    max_bytes: Annotated[int, msgspec.Meta(gt=0)] | None = None
    jpeg_quality: Annotated[int, msgspec.Meta(ge=1, le=100)] | None = None


class ImageLimitsConfig(_Schema):
    resize: ImageResizeConfig | None = None
    max_per_message: int | None = None
    max_per_request: int | None = None


class InputLimitsConfig(_Schema):
    max_request_bytes: int | None = None
    images: ImageLimitsConfig | None = None


class PromptCacheConfig(_Schema):
    """Best-effort cache lifetimes in seconds per retention tier."""

    short: float | None = None
    long: float | None = None


SamplingParams = dict[str, Any]


class ModelDefinition(_Schema):
    id: NonEmptyStr
    name: NonEmptyStr | None = None
    api: NonEmptyStr | None = None
    base_url: NonEmptyStr | None = None
    reasoning: bool | None = None
    thinking_level_map: ThinkingLevelMapConfig | None = None
    input: list[InputKind] | None = None
    input_limits: InputLimitsConfig | None = None
    cost: CostConfig | None = None
    prompt_cache: PromptCacheConfig | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    sampling_params: SamplingParams | None = None
    sampling_params_by_thinking_level: dict[ThinkingLevelName, SamplingParams] | None = None
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None


class ModelOverride(_Schema):
    name: NonEmptyStr | None = None
    reasoning: bool | None = None
    thinking_level_map: ThinkingLevelMapConfig | None = None
    input: list[InputKind] | None = None
    input_limits: InputLimitsConfig | None = None
    cost: CostOverride | None = None
    prompt_cache: PromptCacheConfig | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    sampling_params: SamplingParams | None = None
    sampling_params_by_thinking_level: dict[ThinkingLevelName, SamplingParams] | None = None
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None


class ProviderConfig(_Schema):
    name: NonEmptyStr | None = None
    base_url: NonEmptyStr | None = None
    api_key: NonEmptyStr | None = None
    api: NonEmptyStr | None = None
    oauth: str | None = None
    headers: dict[str, str] | None = None
    compat: CompatConfig | None = None
    auth_header: bool | None = None
    models: list[ModelDefinition] | None = None
    model_overrides: dict[str, ModelOverride] | None = None


class ModelsConfig(_Schema, kw_only=True):  # a required field after a default (kw_only is per class)
    schema_: str | None = msgspec.field(default=None, name="$schema")
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


def format_schema_errors(errors: Iterable[ErrorDetail]) -> list[str]:
    lines: list[str] = []
    for item in errors:
        message = item.msg
        if item.type == "missing":
            message = "is required"
        elif item.type == "extra_forbidden":
            message = "unknown property"
        lines.append(f"  - {_json_path(item.loc)}: {message}")
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


def _drop_at(raw: Any, loc: tuple[Any, ...]) -> bool:
    """Delete the value at ``loc`` inside ``raw``; False when the path does not lead anywhere."""
    node = raw
    for part in loc[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    try:
        del node[loc[-1]]
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _unknown_compat_paths(raw: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Compat keys pi 1.6.0 does not document (``CompatConfig`` itself accepts any key)."""
    out: list[tuple[Any, ...]] = []
    providers = raw.get("providers")
    if not isinstance(providers, dict):
        return out

    def check(compat: Any, *loc: Any) -> None:
        if isinstance(compat, dict):
            out.extend((*loc, "compat", key) for key in compat if key not in DOCUMENTED_COMPAT_KEYS)

    for pid, provider in providers.items():
        if not isinstance(provider, dict):
            continue
        check(provider.get("compat"), "providers", pid)
        models = provider.get("models")
        for index, model in enumerate(models if isinstance(models, list) else []):
            if isinstance(model, dict):
                check(model.get("compat"), "providers", pid, "models", index)
        overrides = provider.get("modelOverrides")
        for mid, override in (overrides if isinstance(overrides, dict) else {}).items():
            if isinstance(override, dict):
                check(override.get("compat"), "providers", pid, "modelOverrides", mid)
    return out


def _json_path(loc: Iterable[Any]) -> str:
    # a generic union member's marker in the location (``literal[...]``, ``dict[str,any]``) and a
    # dict key's (``[key]``) are not part of the JSON path
    parts = [str(p) for p in loc if not (isinstance(p, str) and "[" in p)]
    return ".".join(parts) if parts else "root"


def _validate_tolerantly(
    raw: dict[str, Any],
) -> tuple[ModelsConfig | None, list[str], dict[str, list[str]], list[str]]:
    """Validate, leaving out what cannot be used instead of the whole file (pi 1.6.0 users' files).

    Returns the config, the unknown fields that were ignored, the providers skipped because a value
    has the wrong type (name -> schema error lines), and schema errors that belong to no provider
    (fatal: no config).
    """
    unknown = [_json_path(loc) for loc in _unknown_compat_paths(raw)]
    for loc in _unknown_compat_paths(raw):
        _drop_at(raw, loc)
    skipped: dict[str, list[str]] = {}
    for _ in range(4):  # unknown keys first, then broken providers; each pass reports all errors
        try:
            return convert(raw, ModelsConfig, strict=True), unknown, skipped, []
        except ConversionError as exc:
            fatal: list[str] = []
            progressed = False
            for item in exc.errors:
                loc = item.loc
                if item.type == "extra_forbidden" and _drop_at(raw, loc):
                    unknown.append(_json_path(loc))
                    progressed = True
                    continue
                if len(loc) >= 2 and loc[0] == "providers" and isinstance(raw.get("providers"), dict):
                    skipped.setdefault(str(loc[1]), []).extend(format_schema_errors([item]))
                    continue
                fatal.extend(format_schema_errors([item]))
            for name in skipped:
                if raw["providers"].pop(name, None) is not None:
                    progressed = True
            if fatal or not progressed:
                return None, unknown, skipped, fatal or format_schema_errors(exc.errors)
    return None, unknown, skipped, ["  - root: could not be validated"]


def parse_models_config(
    text: str, path: str | Path, builtin_provider_ids: Iterable[str] = ()
) -> tuple[ModelsConfig | None, str | None]:
    """Parse and validate; the error text also carries the warnings of a file that still loaded.

    Decision (issue 18, pi 1.6.0 users' files): an unknown field is reported once and ignored, and a
    provider with a value of the wrong type is skipped and named; everything else keeps working.
    pi 1.6.0 itself ignores unknown fields silently and drops the whole file on a type error.
    ``$schema`` (which pi's docs recommend) is a known field.
    """
    file_line = f"File: {path}"
    try:
        raw = json.loads(strip_json_comments(text))
    except (ValueError, RecursionError) as exc:  # also 5000-digit numbers and absurd nesting
        return None, f"Failed to parse models.json: {exc}\n\n{file_line}"
    if not isinstance(raw, dict):
        return None, f"Invalid models.json schema:\n  - root: must be an object\n\n{file_line}"
    config, unknown, skipped, fatal = _validate_tolerantly(raw)
    if config is None:
        lines = "\n".join(fatal)
        return None, f"Invalid models.json schema:\n{lines}\n\n{file_line}"
    problems = provider_problems(config, builtin_provider_ids)
    notes: list[str] = []
    if skipped:
        notes.append("Invalid models.json schema:")
        notes.extend(line for lines in skipped.values() for line in lines)
    if unknown:
        notes.append("Unknown models.json field(s), ignored:")
        notes.extend(f"  - {path}: unknown property" for path in unknown)
    notes.extend(problems.values())
    if skipped or problems:  # only the broken providers are left out (issue 19 item 11)
        kept = {k: v for k, v in config.providers.items() if k not in problems}
        config = replace(config, providers=kept)
        notes.append(f"Skipped provider(s): {', '.join([*skipped, *problems])}.")
    if notes:
        return config, "\n".join(notes) + f"\n\n{file_line}"
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
