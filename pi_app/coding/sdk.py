"""``create_agent_session``: the public way to build a working ``AgentSession`` (spec 70 §2.3).

Every collaborator is optional and injectable: session manager, settings manager, model registry
(which owns the credential store), model, thinking level, tools, system prompt. With nothing given
it builds what ``pi`` builds: settings from ``<agentDir>/settings.json`` and ``.pi/settings.json``,
the model registry from built-in providers and ``models.json``, a new session file for ``cwd``,
the default tools and the default system prompt with AGENTS.md/CLAUDE.md context files.

Must be awaited inside the event loop the session will live on (decision D-13).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_app.agent import Agent, AgentOptions
from pi_app.ai.types import Model
from pi_app.coding import paths
from pi_app.coding.agent_session import AgentSession, clamp_level
from pi_app.coding.messages import convert_to_llm

if TYPE_CHECKING:
    from pi_app.agent.stream_fn import StreamFn
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.settings import SettingsManager


@dataclass
class CreatedSession:
    """A new ``AgentSession`` with the warnings its creation produced."""

    session: AgentSession
    warnings: list[str] = field(default_factory=list)
    model_fallback_message: str | None = None


def build_tool_definitions(
    cwd: str,
    tools: Sequence[str] | None,
    no_tools: bool,
    base_tools_override: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The session's tool definitions. ``base_tools_override`` (name -> ``ToolDefinition`` or
    ``AgentTool``) replaces the seven built-ins as the base set a host picks from (mom's sandboxed
    tools, spec 70 §2.3); with it, ``tools=None`` activates every tool of the override."""
    from pi_app.coding.tools import DEFAULT_ACTIVE_TOOLS, create_builtin_tools
    from pi_app.coding.tools.definition import ToolDefinition, create_tool_definition_from_agent_tool

    if no_tools or (tools is not None and not list(tools)):
        return []  # an empty selection is no tool, never "all of them"
    if base_tools_override is not None:
        base = {
            name: tool if isinstance(tool, ToolDefinition) else create_tool_definition_from_agent_tool(tool)
            for name, tool in base_tools_override.items()
        }
        names = list(tools) if tools is not None else list(base)
        unknown = [name for name in names if name not in base]
        if unknown:
            raise ValueError(f"Unknown tool: {unknown[0]}")
        return [base[name] for name in names]
    names = list(tools) if tools is not None else list(DEFAULT_ACTIVE_TOOLS)
    return create_builtin_tools(cwd, names)


def build_system_prompt_for(
    cwd: str,
    agent_dir: Path,
    tool_definitions: Sequence[Any],
    custom_prompt: str | None,
    append: Sequence[str],
    no_context_files: bool,
    skills: Sequence[Any] = (),
) -> str:
    """The system prompt read from disk (SYSTEM.md, APPEND_SYSTEM.md, context files); a session
    built with a resource loader uses ``build_system_prompt_from_resources`` instead."""
    from pi_app.coding.resources.context_files import load_context_files, load_prompt_files
    from pi_app.coding.system_prompt import BuildSystemPromptOptions, build_system_prompt

    system_md, append_md = load_prompt_files(cwd, agent_dir)
    append_files = [append_md] if append_md else []
    context_files = [] if no_context_files else load_context_files(cwd, agent_dir)
    appended = [a for a in append_files + list(append) if a]
    return build_system_prompt(
        BuildSystemPromptOptions(
            cwd=cwd,
            custom_prompt=custom_prompt if custom_prompt is not None else system_md,
            selected_tools=[t.name for t in tool_definitions],
            tool_snippets={
                t.name: t.prompt_snippet for t in tool_definitions if getattr(t, "prompt_snippet", None)
            },
            tool_guidelines={t.name: list(t.prompt_guidelines or []) for t in tool_definitions},
            append_system_prompt="\n\n".join(appended) if appended else None,
            context_files=context_files,
            skills=list(skills),
        )
    )


def build_system_prompt_from_resources(
    cwd: str,
    loader: Any,
    selected_tools: Sequence[str],
    tool_snippets: dict[str, str],
    tool_guidelines: dict[str, list[str]],
    *,
    no_context_files: bool = False,
) -> str:
    """The base system prompt from a loaded ``ResourceLoader`` (SYSTEM.md or ``--system-prompt``,
    APPEND_SYSTEM.md or ``--append-system-prompt``, context files, skills) and the active tools.
    The session at creation and the extension binding on every rebuild both use it."""
    from pi_app.coding.system_prompt import BuildSystemPromptOptions, build_system_prompt

    appended = [a for a in loader.get_append_system_prompt() if a]
    return build_system_prompt(
        BuildSystemPromptOptions(
            cwd=cwd,
            custom_prompt=loader.get_system_prompt(),
            selected_tools=list(selected_tools),
            tool_snippets=tool_snippets,
            tool_guidelines=tool_guidelines,
            append_system_prompt="\n\n".join(appended) if appended else None,
            context_files=[] if no_context_files else list(loader.get_agents_files()),
            skills=list(loader.get_skills().items),
        )
    )


