"""``ExtensionBinding``: extensions attached to one ``AgentSession`` (spec 40 §2.8, §2.9, R-RES-20).

``await ExtensionBinding.attach(session, loader, mode=..., ui=...)`` does the startup steps of
spec 40 §2.8 that follow loading: providers flushed, flag values stored, the tool registry built
(built-ins overlaid by extension tools, D-10), the agent hooks installed (``tool_call``,
``tool_result``, ``context``, ``before_provider_request``, agent events forwarded), the host bound and
the UI set. ``await binding.start()`` then fires ``session_start`` and ``resources_discover``.

The binding stands in for the runner on ``session.extension_runner``: the session's own hooks
(``session_before_*``, ``session_shutdown``, ``session_start``, ``session_compact``, ``session_tree``)
arrive here, and a ``session_shutdown`` for new/resume/fork tears the runtime down and builds the
successor that receives the following ``session_start`` ([D-3], R-EXT-24). ``AgentSession.prompt``
asks ``prepare_prompt`` (command -> input -> skill -> template) and ``before_agent_start`` (injected
messages, per-run system prompt).

Contract with the shells (``pi_app.coding.launch.attach_extensions`` builds the binding):

- print/JSON: ``attach_extensions`` starts the extensions at once (no UI: ``ctx.has_ui`` False,
  dialogs return their cancel values) and ``launch.finish_extensions`` drains fire-and-forget work
  and sends ``session_shutdown{quit}`` at the end.
- TUI and RPC: the shell finds the binding as ``session.extension_runner``, registers its error
  listener with ``on_error`` and its ``on_shutdown_request`` callback, then calls
  ``set_ui_context(ui, "tui" | "rpc", True)`` on its agent loop; that first interactive call starts
  the extensions (``session_start``, ``resources_discover``) as a task, so a ``session_start``
  handler may await a dialog the shell has to answer. ``start()`` afterwards does nothing.
- Anything else (``get_slash_commands``, ``parse_command``, renderers, shortcuts, ``conflicts``) is
  the current runner's, reached through the binding; after ``/reload`` or a new session that is
  the new runner.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from pi_app.ai.types import ImageContent
from pi_app.ai.util.content_text import content_text
from pi_app.coding.extensions.hooks import (
    AgentEventForwarder,
    after_tool_call_hook,
    before_tool_call_hook,
    transform_context_hook,
)
from pi_app.coding.extensions.prompt_input import PreparedInput, prepare_user_input
from pi_app.coding.extensions.runner import RESERVED_COMMANDS, ExtensionRunner
from pi_app.coding.extensions.runtime import ExtensionHost
from pi_app.coding.extensions.types import (
    ContextUsage,
    ExtensionError,
    SessionShutdownEvent,
    SessionStartEvent,
    ToolInfo,
)
from pi_app.coding.tool_registry import ToolRegistry

if TYPE_CHECKING:
    from pi_app.ai.event_stream import AbortSignal
    from pi_app.ai.types import Model
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.session.manager import SessionManager

log = logging.getLogger(__name__)


def _normalise_content(content: Any) -> tuple[str, list[Any]]:
    """``str`` or blocks -> (text joined with newlines, images)."""
    if isinstance(content, str):
        return content, []
    return content_text(content, "\n"), [block for block in content or [] if isinstance(block, ImageContent)]


class SessionExtensionHost(ExtensionHost):
    """The ``ExtensionHost`` over an ``AgentSession``."""

    def __init__(self, binding: ExtensionBinding) -> None:
        self.binding = binding

    @property
    def session(self) -> AgentSession:
        return self.binding.session

    # -- context values ---------------------------------------------------------------------------

    @property
    def cwd(self) -> str:
        return self.session.cwd

    @property
    def session_manager(self) -> SessionManager:
        return self.session.session_manager

    @property
    def model(self) -> Model | None:
        return self.session.model

    @property
    def scoped_models(self) -> tuple[Any, ...]:
        return tuple(self.session.known_model_scope)

    @property
    def thinking_level(self) -> str:
        return self.session.thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        return getattr(self.session.agent, "signal", None)

    def is_idle(self) -> bool:
        return not getattr(self.session, "is_busy", self.session.is_streaming)

    def abort(self) -> None:
        self.session.abort()

    def has_pending_messages(self) -> bool:
        return bool(self.session.agent.has_queued_messages() or self.binding.next_turn)

    def is_project_trusted(self) -> bool:
        return bool(getattr(self.binding.loader, "project_trusted", False))

    def shutdown(self) -> None:
        self.binding.shutdown_requested = True
        if self.binding.on_shutdown_request is not None:
            self.binding.on_shutdown_request()

    def get_context_usage(self) -> ContextUsage | None:
        usage = self.session.get_context_usage()
        if usage is None:
            return None
        return ContextUsage(usage.tokens, usage.context_window, usage.percent)

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        async def run() -> None:
            try:
                result = await self.session.compact(custom_instructions)
            except Exception as exc:
                if on_error is not None:
                    on_error(exc)
                return
            if on_complete is not None:
                on_complete(result)

        self.binding.spawn(run(), "compact")

    def get_system_prompt(self) -> str:
        return self.session.system_prompt

    # -- actions ------------------------------------------------------------------------------------

    def send_message(self, message: Any, trigger_turn: bool, deliver_as: str) -> Any:
        from pi_app.coding.messages import CustomMessage

        data = dict(message) if isinstance(message, dict) else vars(message)
        custom = CustomMessage(
            custom_type=str(data.get("custom_type") or data.get("customType") or "extension"),
            content=data.get("content", ""),
            display=bool(data.get("display", True)),
            details=data.get("details"),
            timestamp=_now(),
        )
        session = self.session
        if deliver_as == "nextTurn":
            self.binding.next_turn.append(custom)
            return None
        if session.is_streaming:
            if deliver_as == "followUp":
                session.agent.follow_up(custom)
            else:
                session.agent.steer(custom)
            return None
        if trigger_turn:
            return self.binding.spawn(session.prompt_message(custom), "send_message")
        session.agent.state.messages.append(custom)
        return self.binding.spawn(self.binding.announce(custom), "send_message")

    def send_user_message(self, content: Any, deliver_as: str | None, expand_prompt_templates: bool) -> Any:
        text, images = _normalise_content(content)
        session = self.session
        if session.is_streaming and deliver_as is None:
            raise RuntimeError(
                "The agent is busy: send_user_message needs deliver_as='steer' or 'followUp' while it runs"
            )
        if session.is_streaming:
            (session.steer if deliver_as == "steer" else session.follow_up)(text, images or None)
            return None
        return self.binding.spawn(
            self.binding.prompt(text, images or None, source="extension", expand=expand_prompt_templates),
            "send_user_message",
        )

    def append_entry(self, custom_type: str, data: Any) -> Any:
        return self.session.session_manager.append_custom_entry(custom_type, data)

    def set_session_name(self, name: str | None) -> None:
        self.session.set_session_name(name or "")

    def get_session_name(self) -> str | None:
        return self.session.session_name

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.session.session_manager.append_label_change(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return list(self.binding.tools.active)

    def get_all_tools(self) -> list[ToolInfo]:
        infos = self.binding.tools.tool_infos()
        mcp = getattr(self.session, "mcp", None)
        if mcp is not None:  # MCP tools with the server's annotations (permission extensions use them)
            infos += mcp.tool_infos()
        return infos

    def set_active_tools(self, names: list[str]) -> None:
        self.binding.tools.set_active(names)
        self.binding.apply_tools()

    async def set_model(self, model: Model) -> bool:
        registry = self.session.model_registry
        if registry is not None and not await registry.has_credentials(model.provider):
            return False
        await self.session.set_model(model, persist_default=False)
        return True

    def get_thinking_level(self) -> str:
        return self.session.thinking_level

    def set_thinking_level(self, level: str) -> None:
        try:
            self.session.set_thinking_level(level, persist_default=False)
        except TypeError:
            self.session.set_thinking_level(level)

    def refresh_tools(self) -> None:
        self.binding.refresh_tools()

    # -- command context -------------------------------------------------------------------------------

    async def wait_for_idle(self) -> None:
        await self.session.wait_for_idle()

    async def new_session(
        self, *, parent_session: str | None = None, setup: Any = None, with_session: Any = None
    ) -> dict[str, Any]:
        done = await self.session.new_session(parent_session)
        if done and setup is not None:
            result = setup(self.session.session_manager)
            if inspect.isawaitable(result):
                await result
        return await self.binding.after_replacement(bool(done), with_session)

    async def fork(
        self, entry_id: str, *, position: str = "before", with_session: Any = None
    ) -> dict[str, Any]:
        result = await self.session.fork(entry_id, position)
        cancelled = bool(getattr(result, "cancelled", False))
        return await self.binding.after_replacement(not cancelled, with_session)

    async def switch_session(self, session_path: str, *, with_session: Any = None) -> dict[str, Any]:
        result = await self.session.switch_session(session_path)
        return await self.binding.after_replacement(bool(getattr(result, "switched", True)), with_session)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "summarize": summarize,
            "custom_instructions": custom_instructions,
            "replace_instructions": replace_instructions,
            "label": label,
        }
        result = await self.session.navigate_tree(
            target_id, **{k: v for k, v in kwargs.items() if v is not None}
        )
        return {"cancelled": bool(getattr(result, "cancelled", False))}

    async def reload(self) -> None:
        await self.binding.reload()


def _now() -> int:
    from pi_app.ai.types import now_ms

    return now_ms()


class ExtensionBinding:
    def __init__(
        self, session: AgentSession, loader: Any, runner: ExtensionRunner, tools: ToolRegistry
    ) -> None:
        self.session = session
        self.loader = loader
        self.runner = runner
        self.tools = tools
        self.next_turn: list[Any] = []
        self.shutdown_requested = False
        self.on_shutdown_request: Callable[[], None] | None = None
        self.host = SessionExtensionHost(self)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._error_listeners: list[Callable[[ExtensionError], None]] = []
        self._mode = runner.mode
        self._ui = runner.ui
        self._has_ui: bool | None = None
        self._keybindings = dict(runner.keybindings)
        self._forwarder = AgentEventForwarder(lambda: self.runner)
        self._override_warnings: list[tuple[str, str]] = []
        self._started = False

    def __getattr__(self, name: str) -> Any:
        """Everything else is the current runner's (``get_slash_commands``, renderers, …)."""
        runner = self.__dict__.get("runner")
        if name.startswith("__") or runner is None:
            raise AttributeError(name)
        return getattr(runner, name)

    def set_ui_context(self, ui: Any, mode: str, has_ui: bool | None = None) -> None:
        """The shell's UI; kept for successor runtimes. The first call of an interactive shell
        (TUI, RPC) also starts the extensions (``session_start``) if nobody has yet."""
        self._ui, self._mode, self._has_ui = ui, mode, has_ui
        self.runner.set_ui_context(ui, mode, has_ui)
        if not self._started and mode in ("tui", "rpc"):
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._started = True
            self._start_task = loop.create_task(self._start_now())

    # -- construction ------------------------------------------------------------------------------

    @classmethod
    async def attach(
        cls,
        session: AgentSession,
        loader: Any,
        *,
        mode: str = "print",
        ui: Any = None,
        flag_values: dict[str, Any] | None = None,
        keybindings: dict[str, str] | None = None,
        reserved_commands: Sequence[str] = tuple(RESERVED_COMMANDS),
        allowlist: Sequence[str] | None = None,
        no_builtin_tools: bool = False,
        no_tools: bool = False,
        exclude: Sequence[str] = (),
        on_error: Callable[[ExtensionError], None] | None = None,
    ) -> ExtensionBinding:
        enable_skills = True
        getter = getattr(session.settings_manager, "get_enable_skill_commands", None)
        if getter is not None:
            enable_skills = bool(getter())
        runner = ExtensionRunner(
            loader.get_extensions(),
            cwd=session.cwd,
            model_registry=session.model_registry,
            resources=loader,
            reserved_commands=reserved_commands,
            keybindings=keybindings,
            enable_skill_commands=enable_skills,
        )
        runner.set_ui_context(ui, mode)
        builtins = {d.name: d for d in session.tool_definitions}
        tools = ToolRegistry(
            builtins,
            allowlist=allowlist,
            no_tools=no_tools,
            no_builtin_tools=no_builtin_tools,
            exclude=exclude,
            default_active=[d.name for d in session.tool_definitions],
        )
        binding = cls(session, loader, runner, tools)
        if on_error is not None:
            binding._error_listeners.append(on_error)
        binding._wire_runner(runner, flag_values or {})
        binding._install_agent_hooks()
        session.extension_runner = binding
        binding.refresh_tools()
        return binding

    def _wire_runner(self, runner: ExtensionRunner, flag_values: dict[str, Any]) -> None:
        for listener in self._error_listeners:
            runner.on_error(listener)
        runner.set_flag_values(flag_values)
        runner.bind_core(self.host)
        runner.set_ui_context(self._ui, self._mode, self._has_ui)

    def _install_agent_hooks(self) -> None:
        agent = self.session.agent
        tool_hook = before_tool_call_hook(lambda: self.runner)
        if hasattr(self.session, "set_extension_tool_hook"):
            self.session.set_extension_tool_hook(tool_hook)  # the session asks it, then its own gates
        else:
            agent.before_tool_call = tool_hook
        agent.after_tool_call = after_tool_call_hook(lambda: self.runner)
        agent.transform_context = transform_context_hook(lambda: self.runner, agent.transform_context)
        previous_payload = agent.on_payload

        async def on_payload(payload: Any, model: Any) -> Any:
            if previous_payload is not None:
                result = previous_payload(payload, model)
                payload = (await result if inspect.isawaitable(result) else result) or payload
            if not self.runner.has_handlers("before_provider_request"):
                return payload
            return await self.runner.emit_before_provider_request(payload)

        agent.on_payload = on_payload
        agent.subscribe(self._forwarder)

    def on_error(self, listener: Callable[[ExtensionError], None]) -> Callable[[], None]:
        """Listen to extension errors of this and every later runtime (reload, new session)."""
        self._error_listeners.append(listener)
        remove = self.runner.on_error(listener)

        def unsubscribe() -> None:
            if listener in self._error_listeners:
                self._error_listeners.remove(listener)
            remove()

        return unsubscribe

    # -- tools and system prompt -----------------------------------------------------------------------

    def refresh_tools(self) -> list[tuple[str, str]]:
        """Overlay the current extension tools; returns new built-in overrides (warn once each)."""
        result = self.tools.refresh(self.runner.get_tools())
        self._override_warnings.extend(result.overrides)
        self.apply_tools()
        return result.overrides

    def take_override_warnings(self) -> list[str]:
        lines = [
            f'Extension tool "{name}" from {path} replaces the built-in tool'
            for name, path in self._override_warnings
        ]
        self._override_warnings.clear()
        return lines

    def apply_tools(self) -> None:
        self.session.agent.state.tools = self.tools.agent_tools(lambda: self.runner.create_context())
        self.session.agent.state.system_prompt = self.build_system_prompt()

    def build_system_prompt(self) -> str:
        from pi_app.coding.sdk import build_system_prompt_from_resources

        return build_system_prompt_from_resources(
            self.session.cwd,
            self.loader,
            list(self.tools.active),
            self.tools.prompt_snippets(),
            self.tools.prompt_guidelines(),
        )

    # -- runner stand-in for AgentSession's own hooks -----------------------------------------------------

    def has_handlers(self, event_type: str) -> bool:
        return self.runner.has_handlers(event_type)

    async def emit_session_before(self, event: Any) -> Any:
        return await self.runner.emit_session_before(event)

    async def emit(self, event: Any) -> None:
        if isinstance(event, dict) and event.get("type") == "session_shutdown":
            await self.shutdown(str(event.get("reason") or "quit"))
            return
        if isinstance(event, SessionShutdownEvent) and event.reason in ("new", "resume", "fork"):
            await self.runner.shutdown(event.reason, event.target_session_file)
            self.runner = await self.runner.create_successor(self.session.model_registry)
            self._wire_runner(self.runner, {})
            self.refresh_tools()
            return
        if isinstance(event, SessionStartEvent):
            await self.runner.emit(event)
            return
        await self.runner.emit(event)

    # -- prompts ------------------------------------------------------------------------------------------

    async def prepare_prompt(
        self,
        text: str,
        images: list[Any] | None = None,
        *,
        source: str = "interactive",
        streaming_behavior: str | None = None,
        expand: bool = True,
    ) -> PreparedInput:
        loader = self.loader
        return await prepare_user_input(
            text,
            images,
            runner=self.runner,
            skills=list(loader.get_skills().items),
            templates=list(loader.get_prompts().items),
            source=source,
            streaming_behavior=streaming_behavior,
            dispatch_commands=expand,
            expand=expand,
            enable_skill_commands=self.runner.enable_skill_commands,
        )

    async def before_agent_start(self, prompt: str, images: list[Any] | None) -> tuple[list[Any], str | None]:
        """Messages to send after the user message (queued next-turn ones first) and the system
        prompt for this run (None: the base prompt)."""
        from pi_app.coding.messages import CustomMessage

        injected, self.next_turn = list(self.next_turn), []
        base = self.build_system_prompt()
        if not self.runner.has_handlers("before_agent_start"):
            return injected, None
        outcome = await self.runner.emit_before_agent_start(prompt, images, base)
        for raw in outcome.messages:
            data = dict(raw) if isinstance(raw, dict) else vars(raw)
            injected.append(
                CustomMessage(
                    custom_type=str(data.get("custom_type") or data.get("customType") or "extension"),
                    content=data.get("content", ""),
                    display=bool(data.get("display", True)),
                    details=data.get("details"),
                    timestamp=_now(),
                )
            )
        return injected, outcome.system_prompt

    async def prompt(
        self, text: str, images: list[Any] | None = None, *, source: str = "extension", expand: bool = False
    ) -> None:
        prompt = self.session.prompt
        parameters = inspect.signature(prompt).parameters
        if "source" in parameters:
            await prompt(text, images, source=source, expand=expand)
        else:
            await prompt(text, images)

    async def announce(self, message: Any) -> None:
        """An idle ``send_message`` without a turn: persisted and shown, no LLM call (R-EXT-40)."""
        from pi_app.agent.events import MessageEndEvent, MessageStartEvent

        self.session._persist(message)
        await self.session._emit(MessageStartEvent(message))
        await self.session._emit(MessageEndEvent(message))

    def spawn(self, coro: Coroutine[Any, Any, Any], event: str) -> asyncio.Task[Any]:
        """Fire-and-forget work whose failure becomes an ``ExtensionError`` (R-EXT-40/41/47)."""

        async def run() -> Any:
            try:
                return await coro
            except Exception as exc:
                self.runner._report("<session>", event, exc)
                return None

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self) -> None:
        """Wait for fire-and-forget work started by extensions (print mode waits before exiting)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- lifecycle ------------------------------------------------------------------------------------------

    async def start(self, reason: str = "startup") -> None:
        """``session_start`` then ``resources_discover`` (once; later calls do nothing)."""
        if self._started:
            return
        self._started = True
        await self._start_now(reason)

    async def _start_now(self, reason: str = "startup") -> None:
        try:
            await self.runner.emit(SessionStartEvent(reason))  # type: ignore[arg-type]  # a Literal field: callers pass pi's names
            await self._discover(reason)
        except Exception as exc:  # never let a start-up hook take the shell down
            self.runner._report("<session>", "session_start", exc)

    async def _discover(self, reason: str) -> None:
        if not self.runner.has_handlers("resources_discover"):
            return
        for extension_path, paths in await self.runner.emit_resources_discover(self.session.cwd, reason):
            self.loader.extend_resources(paths, extension_path)
        self.apply_tools()

    async def after_replacement(self, replaced: bool, with_session: Any) -> dict[str, Any]:
        if not replaced:
            return {"cancelled": True}
        if with_session is not None:
            result = with_session(self.runner.create_replaced_session_context())
            if inspect.isawaitable(result):
                await result
        return {"cancelled": False}

    async def reload(self) -> None:
        """``/reload`` (R-RES-20): new runtime from re-imported extensions and rediscovered resources."""
        old = self.runner
        flags = dict(old.runtime.flag_values)
        active = list(self.tools.active)
        await old.shutdown("reload")
        reload_settings = getattr(self.session.settings_manager, "reload", None)
        if reload_settings is not None:
            reload_settings()
        await self.loader.reload()
        runner = ExtensionRunner(
            self.loader.get_extensions(),
            cwd=self.session.cwd,
            model_registry=self.session.model_registry,
            resources=self.loader,
            reserved_commands=old.reserved_commands,
            keybindings=self._keybindings,
            enable_skill_commands=old.enable_skill_commands,
        )
        self.runner = runner
        self._wire_runner(runner, flags)
        self.tools.active = [n for n in active if n in self.tools.definitions]
        self.refresh_tools()
        await runner.emit(SessionStartEvent("reload"))
        await self._discover("reload")

    async def shutdown(self, reason: str = "quit") -> None:
        await self.runner.shutdown(reason)
