"""RPC mode: ``pi --mode rpc`` — JSON commands on stdin, responses and events on stdout (spec 60 §3.16).

``run_rpc_mode(options)`` guards stdout (only protocol lines reach the client, from the first
byte), builds the session like every other mode, and hands it to ``RpcServer``.

``RpcServer`` reads records (``framing``), parses them (``protocol``) and runs each command in its
own task, so an ``extension_ui_response`` or an ``abort`` is answered while another command waits
(R-RPC-11); commands that replace the session (new, switch, fork, clone) queue behind one lock.
Every response echoes the request's ``id``, errors included. Each handler maps 1:1 onto the public
``AgentSession`` API (R-SDK-04): the server holds no business rules of its own.

``prompt`` has exactly one response (R-RPC-12), with pi 1.6.0's ``data.disposition``: ``started``
(written by the session's ``on_accepted`` right before the run's first event, so it precedes
``agent_start``), ``queued`` (the agent was busy and ``streamingBehavior`` queued it), or
``handled`` (an extension command, or an ``input`` handler consumed it: no run, no
``agent_settled``). While the agent is busy a prompt needs ``streamingBehavior``
(``steer``/``followUp``) or it is rejected. A prompt naming an extension command runs it at once,
busy or not (40 R-EXT-48); ``steer``/``follow_up`` reject one and otherwise answer ``queued``.
Every session-level run ends with ``agent_settled`` (clients wait for it, not for ``agent_end``).

Extensions (``_bind_extensions``): dialogs travel as ``extension_ui_request``/``extension_ui_response``
(``RpcUIContext``), handler errors as ``extension_error`` events, load problems as one stderr line
each (written by ``launch.attach_extensions``); ``ctx.shutdown()`` stops reading and exits 0 once
accepted work is done (R-RPC-30). ``get_commands`` sends the spec's ``location``/``path`` and pi
0.73.1's ``sourceInfo``.

Lifecycle (R-RPC-31, 70 R-SRV-04): at EOF the server stops reading, lets accepted work settle,
cancels open dialogs, tells extensions ``session_shutdown`` and exits 0. SIGTERM and SIGINT abort
the run and any bash command first, then shut down the same way.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_app.ai import codec
from pi_app.ai.types import ImageContent
from pi_app.ai.util.content_text import message_text
from pi_app.ai.util.structs import dump
from pi_app.coding.messages import message_to_dict
from pi_app.modes.output import JsonParts
from pi_app.modes.rpc import protocol as p
from pi_app.modes.rpc.ext_ui import RpcUIContext
from pi_app.modes.rpc.framing import LineWriter
from pi_app.modes.serialize import event_to_wire

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.extensions.types import CommandLocation
    from pi_app.coding.launch import LaunchOptions

log = logging.getLogger(__name__)

BUSY_ERROR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
IDENTITY_COMMANDS = frozenset({"new_session", "switch_session", "fork", "clone"})
SHUTDOWN_GRACE_S = 4.0


class RpcServer:
    def __init__(self, session: AgentSession, writer: LineWriter) -> None:
        self.session = session
        self.writer = writer
        self.ui = RpcUIContext(self.send)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._run_task: asyncio.Task[Any] | None = None
        self._identity_lock = asyncio.Lock()
        self._shutdown_requested = asyncio.Event()  # an extension's ctx.shutdown() (R-RPC-30)
        self._bash_running = 0
        self._unsubscribe = session.subscribe(self._on_event)
        save_callbacks = getattr(session, "on_save_error", None)
        if save_callbacks is not None:  # one stderr line per new failure, not a traceback per entry
            save_callbacks.append(lambda line: sys.stderr.write(f"Error: {line}\n"))
        self._handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            name: getattr(self, f"_cmd_{name}")
            for name in p.COMMAND_MODELS
            if name != "extension_ui_response"
        }

    # -- output -----------------------------------------------------------------------------------

    def send(self, obj: dict[str, Any] | JsonParts) -> None:
        self.writer.write(obj)

    def _on_event(self, event: Any) -> None:
        self.send(event_to_wire(event))

    # -- input ------------------------------------------------------------------------------------

    async def serve(self, records: AsyncIterator[bytes], stop: asyncio.Event | None = None) -> int:
        """Answer commands until EOF (or ``stop``), then shut down cleanly; returns the exit status."""
        stop = stop or asyncio.Event()
        reader = asyncio.ensure_future(self._read_all(records))
        stopper = asyncio.ensure_future(stop.wait())
        requested = asyncio.ensure_future(self._shutdown_requested.wait())
        try:
            await asyncio.wait({reader, stopper, requested}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            interrupted = stop.is_set()
            reader.cancel()
            stopper.cancel()
            requested.cancel()
        failure = reader.exception() if reader.done() and not reader.cancelled() else None
        if failure is not None:  # an internal error, not the client's: one last line, then exit 1
            log.error("RPC input loop failed", exc_info=failure)
            self.send(p.failure("internal", None, f"Internal error: {failure}"))
        await self.shutdown(interrupted=interrupted or failure is not None)
        return 1 if failure is not None else 0

    async def _read_all(self, records: AsyncIterator[bytes]) -> None:
        async for record in records:
            self.dispatch(record)

    def request_shutdown(self) -> None:
        """Stop reading; work already accepted (the command that asked included) finishes first."""
        self._shutdown_requested.set()

    def dispatch(self, record: bytes) -> None:
        """Parse one record and start its command; parse errors are answered at once. A bug met while
        doing so becomes that command's error response, and the server goes on serving."""
        try:
            command = p.parse_command(record)
        except p.CommandError as exc:
            self.send(exc.response)
            return
        try:
            self._dispatch_command(command)
        except Exception as exc:
            self._send_failure(command, exc)

    def _send_failure(self, command: Any, exc: Exception) -> None:
        log.debug("rpc command %s failed", command.type, exc_info=True)
        self.send(p.failure(command.type, command.id, str(exc) or type(exc).__name__))

    def _dispatch_command(self, command: Any) -> None:
        if command.type == "extension_ui_response":
            self.ui.resolve(str(command.id), dump(command, exclude_none=True))
            return
        if command.type == "prompt":
            # Checked and answered synchronously, so a second prompt on the next line sees this one.
            self._start_prompt(command)
            return
        self._spawn(self._run_command(command))

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run_command(self, command: Any) -> None:
        kind = command.type
        try:
            if kind in IDENTITY_COMMANDS:
                async with self._identity_lock:
                    data = await self._handlers[kind](command)
            else:
                data = await self._handlers[kind](command)
            # inside the try: a reply that cannot be encoded still answers the command (the writer
            # encodes the whole line before writing any of it)
            self.send(p.success(kind, command.id, data))
        except Exception as exc:  # the client gets one line; the traceback goes to the debug log
            self._send_failure(command, exc)

    # -- prompt and queueing ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.session.is_busy or (self._run_task is not None and not self._run_task.done())

    def _extension_command(self, text: str) -> str | None:
        """The name of the extension command ``text`` invokes (``/name args``), else None."""
        parse = getattr(getattr(self.session, "extension_runner", None), "parse_command", None)
        if parse is None or not text.startswith("/") or parse(text) is None:
            return None
        return text[1:].split(" ", 1)[0]

    def _reject_queued_command(self, text: str) -> None:
        name = self._extension_command(text)
        if name is not None:
            raise RuntimeError(
                f"/{name} is an extension command and cannot be queued; send it with prompt instead"
            )

    def _start_prompt(self, command: p.PromptCommand) -> None:
        session = self.session
        images = _images(command.images)
        if self._extension_command(command.message) is not None:
            # extension commands run at once, even while the agent streams (40 R-EXT-48, R-RPC-12)
            self.send(p.success("prompt", command.id, {"disposition": "handled"}))
            self._spawn(self._run_prompt(command, images, answered=True))
            return
        try:
            if self.busy:
                if command.streaming_behavior == "steer":
                    session.steer(command.message, images)
                elif command.streaming_behavior == "followUp":
                    session.follow_up(command.message, images)
                else:
                    raise RuntimeError(BUSY_ERROR)
                self.send(p.success("prompt", command.id, {"disposition": "queued"}))
                return
            if session.model is None:
                raise RuntimeError(session.no_model_message)
        except Exception as exc:
            self.send(p.failure("prompt", command.id, str(exc)))
            return
        self._run_task = self._spawn(self._run_prompt(command, images))

    async def _run_prompt(
        self, command: p.PromptCommand, images: list[ImageContent] | None, *, answered: bool = False
    ) -> None:
        """Run an accepted prompt. Its one response (R-RPC-12) goes out when the session says what
        became of it (``started`` before the run's first event, or ``handled`` by an input handler);
        a failure before that is the response instead."""
        sent = answered

        def accepted(disposition: str) -> None:
            nonlocal sent
            if not sent:
                sent = True
                self.send(p.success("prompt", command.id, {"disposition": disposition}))

        try:
            await self.session.prompt(command.message, images, on_accepted=accepted)
        except Exception as exc:
            if not sent:
                sent = True
                self.send(p.failure("prompt", command.id, str(exc) or type(exc).__name__))
                return
            from pi_app.modes.console import describe_exception

            log.debug("prompt failed", exc_info=True)
            sys.stderr.write(f"Error: {describe_exception(exc)}\n")  # one line; the logger would add more
        if not sent:  # a session that never said (a host's own prompt): it ran, so it started
            self.send(p.success("prompt", command.id, {"disposition": "started"}))

    async def _cmd_steer(self, cmd: p.SteerCommand) -> Any:
        self._reject_queued_command(cmd.message)
        self.session.steer(cmd.message, _images(cmd.images))
        return {"disposition": "queued"}

    async def _cmd_follow_up(self, cmd: p.SteerCommand) -> Any:
        self._reject_queued_command(cmd.message)
        self.session.follow_up(cmd.message, _images(cmd.images))
        return {"disposition": "queued"}

    async def _cmd_prompt(self, cmd: p.PromptCommand) -> Any:  # pragma: no cover - handled in dispatch
        raise RuntimeError("prompt is answered by dispatch")

    async def _cmd_abort(self, cmd: Any) -> Any:
        self.session.abort()
        await self._settle()
        return p.NO_DATA

    async def _cmd_clear_queue(self, cmd: Any) -> Any:
        steering, follow_ups = self.session.agent.queued_messages()
        data = {
            "steering": [message_text(m, "\n") for m in steering],
            "followUp": [message_text(m, "\n") for m in follow_ups],
        }
        self.session.clear_queue()
        return data

    # -- state and queries ------------------------------------------------------------------------

    async def _cmd_get_state(self, cmd: Any) -> Any:
        s = self.session
        steering, follow_ups = s.agent.queued_messages()
        state: dict[str, Any] = {
            "model": _model(s.model) if s.model is not None else None,
            "thinkingLevel": s.thinking_level,
            "isStreaming": s.is_streaming,
            "isCompacting": bool(getattr(s, "is_compacting", False)),
            "steeringMode": s.agent.steering_mode,
            "followUpMode": s.agent.follow_up_mode,
        }
        if s.session_file is not None:
            state["sessionFile"] = s.session_file
        state["sessionId"] = s.session_id
        if s.session_name:
            state["sessionName"] = s.session_name
        state["autoCompactionEnabled"] = bool(s.settings_manager.get_compaction_enabled())
        state["messageCount"] = len(s.messages)
        state["pendingMessageCount"] = len(steering) + len(follow_ups)
        mcp = getattr(s, "mcp", None)
        if mcp is not None:  # ours (issue 22): 1.6.0 sends no MCP state; clients ignore the extra key
            state["mcp"] = mcp.state_summary()
        return state

    async def _cmd_get_messages(self, cmd: Any) -> Any:
        return {"messages": [message_to_dict(m) for m in self.session.messages]}

    async def _cmd_get_last_assistant_text(self, cmd: Any) -> Any:
        return {"text": self.session.get_last_assistant_text()}

    async def _cmd_get_session_stats(self, cmd: Any) -> Any:
        from pi_app.coding.session_stats import compute_session_stats

        return compute_session_stats(self.session).to_dict()

    async def _cmd_get_entries(self, cmd: p.GetEntriesCommand) -> Any:
        manager = self.session.session_manager
        if cmd.since is not None and manager.get_entry(cmd.since) is None:
            raise RuntimeError(f"Entry not found: {cmd.since}")
        entries = manager.get_entries_since(cmd.since) if cmd.since is not None else manager.get_entries()
        return {"entries": [e.to_dict() for e in entries], "leafId": manager.get_leaf_id()}

    async def _cmd_get_tree(self, cmd: Any) -> Any:
        manager = self.session.session_manager
        return {"tree": [_tree_node(n) for n in manager.get_tree()], "leafId": manager.get_leaf_id()}

    async def _cmd_navigate_tree(self, cmd: p.NavigateTreeCommand) -> Any:
        session = self.session
        result = await session.navigate_tree(
            cmd.target_id, summarize=cmd.summarize, custom_instructions=cmd.custom_instructions
        )
        data: dict[str, Any] = {
            "cancelled": result.cancelled,
            "aborted": result.aborted,
            "editorText": result.editor_text,
            "oldLeafId": result.old_leaf_id,
            "newLeafId": result.new_leaf_id,
        }
        plan = (
            None
            if result.cancelled or result.aborted
            else session.plan_file_restore(result.old_leaf_id, result.new_leaf_id)
        )
        if plan is not None:
            files: dict[str, Any] = {
                "changed": [c.path for c in plan.changes],
                "conflicts": [c.path for c in plan.conflicts],
                "unrestorable": plan.unrestorable,
            }
            if cmd.restore_files != "keep" and plan.changes:
                restored = session.restore_files(plan, overwrite_conflicts=cmd.restore_files == "overwrite")
                files |= {
                    "restored": restored.restored,
                    "skipped": restored.skipped,
                    "failed": [{"path": path, "error": why} for path, why in restored.failed],
                }
            data["files"] = files
        return data

    async def _cmd_get_commands(self, cmd: Any) -> Any:
        return {"commands": _slash_commands(self.session)}

    async def _cmd_get_fork_messages(self, cmd: Any) -> Any:
        pairs = self.session.get_user_messages_for_forking()
        return {"messages": [{"entryId": entry_id, "text": text} for entry_id, text in pairs]}

    # -- models and thinking ----------------------------------------------------------------------

    async def _available_models(self) -> list[Any]:
        registry = self.session.model_registry
        return list(await registry.get_available()) if registry is not None else []

    async def _cmd_get_available_models(self, cmd: Any) -> Any:
        return {"models": [_model(m) for m in await self._available_models()]}

    async def _cmd_set_model(self, cmd: p.SetModelCommand) -> Any:
        for model in await self._available_models():
            if model.provider == cmd.provider and model.id == cmd.model_id:
                await self.session.set_model(model)
                return _model(model)
        raise RuntimeError(f"Model not found: {cmd.provider}/{cmd.model_id}")

    async def _cmd_cycle_model(self, cmd: Any) -> Any:
        result = await self.session.cycle_model()
        if result is None:
            return None
        return {
            "model": _model(result.model),
            "thinkingLevel": result.thinking_level,
            "isScoped": result.is_scoped,
        }

    async def _cmd_set_thinking_level(self, cmd: p.SetThinkingLevelCommand) -> Any:
        self.session.set_thinking_level(cmd.level)
        return p.NO_DATA

    async def _cmd_cycle_thinking_level(self, cmd: Any) -> Any:
        model = self.session.model
        if model is None or not model.reasoning:
            return None
        return {"level": self.session.cycle_thinking_level()}

    async def _cmd_get_available_thinking_levels(self, cmd: Any) -> Any:
        from pi_app.ai.thinking import supported_thinking_levels

        model = self.session.model
        return {"levels": list(supported_thinking_levels(model)) if model is not None else ["off"]}

    async def _cmd_set_steering_mode(self, cmd: p.SetQueueModeCommand) -> Any:
        self.session.agent.steering_mode = cmd.mode
        self.session.settings_manager.set_steering_mode(cmd.mode)
        return p.NO_DATA

    async def _cmd_set_follow_up_mode(self, cmd: p.SetQueueModeCommand) -> Any:
        self.session.agent.follow_up_mode = cmd.mode
        self.session.settings_manager.set_follow_up_mode(cmd.mode)
        return p.NO_DATA

    # -- compaction and retry ---------------------------------------------------------------------

    async def _cmd_compact(self, cmd: p.CompactCommand) -> Any:
        result = await self.session.compact(cmd.custom_instructions)
        return result.to_dict() if hasattr(result, "to_dict") else codec.to_json_value(result)

    async def _cmd_set_auto_compaction(self, cmd: p.EnabledCommand) -> Any:
        self.session.set_auto_compaction_enabled(cmd.enabled)
        return p.NO_DATA

    async def _cmd_set_auto_retry(self, cmd: p.EnabledCommand) -> Any:
        self.session.set_auto_retry_enabled(cmd.enabled)
        return p.NO_DATA

    async def _cmd_abort_retry(self, cmd: Any) -> Any:
        self.session.abort_retry()
        return p.NO_DATA

    # -- bash -------------------------------------------------------------------------------------

    async def _cmd_bash(self, cmd: p.BashCommand) -> Any:
        def on_chunk(delta: str) -> None:
            update: dict[str, Any] = {"type": "bash_execution_update"}
            if cmd.id is not None:
                update["id"] = cmd.id
            update["delta"] = delta
            self.send(update)

        self._bash_running += 1
        try:
            message = await self.session.execute_bash(
                cmd.command, exclude_from_context=cmd.exclude_from_context, on_chunk=on_chunk
            )
        finally:
            self._bash_running -= 1
        data: dict[str, Any] = {
            "output": message.output,
            "exitCode": message.exit_code,
            "cancelled": message.cancelled,
            "truncated": message.truncated,
        }
        if message.full_output_path:
            data["fullOutputPath"] = message.full_output_path
        return data

    async def _cmd_abort_bash(self, cmd: Any) -> Any:
        self.session.abort_bash()
        return p.NO_DATA

    # -- session identity -------------------------------------------------------------------------

    async def _cmd_new_session(self, cmd: p.NewSessionCommand) -> Any:
        created = await self.session.new_session(cmd.parent_session)
        return {"cancelled": not created}

    async def _cmd_switch_session(self, cmd: p.SwitchSessionCommand) -> Any:
        result = await self.session.switch_session(cmd.session_path)
        for warning in getattr(result, "warnings", None) or []:
            sys.stderr.write(f"Warning: {warning}\n")
        return {"cancelled": not getattr(result, "switched", bool(result))}

    async def _cmd_fork(self, cmd: p.ForkCommand) -> Any:
        result = await self.session.fork(cmd.entry_id)
        return {"text": result.selected_text or "", "cancelled": result.cancelled}

    async def _cmd_clone(self, cmd: Any) -> Any:
        result = await self.session.clone()
        return {"cancelled": result.cancelled}

    async def _cmd_set_session_name(self, cmd: p.SetSessionNameCommand) -> Any:
        name = cmd.name.strip()
        if not name:
            raise RuntimeError("Session name cannot be empty")
        self.session.set_session_name(name)
        return p.NO_DATA

    async def _cmd_export_html(self, cmd: p.ExportHtmlCommand) -> Any:
        from pi_app.coding.export_html import export_session_to_html

        path = export_session_to_html(self.session.session_manager, cmd.output_path, cwd=self.session.cwd)
        return {"path": str(path)}

    # -- lifecycle --------------------------------------------------------------------------------

    async def _settle(self) -> None:
        await self.session.wait_for_idle()
        if self._run_task is not None and not self._run_task.done():
            await asyncio.wait({self._run_task})

    async def shutdown(self, *, interrupted: bool) -> None:
        """Let accepted work finish (or abort it when interrupted), then release everything."""
        self.ui.close()
        if interrupted:
            self.session.abort()
            abort_bash = getattr(self.session, "abort_bash", None)
            if callable(abort_bash):
                abort_bash()
        pending = [t for t in self._tasks if not t.done()]
        try:
            if pending:
                await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), SHUTDOWN_GRACE_S)
            await asyncio.wait_for(self._settle(), SHUTDOWN_GRACE_S)
        except TimeoutError:
            self.session.abort()
        runner = getattr(self.session, "extension_runner", None)
        if runner is not None:
            try:
                await asyncio.wait_for(runner.shutdown("quit"), SHUTDOWN_GRACE_S)
            except Exception:
                log.debug("extension shutdown failed", exc_info=True)
        self._unsubscribe()
        self.writer.close()