async def create_agent_session(
    cwd: str | None = None,
    *,
    agent_dir: str | Path | None = None,
    session_manager: SessionManager | None = None,
    settings_manager: SettingsManager | None = None,
    model_registry: ModelRegistry | None = None,
    model: Model | None = None,
    thinking_level: str | None = None,
    tools: Sequence[str] | None = None,
    no_tools: bool = False,
    custom_tools: Sequence[Any] = (),
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] = (),
    no_context_files: bool = False,
    api_key: str | None = None,
    continuing: bool = False,
    stream_fn: StreamFn | None = None,
    resource_loader: Any = None,
    base_tools_override: Mapping[str, Any] | None = None,
) -> CreatedSession:
    """Build an ``AgentSession``. ``model=None`` picks the model the way ``pi`` does.

    ``resource_loader`` (an already loaded ``ResourceLoader``, or any object with its getters): the
    system prompt, appended prompts, context files and skills come from it, and the session keeps
    it (prompt templates, skills and themes for the shells). ``base_tools_override`` replaces the
    built-in tools (see ``build_tool_definitions``).
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    agent_path = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
    warnings: list[str] = []

    if settings_manager is None:
        from pi_app.coding.settings import SettingsManager

        settings_manager = SettingsManager.create(cwd, agent_path)
    from pi_app.coding.http_proxy import apply_http_proxy_setting

    apply_http_proxy_setting(settings_manager)
    warnings.extend(getattr(settings_manager, "errors", []) or [])

    if model_registry is None:
        from pi_app.coding.auth_storage import AuthStorage
        from pi_app.coding.models.registry import ModelRegistry

        model_registry = ModelRegistry(AuthStorage(agent_path / "auth.json"), agent_path / "models.json")
    registry_error = model_registry.get_error()
    if registry_error:
        warnings.append(f"models.json error: {registry_error}")
    load_error = getattr(getattr(model_registry, "credentials", None), "load_error", None)
    auth_error = load_error() if load_error is not None else None
    if auth_error:  # R-PHIL-11: a broken auth.json is named, never silently treated as empty
        warnings.append(f"{auth_error}; stored credentials are not used and the file is left as is")

    if session_manager is None:
        from pi_app.coding.session.manager import SessionManager

        session_manager = SessionManager.create(
            cwd, str(paths.resolve_session_dir(cwd, None, settings_manager.get_session_dir()))
        )

    warnings.extend(getattr(session_manager, "warnings", []) or [])  # skipped lines, migrations
    context = session_manager.build_session_context()
    fallback_message: str | None = None
    continuing = continuing or bool(context.messages)
    if model is None:
        from pi_app.coding.models.resolver import find_initial_model

        found = await find_initial_model(
            model_registry,
            is_continuing=continuing,
            session_model=context.model,
            default_provider=settings_manager.get_default_provider(),
            default_model=settings_manager.get_default_model(),
            default_thinking_level=settings_manager.get_default_thinking_level(),
        )
        model = found.model
        warnings.extend(found.warnings)
        if found.source == "session" and found.message and not found.message.startswith("Restored"):
            fallback_message = found.message

    level = thinking_level or context_level(context, settings_manager, continuing, model)
    level = clamp_level(model, level)

    tool_definitions = build_tool_definitions(cwd, tools, no_tools, base_tools_override)
    from pi_app.coding.resources.context_files import resolve_cli_text

    if resource_loader is not None and system_prompt is None and not append_system_prompt:
        # the loader already read SYSTEM.md/APPEND_SYSTEM.md (trust-gated) or the CLI values
        context_warnings = getattr(
            resource_loader, "get_context_file_warnings", list
        )  # host loaders may lack it
        warnings.extend(d.message for d in context_warnings())
        prompt_text = build_system_prompt_from_resources(
            cwd,
            resource_loader,
            [t.name for t in tool_definitions],
            {t.name: t.prompt_snippet for t in tool_definitions if getattr(t, "prompt_snippet", None)},
            {t.name: list(t.prompt_guidelines or []) for t in tool_definitions},
            no_context_files=no_context_files,
        )
    else:
        custom = resolve_cli_text(system_prompt, cwd, warnings.append) if system_prompt else None
        appended = [resolve_cli_text(a, cwd, warnings.append) for a in append_system_prompt]
        skills = list(resource_loader.get_skills().items) if resource_loader is not None else []
        prompt_text = build_system_prompt_for(
            cwd, agent_path, tool_definitions, custom, appended, no_context_files, skills
        )

    from pi_app.coding.tools.definition import wrap_tool_definition

    # Without an extension binding the tools' context is the session itself: what the bash tool's
    # PI_SESSION_ID/PI_MODEL/PI_PROVIDER and read's image limits need (print and JSON mode too).
    holder: list[AgentSession] = []

    def tool_context() -> AgentSession | None:
        return holder[0] if holder else None

    agent_tools = [wrap_tool_definition(d, tool_context) for d in tool_definitions] + list(custom_tools)

    override_provider = model.provider if model is not None else None

    def get_api_key(provider: str) -> str | None:
        return api_key if api_key and provider == override_provider else None

    agent = Agent(
        AgentOptions(
            initial_state={
                "system_prompt": prompt_text,
                "model": model,
                "thinking_level": level,
                "tools": agent_tools,
                "messages": list(context.messages),
            },
            convert_to_llm=convert_to_llm,
            stream_fn=with_request_limits(stream_fn or model_registry.stream_simple, settings_manager),
            get_api_key=get_api_key if api_key else None,
            session_id=session_manager.get_session_id(),
            steering_mode=settings_manager.get_steering_mode(),
            follow_up_mode=settings_manager.get_follow_up_mode(),
            transport=settings_manager.get_transport(),
            thinking_budgets=settings_manager.get_thinking_budgets(),
            max_retry_delay_ms=settings_manager.get_retry_settings().provider.max_retry_delay_ms,
        )
    )

    from pi_app.coding.models.resolver import no_models_message

    models_json = getattr(model_registry, "models_json_path", None) or (agent_path / "models.json")
    session = AgentSession(
        agent=agent,
        session_manager=session_manager,
        settings_manager=settings_manager,
        model_registry=model_registry,
        cwd=cwd,
        tool_definitions=tool_definitions,
        no_model_message=no_models_message(models_json),
        resource_loader=resource_loader,
    )
    holder.append(session)
    from pi_app.coding.checkpoints import attach_checkpoints

    session.checkpoints = attach_checkpoints(session, agent_path)
    if model is not None and not session_manager.get_entries():
        session_manager.append_model_change(model.provider, model.id)
        session_manager.append_thinking_level_change(level)
    elif model is not None and context.model != (model.provider, model.id):
        session_manager.append_model_change(model.provider, model.id)
    return CreatedSession(session=session, warnings=warnings, model_fallback_message=fallback_message)


# pi 1.6.0's httpIdleTimeoutMs default: the longest wait for the headers, for a read, and (issue 19
# item 10) between two stream events, after which the request fails with "Request timed out" and is
# retried like any other error.
DEFAULT_HTTP_IDLE_TIMEOUT_MS = 300_000


def with_request_limits(stream_fn: StreamFn, settings_manager: SettingsManager) -> StreamFn:
    """Fill each request's transport limits from settings unless the caller set them (R-RETRY-09).

    ``httpIdleTimeoutMs`` (else ``retry.provider.timeoutMs``) becomes the idle-read timeout, so a
    stalled stream ends with "Request timed out" instead of hanging; ``retry.provider.maxRetries``
    and ``maxRetryDelayMs`` go to L1's retry loop. Settings are read per request, so changes apply
    at once.

    One retry budget (issue 19 item 9): the session's auto-retry (``retry.maxRetries``, with the
    backoff the user sees) is the only retry unless ``retry.provider.maxRetries`` asks for more, as
    in pi 1.6.0, whose provider retries default to 0. L1 alone still retries twice by default;
    under a session that multiplied to 12 requests for one failing prompt.
    """
    import dataclasses

    from pi_app.ai.types import SimpleStreamOptions

    def stream(model: Any, context: Any, options: Any = None, **kwargs: Any) -> Any:
        getter = getattr(settings_manager, "get_retry_settings", None)
        provider = getter().provider if getter is not None else None
        idle_getter = getattr(settings_manager, "get_http_idle_timeout_ms", None)
        timeout = idle_getter() if idle_getter is not None else None
        if timeout is None and provider is not None:
            timeout = provider.timeout_ms
        if timeout is None:
            timeout = DEFAULT_HTTP_IDLE_TIMEOUT_MS
        wanted = {
            "timeout_ms": timeout,
            "max_retries": provider.max_retries
            if provider is not None and provider.max_retries is not None
            else 0,
            "max_retry_delay_ms": provider.max_retry_delay_ms if provider is not None else None,
        }
        base = options if options is not None else SimpleStreamOptions()
        updates = {k: v for k, v in wanted.items() if v is not None and getattr(base, k, None) is None}
        if updates and dataclasses.is_dataclass(base) and not isinstance(base, type):
            base = dataclasses.replace(base, **updates)
        return stream_fn(model, context, base, **kwargs)

    return stream


def context_level(
    context: Any, settings_manager: SettingsManager, continuing: bool, model: Model | None = None
) -> str:
    """The session's recorded level when resuming, else the model's ``modelThinkingLevels`` entry,
    else the saved default, else ``medium`` (pi 1.6.0's order)."""
    if continuing and getattr(context, "thinking_level", None):
        return context.thinking_level
    if model is not None:
        per_model = settings_manager.get_model_thinking_level(model.provider, model.id)
        if per_model:
            return per_model
    return settings_manager.get_default_thinking_level() or "medium"
