"""``ExtensionAPI``: the ``pi`` object handed to an extension's ``setup(pi)`` (spec 40 §2.3).

Registration methods write into this extension's ``Extension`` record and work during ``setup`` and
afterwards. Action methods delegate to the host bound to the shared runtime and raise
``ExtensionRuntimeNotReady`` during ``setup``. Every method raises ``StaleExtensionContextError``
once the runtime has been torn down (R-EXT-22).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.extensions.event_bus import ScopedEventBus
from pi_app.coding.extensions.runtime import ExtensionRuntime
from pi_app.coding.extensions.types import (
    EVENT_TYPES,
    ExecResult,
    Extension,
    RegisteredCommand,
    RegisteredFlag,
    RegisteredShortcut,
    RegisteredTool,
    SlashCommandInfo,
    ToolInfo,
)

if TYPE_CHECKING:
    from pi_app.ai.types import Model


KILL_GRACE_S = 5.0


class ExtensionAPI:
    def __init__(self, extension: Extension, runtime: ExtensionRuntime, cwd: str) -> None:
        self._extension = extension
        self._runtime = runtime
        self._cwd = cwd
        self._events = ScopedEventBus(runtime.event_bus)

    # -- plumbing ---------------------------------------------------------------------------------

    @property
    def extension_path(self) -> str:
        return self._extension.path

    def _live(self, member: str) -> None:
        self._runtime.check_live(member)

    def _warn(self, message: str) -> None:
        self._extension.warnings.append(message)

    def _discard(self) -> None:
        """Undo side effects outside the record after a failed setup (R-EXT-05)."""
        self._events.discard()
        self._runtime.discard_extension(self._extension.path)

    # -- registration -------------------------------------------------------------------------

    def on(self, event: str, handler: Callable[..., Any] | None = None) -> Any:
        """Subscribe ``handler(event, ctx)``; returns ``unsubscribe``, or a decorator without handler."""
        self._live("on")
        if event not in EVENT_TYPES:
            self._warn(f'Unknown event "{event}": the handler will never be called')

        def register(fn: Callable[..., Any]) -> Callable[[], None]:
            handlers = self._extension.handlers.setdefault(event, [])
            handlers.append(fn)

            def unsubscribe() -> None:
                if fn in handlers:
                    handlers.remove(fn)

            return unsubscribe

        if handler is not None:
            return register(handler)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            register(fn)
            return fn

        return decorator

    def register_tool(self, tool: Any) -> None:
        self._live("register_tool")
        name = getattr(tool, "name", None)
        if not isinstance(name, str) or not name:
            raise ValueError("register_tool needs a ToolDefinition with a non-empty name")
        self._extension.tools[name] = RegisteredTool(tool, self._extension.path, self._extension.source_info)
        host = self._runtime.host
        if host is not None:
            host.refresh_tools()

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """An MCP server for this session, in the shape of an ``mcpServers`` entry of mcp.json
        (pi 1.6.0's ``registerMcpServer``). A server of the same name in mcp.json wins; enabled
        state and exposure changes apply to this session only."""
        self._live("register_mcp_server")
        if not isinstance(config, dict):
            raise ValueError("register_mcp_server needs the server's mcp.json entry (a dict)")
        self._extension.mcp_servers[name] = dict(config)
        host = self._runtime.host
        session = getattr(host, "session", None) if host is not None else None
        if session is not None:  # registered after start-up: connect it now
            from pi_app.coding.mcp import register_extension_servers

            register_extension_servers(session, {name: (dict(config), self._extension.path)})

    def register_command(
        self,
        name: str,
        *,
        handler: Callable[..., Any],
        description: str | None = None,
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> None:
        self._live("register_command")
        clean = name.lstrip("/")
        self._extension.commands[clean] = RegisteredCommand(
            clean, handler, description, get_argument_completions, self._extension.path
        )

    def register_shortcut(
        self, key: str, *, handler: Callable[..., Any], description: str | None = None
    ) -> None:
        self._live("register_shortcut")
        normalised = key.strip().lower()
        self._extension.shortcuts[normalised] = RegisteredShortcut(
            normalised, handler, description, self._extension.path
        )

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"] = "boolean",
        default: bool | str | None = None,
        description: str | None = None,
    ) -> None:
        self._live("register_flag")
        if type not in ("boolean", "string"):
            raise ValueError(f'Flag "--{name}": type must be "boolean" or "string"')
        clean = name.lstrip("-")
        self._extension.flags[clean] = RegisteredFlag(clean, type, default, description, self._extension.path)
        if default is not None and clean not in self._runtime.flag_values:
            self._runtime.flag_values[clean] = default

    def get_flag(self, name: str) -> bool | str | None:
        self._live("get_flag")
        clean = name.lstrip("-")
        if clean not in self._extension.flags:
            return None
        return self._runtime.flag_values.get(clean)

    def register_message_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        self._live("register_message_renderer")
        self._extension.message_renderers[custom_type] = renderer

    def register_provider(self, name: str, config: Any) -> None:
        self._runtime.register_provider(name, config, self._extension.path)

    def unregister_provider(self, name: str) -> None:
        self._runtime.unregister_provider(name, self._extension.path)

    @property
    def events(self) -> ScopedEventBus:
        self._live("events")
        return self._events

    async def exec(
        self,
        command: str,
        args: list[str] | None = None,
        *,
        cwd: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> ExecResult:
        """Run a program without a shell; on timeout/abort SIGTERM, then SIGKILL after 5 s."""
        self._live("exec")
        host = self._runtime.host
        workdir = cwd or (host.cwd if host is not None else self._cwd)
        return await run_process(command, list(args or []), cwd=workdir, timeout=timeout, signal=signal)

    # -- actions ------------------------------------------------------------------------------------

    def send_message(
        self,
        message: dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "followUp", "nextTurn"] = "steer",
    ) -> Any:
        return self._runtime.bound_host("send_message").send_message(message, trigger_turn, deliver_as)

    def send_user_message(
        self,
        content: Any,
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> Any:
        host = self._runtime.bound_host("send_user_message")
        return host.send_user_message(content, deliver_as, expand_prompt_templates)

    def append_entry(self, custom_type: str, data: Any = None) -> Any:
        return self._runtime.bound_host("append_entry").append_entry(custom_type, data)

    def set_session_name(self, name: str | None) -> None:
        self._runtime.bound_host("set_session_name").set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._runtime.bound_host("get_session_name").get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._runtime.bound_host("set_label").set_label(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return self._runtime.bound_host("get_active_tools").get_active_tools()

    def get_all_tools(self) -> list[ToolInfo]:
        return self._runtime.bound_host("get_all_tools").get_all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._runtime.bound_host("set_active_tools").set_active_tools(list(names))

    def get_commands(self) -> list[SlashCommandInfo]:
        self._runtime.bound_host("get_commands")
        return self._runtime.runner.get_slash_commands()

    async def set_model(self, model: Model) -> bool:
        return await self._runtime.bound_host("set_model").set_model(model)

    def get_thinking_level(self) -> str:
        return self._runtime.bound_host("get_thinking_level").get_thinking_level()

    def set_thinking_level(self, level: str) -> None:
        self._runtime.bound_host("set_thinking_level").set_thinking_level(level)


async def run_process(
    command: str,
    args: list[str],
    *,
    cwd: str,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
) -> ExecResult:
    try:
        process = await asyncio.create_subprocess_exec(
            command,
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return ExecResult(stdout="", stderr=str(exc), code=127)
    communicate = asyncio.ensure_future(process.communicate())
    stop = asyncio.get_running_loop().create_future()

    def on_abort() -> None:
        if not stop.done():
            stop.set_result(None)

    remove = signal.add_listener(on_abort) if signal is not None else None
    if signal is not None and signal.aborted and not stop.done():
        stop.set_result(None)
    killed = False
    try:
        done, _ = await asyncio.wait(
            {communicate, stop}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if communicate not in done:
            killed = True
            await _terminate(process)
        stdout, stderr = await communicate
    finally:
        if remove is not None:
            remove()
        if not stop.done():
            stop.cancel()
    return ExecResult(
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        code=process.returncode if process.returncode is not None else -1,
        killed=killed,
    )


async def _terminate(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signals.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signals.SIGKILL)
        await process.wait()