# ---------------------------------------------------------------------------------------------
# Wire shapes
# ---------------------------------------------------------------------------------------------


def _images(images: list[p.ImagePayload] | None) -> list[ImageContent] | None:
    if not images:
        return None
    return [ImageContent(data=i.data, mime_type=i.mime_type) for i in images]


MODEL_KEYS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
)


def _model(model: Any) -> dict[str, Any]:
    """A model as pi's RPC sends it: the public fields, cost without the newer keys."""
    full = codec.to_dict(model)
    out = {k: full[k] for k in MODEL_KEYS if k in full}
    cost = out.get("cost")
    if isinstance(cost, dict):
        out["cost"] = {k: cost.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite")}
    return out


def _tree_node(node: Any) -> dict[str, Any]:
    # Iterative, so a very deep tree (a long linear session) cannot exhaust the recursion limit.
    def shell(n: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"entry": n.entry.to_dict(), "children": []}
        if n.label is not None:
            out["label"] = n.label
            if n.label_timestamp is not None:
                out["labelTimestamp"] = n.label_timestamp
        return out

    root = shell(node)
    stack = [(node, root)]
    while stack:
        current, out = stack.pop()
        for child in current.children:
            child_out = shell(child)
            out["children"].append(child_out)
            stack.append((child, child_out))
    return root


def _slash_commands(session: AgentSession) -> list[dict[str, Any]]:
    runner = getattr(session, "extension_runner", None)
    infos: list[Any] = []
    if runner is not None:
        infos = list(runner.get_slash_commands())
    else:
        loader = getattr(session, "resource_loader", None)
        if loader is not None:
            from pi_app.coding.extensions.types import SlashCommandInfo

            for template in loader.get_prompts().items:
                infos.append(
                    SlashCommandInfo(
                        template.name, "prompt", template.description, _scope(template), template.file_path
                    )
                )
            for skill in loader.get_skills().items:
                infos.append(
                    SlashCommandInfo(
                        f"skill:{skill.name}", "skill", skill.description, _scope(skill), skill.file_path
                    )
                )
    loader = getattr(session, "resource_loader", None)
    metadata = loader.get_path_metadata() if loader is not None else {}
    out = []
    for info in infos:
        item: dict[str, Any] = {"name": info.name}
        if info.description:
            item["description"] = info.description
        item["source"] = info.source
        if info.location:
            item["location"] = info.location
        if info.path:
            item["path"] = info.path
            source_info = _source_info(info.path, metadata.get(info.path))
            if source_info is not None:
                item["sourceInfo"] = source_info
        out.append(item)
    return out


def _source_info(path: str, meta: Any) -> dict[str, Any] | None:
    """pi 0.73.1's ``sourceInfo`` next to the spec's ``location``/``path`` (clients of either work)."""
    if meta is None:
        return None
    out: dict[str, Any] = {"path": path, "source": meta.source, "scope": meta.scope, "origin": meta.origin}
    if meta.base_dir:
        out["baseDir"] = meta.base_dir
    return out


def _scope(resource: Any) -> CommandLocation:
    meta = getattr(resource, "source_info", None)
    if meta is None or meta.source == "cli":
        return "path"
    return "project" if meta.scope == "project" else "user"


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------


async def run_rpc_mode(options: LaunchOptions) -> int:
    """``pi --mode rpc``: exit status 0 after a clean shutdown, 1 when start-up fails."""
    from pi_app.coding.launch import LaunchError, build_session
    from pi_app.modes.console import terminal_host
    from pi_app.modes.rpc.framing import guard_stdout, read_records

    if options.file_args:
        sys.stderr.write("Error: @file arguments are not supported in RPC mode\n")
        return 1
    protocol_out = guard_stdout()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    writer = LineWriter(protocol_out)
    try:
        created = await build_session(options, host=terminal_host())
    except LaunchError as exc:
        sys.stderr.write(f"{exc}\n")
        return exc.exit_code
    for warning in created.warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    session = created.session
    server = RpcServer(session, writer)
    _bind_extensions(session, server)
    session.mcp_output.append(RpcUIContext(server.send).notify)  # /mcp's text (issue 22)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
            pass
    try:
        return await server.serve(read_records(sys.stdin.fileno()), stop)
    finally:
        session.dispose()


def _bind_extensions(session: AgentSession, server: RpcServer) -> None:
    """Give loaded extensions the RPC dialogs, report their errors as ``extension_error`` events,
    honour ``ctx.shutdown()`` and start them (``session_start``)."""
    runner = getattr(session, "extension_runner", None)
    if runner is None:
        return

    def report(error: Any) -> None:
        server.send(
            {
                "type": "extension_error",
                "extensionPath": getattr(error, "extension_path", ""),
                "event": getattr(error, "event", ""),
                "error": getattr(error, "error", str(error)),
            }
        )

    runner.on_error(report)
    if hasattr(runner, "on_shutdown_request"):
        runner.on_shutdown_request = server.request_shutdown
    # the binding starts the extensions (session_start) on the first interactive UI context
    runner.set_ui_context(server.ui, mode="rpc", has_ui=True)
