"""``ExtensionRunner``: one runtime generation's extensions, their registrations and event dispatch.

How to wire (for AgentSession and the shells)
=============================================

Startup (spec 40 §2.8)::

    loaded = resource_loader.get_extensions()               # LoadExtensionsResult (already set up)
    runner = ExtensionRunner(loaded, cwd=cwd, model_registry=registry,
                             resources=resource_loader, reserved_commands=mode_builtin_commands)
    runner.flush_providers()                                # before --model is resolved
    runner.set_flag_values(values_from_second_cli_pass)     # flags registered by extensions
    runner.bind_core(host)                                  # host: an ExtensionHost subclass
    runner.set_ui_context(ui, mode="tui")                   # ExtensionUIContext of the mode
    runner.on_error(show_one_line)                          # ExtensionError -> shell output
    await runner.emit(SessionStartEvent("startup"))
    for ext_path, paths in await runner.emit_resources_discover(cwd, "startup"):
        resource_loader.extend_resources(paths, ext_path)

Per prompt, in this order: ``await runner.execute_command(text)`` (True = handled, stop) ->
``emit_input`` -> skill/template expansion -> ``emit_before_agent_start`` -> agent events: forward
each agent event with ``emit(...)``; use ``emit_context`` (transform_context),
``emit_before_provider_request`` (on_payload), ``emit_before_provider_headers``,
``emit_tool_call`` (before_tool_call hook; a raise or block -> error result, no ``tool_result``),
``emit_tool_result`` (after_tool_call hook), ``emit_message_end`` -> ``emit(AgentSettledEvent())``.

Session operations: ``emit_session_before(...)`` (``{"cancel": True}`` aborts), then
``await runner.shutdown(reason)`` on the old runner, then ``await runner.create_successor()``
(re-runs the cached ``setup`` functions; ``/reload`` instead reloads the resource loader and builds a
new runner), ``bind_core``, ``emit(SessionStartEvent(reason, previous_session_file))``.

Tools: ``runner.get_tools()`` are the winning extension tools; ``pi_app.coding.tool_registry``
overlays them on the built-ins and wraps them with ``runner.create_context`` per call.

Nothing here raises for extension mistakes: handler, command and shortcut failures become
``ExtensionError`` objects delivered to the ``on_error`` listeners (R-EXT-09..14).
"""

from __future__ import annotations

import copy
import inspect
import logging
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.coding.extensions.context import (
    ExtensionCommandContext,
    ExtensionContext,
    ProjectTrustContext,
    ReplacedSessionContext,
)
from pi_app.coding.extensions.loader import rerun_extensions
from pi_app.coding.extensions.results import normalise_result
from pi_app.coding.extensions.runtime import ExtensionHost, ExtensionRuntime
from pi_app.coding.extensions.types import (
    BeforeAgentStartEvent,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    CommandLocation,
    ContextEvent,
    Extension,
    ExtensionError,
    ExtensionLoadError,
    InputEvent,
    LoadExtensionsResult,
    MessageEndEvent,
    ProjectTrustEvent,
    RegisteredCommand,
    RegisteredFlag,
    RegisteredShortcut,
    RegisteredTool,
    ResourcesDiscoverEvent,
    SessionShutdownEvent,
    SlashCommandInfo,
    ToolCallEvent,
    ToolResultEvent,
)
from pi_app.coding.extensions.ui import ExtensionUIContext, NoOpUIContext

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry

log = logging.getLogger(__name__)

# pi's built-in interactive commands plus /trust (R-EXT-20); a mode may pass its own set.
RESERVED_COMMANDS: frozenset[str] = frozenset(
    {
        "settings",
        "model",
        "scoped-models",
        "export",
        "share",
        "copy",
        "name",
        "session",
        "changelog",
        "hotkeys",
        "fork",
        "tree",
        "login",
        "logout",
        "new",
        "compact",
        "resume",
        "reload",
        "quit",
        "trust",
    }
)

# Actions an extension shortcut may never take over (R-EXT-21).
RESERVED_ACTIONS: frozenset[str] = frozenset(
    {
        "interrupt",
        "clear",
        "exit",
        "suspend",
        "cycleThinkingLevel",
        "cycleModelForward",
        "cycleModelBackward",
        "selectModel",
        "expandTools",
        "toggleThinking",
        "externalEditor",
        "followUp",
        "submit",
        "selectConfirm",
        "selectCancel",
        "copy",
        "deleteToLineEnd",
    }
)

