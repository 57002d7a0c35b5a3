"""From command-line options to a ready ``AgentSession``: shared by every shell.

``LaunchOptions`` is the parsed command line (``pi_app.cli`` fills it); ``build_session`` turns it
into settings, a model registry, a session manager (new, continued, opened, or in memory) and the
model, then calls ``create_agent_session``. The Textual app, print/JSON mode and RPC all start
here, so a flag means the same thing in every mode.

Start-up never touches the terminal (spec 70 §1.3): what it has to tell the person who launched
pi (warnings, load problems, extension errors) goes to ``LaunchHost.report`` one line at a time, and
the one question it may ask (fork a session found in another project?) to ``LaunchHost.ask``. The
shells pass a host that writes to stderr and asks on the terminal (``pi_app.modes.console``); without
one, lines go to the ``pi_app.launch`` logger and questions are declined.

The module's top-level imports stay light because ``pi_app.cli`` imports it for ``LaunchOptions``.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.agent.stream_fn import StreamFn
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.extensions.session_binding import ExtensionBinding
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.resources.loader import ResourceLoader
    from pi_app.coding.sdk import CreatedSession
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.settings import SettingsManager
    from pi_app.coding.trust import TrustAnswer


@dataclass
class LaunchOptions:
    """The parsed ``pi`` command line (``pi_app.cli`` fills it)."""

    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    mode: str = "text"
    print: bool = False
    continue_: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    session_dir: str | None = None
    session_id: str | None = None
    name: str | None = None
    no_session: bool = False
    models: str | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    tools: str | None = None
    exclude_tools: str | None = None
    thinking: str | None = None
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    no_context_files: bool = False
    approve: bool = False
    no_approve: bool = False  # 1.6.0's --no-approve: project-local files are ignored for this run
    use_theme: str | None = None  # 1.6.0's --use-theme: the app's theme for this run
    tui_mode: str | None = None  # 1.6.0's --tui-mode: only "fullscreen" here
    export: list[str] | None = None
    list_models: str | None = None
    list_models_requested: bool = False
    verbose: bool = False
    offline: bool = False
    no_mcp: bool = False
    messages: list[str] = field(default_factory=list)
    file_args: list[str] = field(default_factory=list)
    extension_flags: dict[str, object] = field(default_factory=dict)
    unknown_options: list[str] = field(default_factory=list)
    argv: list[str] = field(default_factory=list)
    cwd: str | None = None


def _log_line(line: str) -> None:
    logging.getLogger("pi_app.launch").warning("%s", line)


def _decline(question: str) -> bool:
    return False


@dataclass(frozen=True)
class LaunchHost:
    """Who start-up talks to: ``report(line)`` takes one line without its newline, ``ask(question)``
    a yes/no question and returns the answer."""

    report: Callable[[str], None] = _log_line
    ask: Callable[[str], bool] = _decline
    ask_trust: Callable[[str], Awaitable[TrustAnswer]] | None = None
    """The app's "trust this project?" question (``defaultProjectTrust: ask``); None: not asked,
    the project stays untrusted with a notice naming ``--approve``."""


class LaunchError(Exception):
    """Start-up cannot go on; ``str(error)`` is one line for stderr, ``exit_code`` the status."""

    def __init__(self, message: str, exit_code: int = 1, warnings: list[str] | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.warnings = list(warnings or [])  # start-up problems that explain the error


def _split_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def active_tool_names(
    options: LaunchOptions, settings: SettingsManager | None = None
) -> tuple[list[str] | None, bool]:
    """The built-in tools to activate and whether tools are off entirely (``pi_app.coding.tool_selection``:
    ``defaultTools`` layers, then ``--tools``, then ``--exclude-tools``)."""
    if options.no_tools:
        return [], True
    if options.no_builtin_tools:
        return [], False
    from pi_app.coding.tool_selection import resolve_tools
    from pi_app.coding.tools import BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS

    layers = settings.get_default_tools_layers() if settings is not None else []
    cli = _split_list(options.tools)
    excluded = _split_list(options.exclude_tools) or []
    if not layers and cli is None and not excluded:
        return None, False
    chosen = resolve_tools(
        available=BUILTIN_TOOL_NAMES,
        defaults=DEFAULT_ACTIVE_TOOLS,
        default_tools_layers=layers,
        cli_tools=cli,
        exclude=excluded,
    )
    return chosen.names, False


def extension_allowlist(options: LaunchOptions) -> list[str] | None:
    """The ``--tools`` entries extension tools are held to: None when the list only edits the
    defaults (``+name``/``-name``), which leaves extension tools as they are."""
    from pi_app.coding.tool_selection import is_edit

    entries = _split_list(options.tools)
    if entries is None or all(is_edit(e) for e in entries):
        return None
    return [e for e in entries if not is_edit(e)] + [e[1:] for e in entries if e.startswith("+")]


def report_unmatched_tools(
    options: LaunchOptions, session: AgentSession, report: Callable[[str], None]
) -> None:
    """1.6.0 enables no tool for a ``--tools`` list that matches none, and says so: one line naming
    the entries that matched no built-in, extension or MCP tool, and one when nothing is enabled."""
    from pi_app.coding.mcp.naming import matches_any

    entries = _split_list(options.tools)
    if not entries or options.no_tools:
        return
    active = [getattr(t, "name", "") for t in (session.agent.state.tools or [])]
    known = set(active) | {getattr(d, "name", "") for d in getattr(session, "tool_definitions", [])}
    unmatched = [
        e
        for e in entries
        if not e.lstrip("+-").startswith("mcp__") and not any(matches_any(n, [e.lstrip("+-")]) for n in known)
    ]
    if unmatched:
        report(f"Warning: --tools: no tool matches {', '.join(unmatched)}")
    if not active and not any(e.lstrip("+-").startswith("mcp__") for e in entries):
        report("Warning: no tools are enabled (--tools matched none)")


def session_dir_for(options: LaunchOptions, cwd: str) -> str:
    """The session folder the start-up would use (``--session-dir`` > env > setting > default)."""
    from pi_app.coding import paths
    from pi_app.coding.settings import SettingsManager

    settings = SettingsManager.create(cwd, paths.agent_dir())
    return str(paths.resolve_session_dir(cwd, options.session_dir, settings.get_session_dir()))


def open_session_manager(
    options: LaunchOptions, cwd: str, settings_manager: SettingsManager, host: LaunchHost = LaunchHost()
) -> SessionManager:
    from pi_app.coding import paths
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.session.storage import SessionStoreError, default_session_storage

    try:
        default_session_storage()  # a configured database that cannot be used ends the run here
    except SessionStoreError as exc:
        raise LaunchError(str(exc)) from None
    if options.fork:
        others = [flag for flag, on in _session_choices(options) if on]
        if others:
            raise LaunchError(f"Error: --fork cannot be combined with {', '.join(others)}")
    if options.no_session:
        return SessionManager.in_memory(cwd)
    chosen = paths.chosen_session_dir(options.session_dir, settings_manager.get_session_dir())
    session_dir = str(chosen or paths.default_session_dir(cwd))
    if options.fork:
        return fork_session_argument(options.fork, cwd, session_dir)
    if options.session:
        return open_session_argument(
            options.session, cwd, session_dir, host.ask, host.report, folder_chosen=chosen is not None
        )
    if options.session_id:
        return open_session_by_id(options.session_id, cwd, session_dir)
    if options.continue_ or options.resume:
        return SessionManager.continue_recent(cwd, session_dir)
    return SessionManager.create(cwd, session_dir)


def _session_choices(options: LaunchOptions) -> list[tuple[str, bool]]:
    return [
        ("--session", bool(options.session)),
        ("--session-id", bool(options.session_id)),
        ("--continue", options.continue_),
        ("--resume", options.resume),
        ("--no-session", options.no_session),
    ]


def fork_session_argument(arg: str, cwd: str, session_dir: str) -> SessionManager:
    """``--fork <path | id prefix>``: copy that session (whole tree) into a new session of this project."""
    from pi_app.coding import paths
    from pi_app.coding.session.listing import looks_like_path
    from pi_app.coding.session.manager import SessionManager

    if looks_like_path(arg):
        source = os.path.abspath(paths.expand_user(arg))
        if not os.path.isfile(source):
            raise LaunchError(f"Error: session file not found: {arg}")
    else:
        match = SessionManager.find_by_prefix(arg, cwd, session_dir)
        if match is None:
            raise LaunchError(f"No session found matching '{arg}'")
        source = match.info.path
    try:
        return SessionManager.fork_from(source, cwd, session_dir)
    except ValueError as exc:
        raise LaunchError(f"Error: {exc}") from None


def open_session_by_id(session_id: str, cwd: str, session_dir: str) -> SessionManager:
    """``--session-id <id>`` (spec 30 R-LIST-07): the project's session with exactly that id, else a
    new session that gets the id."""
    from pi_app.coding.session.manager import SessionManager

    for info in SessionManager.list(cwd, session_dir):
        if info.id == session_id:
            return SessionManager.open(info.path, session_dir, cwd=cwd)
    manager = SessionManager.create(cwd, session_dir)
    manager.new_session(id=session_id)
    return manager


def open_session_argument(
    arg: str,
    cwd: str,
    session_dir: str,
    ask: Callable[[str], bool] = _decline,
    report: Callable[[str], None] = _log_line,
    *,
    folder_chosen: bool = True,
) -> SessionManager:
    """``--session <path | id prefix>`` (spec 30 R-LIST-06): a path opens (or creates) that file; an id
    prefix opens the first match in this project, or offers to fork a match from another project.

    Unless the user chose a session folder (``folder_chosen``), the session's folder is the file's
    own, as in pi 1.6.0: ``/new`` and ``/resume`` work there, and the resume command printed on
    leaving names it (``pi --session-dir <folder> --session <id>``)."""
    from pi_app.coding.session.manager import NotASessionFileError, SessionManager

    path = session_argument_file(arg, cwd, session_dir, ask, report)
    try:
        return SessionManager.open(path, session_dir if folder_chosen else None, cwd=cwd)
    except NotASessionFileError as exc:
        raise LaunchError(f"Error: {exc}") from None


def session_argument_file(
    arg: str,
    cwd: str,
    session_dir: str,
    ask: Callable[[str], bool] = _decline,
    report: Callable[[str], None] = _log_line,
) -> str:
    """The file ``--session <arg>`` opens; a match from another project is forked into this one first
    (if ``ask`` agrees), and the fork is the file. ``LaunchError`` when nothing matches or on "no"."""
    from pi_app.coding import paths
    from pi_app.coding.session.listing import looks_like_path
    from pi_app.coding.session.manager import SessionManager

    if looks_like_path(arg):
        return os.path.abspath(paths.expand_user(arg))
    match = SessionManager.find_by_prefix(arg, cwd, session_dir)
    if match is None:
        raise LaunchError(f"No session found matching '{arg}'")
    if match.local:
        return match.info.path
    report(f"Session found in different project: {match.info.cwd}")
    if not ask("Fork this session into current directory? [y/N]"):
        raise LaunchError("Aborted.", exit_code=0)
    return str(SessionManager.fork_from(match.info.path, cwd, session_dir).get_session_file())


async def load_resources(
    options: LaunchOptions,
    cwd: str,
    agent_dir: str | Path,
    settings: SettingsManager,
    registry: ModelRegistry,
    host: LaunchHost = LaunchHost(),
) -> ResourceLoader:
    """The ``ResourceLoader`` for ``--skill``/``--prompt-template``/``--theme`` and their ``--no-*``
    switches, loaded. ``--approve`` trusts the project's ``.pi`` resources for this run. Packages
    listed in settings that are missing are installed unless offline (decision D-32).

    Extensions (``-e`` paths, settings, packages, the auto directories; ``--no-extensions``) are
    imported here; ``attach_extensions`` binds them to the session.
    """
    from pi_app.coding.paths import is_offline
    from pi_app.coding.resources.loader import ResourceLoader

    loader = ResourceLoader(
        cwd,
        agent_dir=agent_dir,
        settings=settings,
        model_registry=registry,
        mode=_mode_name(options),  # what project_trust handlers see as ctx.mode
        additional_skill_paths=options.skills,
        additional_prompt_template_paths=options.prompt_templates,
        additional_theme_paths=options.themes,
        additional_extension_paths=options.extensions,
        no_extensions=options.no_extensions,
        no_skills=options.no_skills,
        no_prompt_templates=options.no_prompt_templates,
        no_themes=options.no_themes,
        no_context_files=options.no_context_files,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt or None,
        offline=is_offline(options.offline),
    )
    if options.no_approve and hasattr(loader.trust, "decide"):
        loader.trust.decide(cwd, False, remember=False)  # untrusted for this run, nothing saved
    elif options.approve and hasattr(loader.trust, "approve"):
        loader.trust.approve = True
    if host.ask_trust is not None and hasattr(loader.trust, "ask"):
        loader.trust.ask = host.ask_trust
    await loader.reload()
    report = host.report
    notice = getattr(loader.trust, "notice", None)
    if notice:
        report(notice)
    if options.verbose:
        for kind, resources in (("skill", loader.get_skills()), ("prompt template", loader.get_prompts())):
            for diagnostic in resources.diagnostics:
                report(f"Warning: {kind}: {diagnostic.one_line()}")
    return loader


async def build_session(
    options: LaunchOptions,
    *,
    stream_fn: StreamFn | None = None,
    host: LaunchHost = LaunchHost(),
    base_tools_override: Mapping[str, Any] | None = None,
) -> CreatedSession:
    """Build the ``CreatedSession`` for these options, or raise ``LaunchError`` with one line;
    ``host`` hears the start-up warnings and answers the fork question. ``base_tools_override``
    (name -> tool definition) replaces the built-in tools, with the same tools active by default
    (ACP mode's editor-backed file tools)."""
    from pi_app.coding import paths
    from pi_app.coding.auth_storage import AuthStorage
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.models.resolver import resolve_cli_model
    from pi_app.coding.sdk import create_agent_session
    from pi_app.coding.settings import SettingsManager

    cwd = os.path.abspath(options.cwd or os.getcwd())
    agent_dir = paths.agent_dir()
    settings = SettingsManager.create(cwd, agent_dir)
    from pi_app.coding.http_proxy import apply_http_proxy_setting

    apply_http_proxy_setting(settings)
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    # Extensions load first so their providers are in the registry when --model is resolved
    # (spec 40 §2.8 steps 2-5).
    resources = await load_resources(options, cwd, agent_dir, settings, registry, host)
    flush_extension_providers(resources.get_extensions())

    model = None
    thinking = options.thinking
    if options.model or options.provider:
        try:
            resolved = resolve_cli_model(registry, options.provider, options.model)
        except Exception as exc:  # the resolver's messages are already one line for the user
            raise LaunchError(str(exc)) from None
        model = resolved.model
        if thinking is None and resolved.thinking_level:
            thinking = resolved.thinking_level
    if model is not None and options.api_key:
        registry.set_runtime_api_key(model.provider, options.api_key)
    session_manager = open_session_manager(options, cwd, settings, host)
    continuing = bool(options.continue_ or options.resume or options.session or options.fork)
    scoped: list[Any] = []
    if options.models:
        from pi_app.coding.models.resolver import parse_model_list, resolve_model_scope

        scoped, scope_warnings = resolve_model_scope(parse_model_list(options.models), registry.get_all())
        for warning in scope_warnings:
            host.report(f"Warning: {warning}")
        if model is None and scoped and not (continuing and session_manager.get_entries()):
            model = scoped[0].model
            thinking = thinking or scoped[0].thinking_level
    tools, no_tools = active_tool_names(options, settings)
    if base_tools_override is not None and tools is None:
        from pi_app.coding.tools import DEFAULT_ACTIVE_TOOLS

        tools = list(DEFAULT_ACTIVE_TOOLS)
    created = await create_agent_session(
        cwd,
        agent_dir=agent_dir,
        session_manager=session_manager,
        settings_manager=settings,
        model_registry=registry,
        model=model,
        thinking_level=thinking,
        tools=tools,
        no_tools=no_tools,
        no_context_files=options.no_context_files,
        api_key=options.api_key,
        continuing=continuing,
        stream_fn=stream_fn,
        resource_loader=resources,
        base_tools_override=base_tools_override,
    )
    created.session.scoped_models = scoped
    if created.session.checkpoints is not None and _mode_name(options) in ("print", "json"):
        created.session.checkpoints.baseline_at_start = False  # a short run: at its first bash call
    if not scoped and settings.get_enabled_models():  # resolved at start, as pi 1.6.0: extensions see it
        await created.session.model_scope()
    created.session.mcp_report = host.report
    if not (options.no_mcp or options.no_tools):
        _attach_mcp(created.session, options, cwd, agent_dir, resources, host)
    else:
        created.session.mcp_disabled = True
    await attach_extensions(created.session, resources, options, host)
    _extension_mcp_servers(created.session, resources)
    if created.session.model is None and (options.print or options.mode == "json"):
        if created.session.mcp is not None:
            created.session.mcp.kill()
        raise LaunchError(created.session.no_model_message, warnings=created.warnings)
    report_unmatched_tools(options, created.session, host.report)
    if options.name:
        created.session.set_session_name(options.name)
    return created


def _attach_mcp(
    session: AgentSession,
    options: LaunchOptions,
    cwd: str,
    agent_dir: str | Path,
    resources: ResourceLoader,
    host: LaunchHost,
) -> None:
    """The servers of ``mcp.json`` (issue 22) start connecting in the background; the project's
    file counts only in a trusted project. Nothing of the MCP SDK is imported without servers."""
    from pi_app.coding.mcp import attach_mcp

    trusted = bool(getattr(resources, "project_trusted", False))
    attach_mcp(
        session,
        agent_dir=agent_dir,
        cwd=cwd,
        project_trusted=trusted,
        report=host.report,
        allow_patterns=_split_list(options.tools),
        exclude_patterns=_split_list(options.exclude_tools) or (),
        defer_connect=_mode_name(options) in ("print", "json"),
    )


def _extension_mcp_servers(session: AgentSession, resources: Any) -> None:
    """Servers the extensions registered while loading (``pi.register_mcp_server``)."""
    loaded = resources.get_extensions()
    servers = {
        name: (entry, extension.path)
        for extension in loaded.extensions
        for name, entry in getattr(extension, "mcp_servers", {}).items()
    }
    if servers:
        from pi_app.coding.mcp import register_extension_servers

        register_extension_servers(session, servers)


def _mode_name(options: LaunchOptions) -> str:
    if options.mode == "rpc":
        return "rpc"
    if options.mode == "json":
        return "json"
    return "print" if options.print else "tui"


def flush_extension_providers(loaded: Any) -> None:
    """Apply the providers extensions queued in ``setup`` (R-EXT-07); a bad one becomes a load
    error of its extension, listed with the others."""
    runtime = loaded.runtime
    if runtime is None or not runtime.pending_providers:
        return
    from pi_app.coding.extensions.discovery import ExtensionLoadError

    def report(path: str, name: str, exc: BaseException) -> None:
        loaded.errors.append(ExtensionLoadError(path, f"Provider {name}: {exc}"))

    runtime.flush_providers(report)


def apply_extension_flags(options: LaunchOptions, flags: dict[str, Any]) -> None:
    """The second CLI pass (R-EXT-25): ``--name`` (boolean) and ``--name value`` / ``--name=value``
    (string) for flags extensions registered; any other leftover option is a one-line error with
    exit status 2 (D-30)."""
    argv = list(options.argv)
    for option in options.unknown_options:
        name, has_value, inline = option.partition("=")
        flag = flags.get(name.lstrip("-"))
        if flag is None or not name.startswith("--"):
            raise LaunchError(f"pi: unknown option {name} (see pi --help)", exit_code=2)
        if flag.type == "boolean":
            options.extension_flags[flag.name] = True
            continue
        if has_value:
            options.extension_flags[flag.name] = inline
            continue
        position = argv.index(option) if option in argv else -1
        value = argv[position + 1] if 0 <= position < len(argv) - 1 else None
        if value is None or value.startswith("-"):
            raise LaunchError(f"pi: option {name} needs a value", exit_code=2)
        options.extension_flags[flag.name] = value
        if value in options.messages:  # the first pass took the value for a message
            options.messages.remove(value)
        argv[position + 1] = ""


def _report_load_problems(loaded: Any, report: Callable[[str], None]) -> None:
    """Headless shells (print, JSON, RPC): one line per load problem, naming the file."""
    for problem in loaded.errors:
        report(f"Extension error ({problem.path}): {problem.error}")
    for diagnostic in loaded.diagnostics:
        report(f"Warning: {diagnostic.one_line()}")


async def attach_extensions(
    session: AgentSession, loader: ResourceLoader, options: LaunchOptions, host: LaunchHost = LaunchHost()
) -> ExtensionBinding | None:
    """Bind the loaded extensions to ``session`` (spec 40 §2.8 steps 6-8; see
    ``pi_app.coding.extensions.session_binding``); returns the binding, also set as
    ``session.extension_runner``, or None.

    Unknown ``--options`` left over from the first CLI pass must be flags an extension registered.
    Print/JSON/RPC report load problems to ``host`` one line each. Print and JSON mode get no UI
    (``ctx.has_ui`` False, dialogs return their cancel value), their handler errors as one line
    ``Extension error (<path>): …`` to ``host``, and ``session_start`` at once. The TUI and RPC call
    ``binding.set_ui_context(ui, mode, True)``, which starts the extensions.

    Print, JSON and RPC runs without any extension get no binding at all, so the extension machinery
    is never imported (start-up cost); the TUI always gets one, so ``/reload`` can pick up
    extensions created while it runs.
    """
    loaded = loader.get_extensions()
    mode = _mode_name(options)
    headless = mode in ("print", "json")
    say = host.report
    if mode != "tui":
        _report_load_problems(loaded, say)
    if not loaded.extensions and mode != "tui":
        apply_extension_flags(options, {})
        return None
    from pi_app.coding.extensions.session_binding import ExtensionBinding

    flags = {name: flag for extension in loaded.extensions for name, flag in extension.flags.items()}
    apply_extension_flags(options, flags)

    def report(error: Any) -> None:
        say(f"Extension error ({error.extension_path}): {error.error}")

    binding = await ExtensionBinding.attach(
        session,
        loader,
        mode=mode,
        flag_values=dict(options.extension_flags),
        allowlist=extension_allowlist(options),
        no_builtin_tools=options.no_builtin_tools,
        no_tools=options.no_tools,
        exclude=_split_list(options.exclude_tools) or (),
        on_error=report if headless else None,
    )
    if mode != "tui":
        for problem in binding.runner.conflicts:
            say(f"Warning: {problem.path}: {problem.error}")
    if headless:
        await binding.start()
    return binding


async def finish_extensions(session: AgentSession) -> None:
    """End of a print/JSON run: let extensions' fire-and-forget work finish, then
    ``session_shutdown{quit}``."""
    binding = getattr(session, "extension_runner", None)
    if binding is None:
        return
    drain = getattr(binding, "drain", None)
    if drain is not None:
        await drain()
    await binding.shutdown("quit")


def first_message_parts(options: LaunchOptions) -> tuple[str | None, list[Any]]:
    """The first message: ``@file`` contents (text inlined, images attached) then the first message."""
    from pi_app.ai.types import ImageContent

    cwd = options.cwd or os.getcwd()
    texts: list[str] = []
    images: list[ImageContent] = []
    for raw in options.file_args:
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = Path(cwd) / path
        if not path.is_file():
            raise LaunchError(f"Error: file not found: {raw}")
        mime, _ = mimetypes.guess_type(path.name)
        if mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            images.append(
                ImageContent(data=base64.b64encode(path.read_bytes()).decode("ascii"), mime_type=mime)
            )
            continue
        try:
            content = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError) as exc:
            raise LaunchError(f"Error: cannot read {raw}: {exc}") from None
        texts.append(f'<file name="{path}">\n{content}\n</file>\n')
    if options.messages:
        texts.append(options.messages[0])
    if not texts and not images:
        return None, []
    return "".join(texts), images


def keep_startup_objects() -> None:
    """The end of a start-up that ``pi_app.cli`` runs without the cyclic garbage collector: what it
    built (modules, classes, the session, the widgets) lives for the whole run, so the collector stops
    looking at it (``gc.freeze``) and collects again from here. No-op when it was not held off."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()