DEFAULT_BLOCK_REASON = "Tool call was blocked by an extension"


@dataclass
class InputOutcome:
    """What the ``input`` handlers decided together."""

    action: str  # continue | transform | handled
    text: str
    images: list[Any] | None


@dataclass
class BeforeAgentStartOutcome:
    """What the ``before_agent_start`` handlers decided together."""

    messages: list[Any] = field(default_factory=list)
    system_prompt: str | None = None  # None: use the base prompt for this run


@dataclass
class ToolCallOutcome:
    """What the ``tool_call`` handlers decided together."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass
class ToolResultOutcome:
    """What the ``tool_result`` handlers decided together."""

    content: list[Any]
    details: Any
    is_error: bool
    usage: Any = None


def _action_of(binding_action: str) -> str:
    """``app.interrupt`` / ``tui.input.submit`` / ``interrupt`` -> ``interrupt`` / ``submit``."""
    return binding_action.rsplit(".", 1)[-1]


class ExtensionRunner:
    def __init__(
        self,
        loaded: LoadExtensionsResult,
        *,
        cwd: str,
        model_registry: ModelRegistry | None = None,
        resources: Any = None,
        reserved_commands: Iterable[str] = RESERVED_COMMANDS,
        keybindings: Mapping[str, str] | None = None,
        enable_skill_commands: bool = True,
    ) -> None:
        """``keybindings`` maps a key (e.g. ``ctrl+p``) to the built-in action it triggers."""
        self.extensions: list[Extension] = list(loaded.extensions)
        self.load_errors: list[ExtensionLoadError] = list(loaded.errors)
        self.runtime: ExtensionRuntime = loaded.runtime or ExtensionRuntime(model_registry=model_registry)
        if model_registry is not None and self.runtime.model_registry is None:
            self.runtime.model_registry = model_registry
        self.runtime.runner = self
        self.cwd = cwd
        self.resources = resources
        self.reserved_commands = frozenset(c.lstrip("/") for c in reserved_commands)
        self.keybindings = {k.lower(): v for k, v in (keybindings or {}).items()}
        self.enable_skill_commands = enable_skill_commands
        self.ui: ExtensionUIContext = NoOpUIContext()
        self.mode = "print"
        self.has_ui = False
        self._error_listeners: list[Callable[[ExtensionError], None]] = []
        self._warned: set[tuple[str, str]] = set()
        self.warnings: list[ExtensionLoadError] = []
        self.conflicts: list[ExtensionLoadError] = self._compute_conflicts()
        for extension in self.extensions:
            for message in extension.warnings:
                self.warnings.append(ExtensionLoadError(extension.path, message))
        self.runtime.event_bus._on_error = lambda channel, exc: self._report(
            f"events:{channel}", "event_bus", exc
        )

    # -- diagnostics ----------------------------------------------------------------------------

    @property
    def errors(self) -> list[ExtensionLoadError]:
        """Load errors, then conflicts (R-RES-11) — the "Extension issues" list."""
        return [*self.load_errors, *self.conflicts]

    def on_error(self, listener: Callable[[ExtensionError], None]) -> Callable[[], None]:
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    def _report(self, extension_path: str, event: str, exc: BaseException | str) -> ExtensionError:
        if isinstance(exc, BaseException):
            message = str(exc) or type(exc).__name__
            stack = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        else:
            message, stack = exc, None
        error = ExtensionError(extension_path, event, message, stack)
        log.debug("extension error %s [%s]: %s\n%s", extension_path, event, message, stack or "")
        if not self._error_listeners:
            log.warning("%s", error.one_line())
        for listener in list(self._error_listeners):
            try:
                listener(error)
            except Exception:  # a broken listener must not hide other listeners' view
                log.exception("extension error listener failed")
        return error

    def _warn_once(self, extension_path: str, event: str, message: str) -> None:
        key = (extension_path, event)
        if key not in self._warned:
            self._warned.add(key)
            self.warnings.append(ExtensionLoadError(extension_path, message))
            log.warning("%s: %s", extension_path, message)

    def guard_callback(self, callback: Callable[..., Any] | None, event: str) -> Callable[..., Any] | None:
        """Wrap a user callback so an exception becomes an ``ExtensionError`` (R-EXT-47)."""
        if callback is None:
            return None

        def guarded(*args: Any) -> Any:
            try:
                result = callback(*args)
            except Exception as exc:
                self._report(getattr(callback, "__module__", "?"), event, exc)
                return None
            return result

        return guarded

    # -- registrations (first extension wins, [D-2]) ---------------------------------------------

    def _compute_conflicts(self) -> list[ExtensionLoadError]:
        conflicts: list[ExtensionLoadError] = []

        def check(
            kind: str, label: Callable[[str], str], items: Callable[[Extension], Iterable[str]]
        ) -> None:
            winners: dict[str, str] = {}
            for extension in self.extensions:
                for name in items(extension):
                    if name in winners:
                        conflicts.append(
                            ExtensionLoadError(
                                extension.path, f"{label(name)} conflicts with {winners[name]}"
                            )
                        )
                    else:
                        winners[name] = extension.path

        check("tool", lambda n: f'Tool "{n}"', lambda e: e.tools)
        check(
            "command",
            lambda n: f'Command "/{n}"',
            lambda e: [c for c in e.commands if c not in self.reserved_commands],
        )
        check("flag", lambda n: f'Flag "--{n}"', lambda e: e.flags)
        check("shortcut", lambda n: f"Shortcut '{n}'", lambda e: e.shortcuts)
        check("renderer", lambda n: f'Message renderer "{n}"', lambda e: e.message_renderers)
        for extension in self.extensions:
            for name in extension.commands:
                if name in self.reserved_commands:
                    conflicts.append(
                        ExtensionLoadError(
                            extension.path,
                            f"Extension command '{name}' from {extension.path} conflicts with built-in "
                            "commands. Skipping.",
                        )
                    )
            for key in extension.shortcuts:
                action = self.keybindings.get(key)
                if action is None:
                    continue
                if _action_of(action) in RESERVED_ACTIONS:
                    conflicts.append(
                        ExtensionLoadError(
                            extension.path,
                            f"Shortcut '{key}' is reserved for {action} and cannot be taken over. Skipping.",
                        )
                    )
                else:
                    conflicts.append(
                        ExtensionLoadError(
                            extension.path, f"Shortcut '{key}' takes over the built-in {action}"
                        )
                    )
        return conflicts

    def _first(self, attribute: str) -> Iterator[tuple[str, Any]]:
        seen: set[str] = set()
        for extension in self.extensions:
            for name, item in getattr(extension, attribute).items():
                if name not in seen:
                    seen.add(name)
                    yield name, item

    def get_tools(self) -> list[RegisteredTool]:
        return [tool for _, tool in self._first("tools")]

    def get_commands(self) -> list[RegisteredCommand]:
        return [c for name, c in self._first("commands") if name not in self.reserved_commands]

    def get_command(self, name: str) -> RegisteredCommand | None:
        return next((c for c in self.get_commands() if c.name == name), None)

    def get_flags(self) -> dict[str, RegisteredFlag]:
        return dict(self._first("flags"))

    def set_flag_values(self, values: Mapping[str, bool | str]) -> None:
        """Values from the second CLI pass; they survive reload and session replacement."""
        self.runtime.flag_values.update(values)

    def get_shortcuts(self) -> dict[str, RegisteredShortcut]:
        out: dict[str, RegisteredShortcut] = {}
        for key, shortcut in self._first("shortcuts"):
            action = self.keybindings.get(key)
            if action is not None and _action_of(action) in RESERVED_ACTIONS:
                continue
            out[key] = shortcut
        return out

    def get_message_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        return dict(self._first("message_renderers")).get(custom_type)

    def get_slash_commands(self) -> list[SlashCommandInfo]:
        """Extension commands, then prompt templates, then skills as ``skill:<name>``."""
        out = [
            SlashCommandInfo(c.name, "extension", c.description, "path", c.extension_path)
            for c in self.get_commands()
        ]
        if self.resources is not None:
            for template in self.resources.get_prompts().items:
                out.append(
                    SlashCommandInfo(
                        template.name, "prompt", template.description, _location(template), template.file_path
                    )
                )
            if self.enable_skill_commands:
                for skill in self.resources.get_skills().items:
                    out.append(
                        SlashCommandInfo(
                            f"skill:{skill.name}",
                            "skill",
                            skill.description,
                            _location(skill),
                            skill.file_path,
                        )
                    )
        return out

    # -- lifecycle --------------------------------------------------------------------------------

    def flush_providers(self) -> None:
        def report(path: str, name: str, exc: BaseException) -> None:
            self._report(path, "register_provider", f"Provider {name}: {exc}")

        self.runtime.flush_providers(report)

    def bind_core(self, host: ExtensionHost) -> None:
        """Swap the throwing action stubs for the host and apply queued providers (R-EXT-07)."""
        self.runtime.host = host
        self.flush_providers()

    def set_ui_context(self, ui: ExtensionUIContext | None, mode: str, has_ui: bool | None = None) -> None:
        self.ui = ui if ui is not None else NoOpUIContext()
        self.mode = mode
        self.has_ui = has_ui if has_ui is not None else mode in ("tui", "rpc")

    def create_context(self) -> ExtensionContext:
        return ExtensionContext(self, self.runtime)

    def create_command_context(self) -> ExtensionCommandContext:
        return ExtensionCommandContext(self, self.runtime)

    def create_replaced_session_context(self) -> ReplacedSessionContext:
        return ReplacedSessionContext(self, self.runtime)

    async def shutdown(self, reason: str = "quit", target_session_file: str | None = None) -> None:
        """``session_shutdown`` on this runtime, then teardown (stale contexts, providers removed)."""
        if self.runtime.stale:
            return
        await self.emit(SessionShutdownEvent(reason, target_session_file))  # type: ignore[arg-type]  # a Literal field: callers pass pi's names
        self.teardown()

    def teardown(self) -> None:
        self.runtime.teardown()

    async def create_successor(self, model_registry: ModelRegistry | None = None) -> ExtensionRunner:
        """Session replacement: a new runtime running the cached ``setup`` functions (R-EXT-24)."""
        runtime = ExtensionRuntime(
            model_registry=model_registry or self.runtime.model_registry,
            import_generation=self.runtime.import_generation,
        )
        runtime.flag_values.update(self.runtime.flag_values)
        loaded = await rerun_extensions(self.extensions, self.cwd, runtime)
        successor = ExtensionRunner(
            loaded,
            cwd=self.cwd,
            resources=self.resources,
            reserved_commands=self.reserved_commands,
            keybindings=self.keybindings,
            enable_skill_commands=self.enable_skill_commands,
        )
        successor.set_ui_context(self.ui, self.mode, self.has_ui)
        successor._error_listeners = list(self._error_listeners)
        return successor

    # -- dispatch -------------------------------------------------------------------------------

    def has_handlers(self, event_type: str) -> bool:
        return any(extension.handlers.get(event_type) for extension in self.extensions)

    def _handlers(self, event_type: str) -> list[tuple[Extension, Callable[..., Any]]]:
        return [(ext, h) for ext in self.extensions for h in list(ext.handlers.get(event_type, ()))]

    async def _invoke(self, extension: Extension, handler: Callable[..., Any], event: Any, ctx: Any) -> Any:
        result = handler(event, ctx)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _results(self, event: Any) -> Any:
        """Yield ``(extension, normalised values)`` per handler, isolating failures (R-EXT-09)."""
        ctx = self.create_context()
        for extension, handler in self._handlers(event.type):
            try:
                raw = await self._invoke(extension, handler, event, ctx)
            except Exception as exc:
                self._report(extension.path, event.type, exc)
                continue
            normalised = normalise_result(event.type, raw)
            if normalised.unknown_keys:
                keys = ", ".join(normalised.unknown_keys)
                self._warn_once(extension.path, event.type, f'Unknown result keys for "{event.type}": {keys}')
            if normalised.error is not None:
                self._report(extension.path, event.type, normalised.error)
                continue
            yield extension, normalised.values

    async def emit(self, event: Any) -> None:
        """Observational events: every handler runs; return values are ignored."""
        if self.runtime.stale and event.type != "session_shutdown":
            return
        ctx = self.create_context()
        for extension, handler in self._handlers(event.type):
            try:
                await self._invoke(extension, handler, event, ctx)
            except Exception as exc:
                self._report(extension.path, event.type, exc)

    async def emit_input(
        self,
        text: str,
        images: list[Any] | None = None,
        source: str = "interactive",
        streaming_behavior: str | None = None,
    ) -> InputOutcome:
        event = InputEvent(text, images, source, streaming_behavior)  # type: ignore[arg-type]  # a Literal field: callers pass pi's names
        changed = False
        async for _ext, values in self._results(event):
            if not values:
                continue
            action = values.get("action", "continue")
            if action == "handled":
                return InputOutcome("handled", event.text, event.images)
            if action == "transform":
                if values.get("text") is not None:
                    event.text = values["text"]
                if "images" in values and values["images"] is not None:
                    event.images = values["images"]
                changed = True
        return InputOutcome("transform" if changed else "continue", event.text, event.images)

    async def emit_before_agent_start(
        self, prompt: str, images: list[Any] | None, system_prompt: str, system_prompt_options: Any = None
    ) -> BeforeAgentStartOutcome:
        event = BeforeAgentStartEvent(prompt, images, system_prompt, system_prompt_options)
        outcome = BeforeAgentStartOutcome()
        async for _ext, values in self._results(event):
            if not values:
                continue
            if values.get("message") is not None:
                outcome.messages.append(values["message"])
            if values.get("system_prompt") is not None:
                event.system_prompt = values["system_prompt"]
                outcome.system_prompt = values["system_prompt"]
        return outcome

    async def emit_context(self, messages: list[Any]) -> list[Any]:
        """Handlers get a deep copy; a returned list replaces the working list (R-EXT-17)."""
        if not self.has_handlers("context"):
            return messages
        event = ContextEvent(copy.deepcopy(messages))
        replaced = False
        async for _ext, values in self._results(event):
            if values and values.get("messages") is not None:
                event.messages = values["messages"]
                replaced = True
        return event.messages if replaced else messages

    async def emit_before_provider_request(self, payload: Any) -> Any:
        event = BeforeProviderRequestEvent(payload)
        ctx = self.create_context()
        for extension, handler in self._handlers(event.type):
            try:
                result = await self._invoke(extension, handler, event, ctx)
            except Exception as exc:
                self._report(extension.path, event.type, exc)
                continue
            if result is not None:
                event.payload = result
        return event.payload

    async def emit_before_provider_headers(self, headers: dict[str, Any]) -> dict[str, str]:
        """Handlers mutate ``event.headers`` in place; a value of None deletes that header."""
        event = BeforeProviderHeadersEvent(headers)
        await self.emit(event)
        for name in [n for n, v in event.headers.items() if v is None]:
            del event.headers[name]
        return event.headers  # type: ignore[return-value]  # the None values are gone

    async def emit_tool_call(
        self, tool_call_id: str, tool_name: str, input: dict[str, Any]
    ) -> ToolCallOutcome:
        """A raising handler blocks the call (fail-safe, R-EXT-11); ``block`` short-circuits."""
        event = ToolCallEvent(tool_call_id, tool_name, input)
        ctx = self.create_context()
        for extension, handler in self._handlers(event.type):
            try:
                raw = await self._invoke(extension, handler, event, ctx)
            except Exception as exc:
                self._report(extension.path, "tool_call", exc)
                return ToolCallOutcome(True, str(exc) or type(exc).__name__)
            normalised = normalise_result("tool_call", raw)
            if normalised.unknown_keys:
                keys = ", ".join(normalised.unknown_keys)
                self._warn_once(extension.path, "tool_call", f'Unknown result keys for "tool_call": {keys}')
            if normalised.error is not None:
                self._report(extension.path, "tool_call", normalised.error)
                continue
            values = normalised.values or {}
            if values.get("block"):
                return ToolCallOutcome(
                    True, values.get("reason") or DEFAULT_BLOCK_REASON, bool(values.get("terminate"))
                )
        return ToolCallOutcome()

    async def emit_tool_result(
        self,
        tool_call_id: str,
        tool_name: str,
        input: dict[str, Any],
        content: list[Any],
        details: Any,
        is_error: bool,
        usage: Any = None,
    ) -> ToolResultOutcome:
        """Middleware chain: each handler sees the latest values; omitted keys keep theirs ([D-7])."""
        event = ToolResultEvent(tool_call_id, tool_name, input, content, details, is_error, usage)
        async for _ext, values in self._results(event):
            for key in ("content", "details", "is_error", "usage"):
                if values and key in values:
                    setattr(event, key, values[key])
        return ToolResultOutcome(event.content, event.details, event.is_error, event.usage)

    async def emit_message_end(self, message: Any) -> Any:
        """A replacement must keep the role; otherwise it is rejected and the previous kept."""
        event = MessageEndEvent(message)
        ctx = self.create_context()
        for extension, handler in self._handlers(event.type):
            try:
                raw = await self._invoke(extension, handler, event, ctx)
            except Exception as exc:
                self._report(extension.path, event.type, exc)
                continue
            normalised = normalise_result("message_end", raw)
            if normalised.error is not None:
                self._report(extension.path, event.type, normalised.error)
                continue
            replacement = (normalised.values or {}).get("message")
            if replacement is None:
                continue
            if _role(replacement) != _role(event.message):
                self._report(
                    extension.path,
                    event.type,
                    f'message_end replacement must keep role "{_role(event.message)}", got "{_role(replacement)}"',
                )
                continue
            event.message = replacement
        return event.message

    async def emit_session_before(self, event: Any) -> dict[str, Any] | None:
        """``session_before_*``: the first ``cancel=True`` stops; otherwise the last non-None result."""
        last: dict[str, Any] | None = None
        async for _ext, values in self._results(event):
            if values is None:
                continue
            if values.get("cancel"):
                return values
            last = values
        return last

    async def emit_user_bash(self, event: Any) -> dict[str, Any] | None:
        async for _ext, values in self._results(event):
            if values:
                return values
        return None

    async def emit_resources_discover(self, cwd: str, reason: str) -> list[tuple[str, dict[str, list[str]]]]:
        """All paths from all handlers, each tagged with the extension that supplied it."""
        out: list[tuple[str, dict[str, list[str]]]] = []
        async for extension, values in self._results(ResourcesDiscoverEvent(cwd, reason)):  # type: ignore[arg-type]  # a Literal field: callers pass pi's names
            if values:
                paths = {k: list(v) for k, v in values.items() if v}
                if paths:
                    out.append((extension.path, paths))
        return out

    # -- commands and shortcuts --------------------------------------------------------------------

    def parse_command(self, text: str) -> tuple[RegisteredCommand, str] | None:
        if not text.startswith("/"):
            return None
        name, _, args = text[1:].partition(" ")
        command = self.get_command(name)
        return (command, args) if command is not None else None

    async def execute_command(self, text: str) -> bool:
        """Run ``/name args`` if an extension owns ``name``; True means the input was handled."""
        parsed = self.parse_command(text)
        if parsed is None:
            return False
        command, args = parsed
        try:
            result = command.handler(args, self.create_command_context())
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self._report(f"command:{command.name}", "command", exc)
        return True

    async def run_shortcut(self, key: str) -> bool:
        shortcut = self.get_shortcuts().get(key.lower())
        if shortcut is None:
            return False
        try:
            result = shortcut.handler(self.create_context())
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self._report(shortcut.extension_path, "shortcut", exc)
        return True


def _role(message: Any) -> str | None:
    if isinstance(message, Mapping):
        return message.get("role")
    return getattr(message, "role", None)


def _location(item: Any) -> CommandLocation:
    scope = getattr(getattr(item, "source_info", None), "scope", "user")
    return "user" if scope == "user" else "project" if scope == "project" else "path"


async def ask_project_trust(
    extensions: Iterable[Extension],
    cwd: str,
    *,
    mode: str,
    ui: ExtensionUIContext | None,
    on_error: Callable[[str, BaseException | str], None] | None = None,
) -> tuple[bool | None, bool]:
    """``project_trust`` to already-loaded global/CLI extensions: ``(trusted or None, remember)``.

    The first ``yes``/``no`` decides; ``undecided`` or None falls through (spec 40 §2.7, R-RES-30).
    """
    event = ProjectTrustEvent(cwd)
    ctx = ProjectTrustContext(cwd, mode, ui)
    for extension in extensions:
        for handler in list(extension.handlers.get("project_trust", ())):
            try:
                raw = handler(event, ctx)
                if inspect.isawaitable(raw):
                    raw = await raw
            except Exception as exc:
                if on_error is not None:
                    on_error(extension.path, exc)
                continue
            normalised = normalise_result("project_trust", raw)
            if normalised.error is not None:
                if on_error is not None:
                    on_error(extension.path, normalised.error)
                continue
            values = normalised.values or {}
            if values.get("trusted") in ("yes", "no"):
                return values["trusted"] == "yes", bool(values.get("remember"))
    return None, False
