"""``AgentSession``: the product core joining an ``Agent`` to a session file, settings and models.

Every shell (the Textual app, print/JSON/RPC modes, SDK hosts) drives one ``AgentSession``:
``prompt``/``steer``/``follow_up``/``abort``, ``compact``, tree navigation, fork/clone/new/resume,
model and thinking-level changes, user bash, and ``subscribe`` to the event superset of decision D-2
(agent events plus the session events of ``pi_app.coding.session_events``). Every finished message
is persisted as it arrives, so a crash loses at most the message being written.

After each agent run the session decides what happens next (spec 30 §3.8–3.9), in this order:
a retryable provider error is retried with exponential backoff (``auto_retry_*``); a context
overflow from the current model is compacted once and the run resumed (``compaction_*`` with
``willRetry``); otherwise a context above ``window - reserveTokens`` is compacted (``threshold``).
``prompt()`` returns only when that whole sequence is over, and ``wait_for_idle()`` waits for the
same "settled" state (decision D-3).

The session is confined to the asyncio loop it was created on (decision D-13): the TUI runs it in
a worker thread and calls in with ``run_coroutine_threadsafe`` / ``call_soon_threadsafe``.

Listener exceptions are logged and never stop persistence, other listeners or the run (R-SEAM-07).

A session file that cannot be written (read-only folder, full disk) never stops the run either: the
entries stay in memory, ``save_error`` holds one line naming the file and the reason (cleared when a
later write succeeds), and each ``on_save_error`` callback hears of each new failure once. The
shells report that line (``-p`` and JSON mode exit 1, RPC writes it to stderr, the app shows it in
the footer) instead of a traceback per entry (issue 19 item 6).
Extension hooks (``session_before_compact``, ``session_before_tree`` …) are fired through the
optional ``extension_runner``; without one every hook is a no-op.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from pi_app.agent import Agent
from pi_app.agent.types import BeforeToolCallContext, BeforeToolCallResult
from pi_app.ai.event_stream import AbortController
from pi_app.ai.types import AssistantMessage, ImageContent, Model, TextContent, UserMessage, now_ms
from pi_app.ai.util.content_text import content_text, message_text
from pi_app.ai.util.overflow import is_context_overflow
from pi_app.coding.compaction.estimate import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    should_compact,
)
from pi_app.coding.compaction.retry import backoff_delay_ms, is_retryable_error, sleep_abortable
from pi_app.coding.messages import BashExecutionMessage, CustomMessage
from pi_app.coding.session.format import CompactionEntry, MessageEntry
from pi_app.coding.session.storage import SessionWriteError
from pi_app.coding.session_events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    QueueUpdateEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
)
from pi_app.coding.session_port import BatchListener, EventBatcher, SessionSnapshot, UsageTotals
from pi_app.coding.session_switching import (
    ForkResult,
    SessionOperationError,
    SessionSwitchingMixin,
    SwitchResult,
)

if TYPE_CHECKING:
    from pi_app.coding.checkpoints.recorder import CheckpointRecorder
    from pi_app.coding.checkpoints.restore import RestorePlan, RestoreResult
    from pi_app.coding.compaction.run import CompactionOutcome
    from pi_app.coding.compaction.summarize import CompactionResult
    from pi_app.coding.extensions.runner import ExtensionRunner
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.models.resolver import ScopedModel
    from pi_app.coding.resources.loader import ResourceLoader
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.settings import SettingsManager
    from pi_app.coding.trust import TrustAnswer

log = logging.getLogger(__name__)

__all__ = [
    "AgentSession",
    "CompactionError",
    "ContextUsage",
    "CycleResult",
    "ForkResult",
    "NoModelError",
    "SessionOperationError",
    "SwitchResult",
    "clamp_level",
]

SessionListener = Callable[[Any], Any]
# asked before a tool runs: None or a result without ``block`` lets it run (``signal``: the run's abort signal)
ToolGate = Callable[
    [BeforeToolCallContext, Any], "BeforeToolCallResult | None | Awaitable[BeforeToolCallResult | None]"
]

PERSISTED_ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
CONTINUE_DELAY_S = 0.1  # pi resumes the loop ~100 ms after a compaction
OVERFLOW_RECOVERY_FAILED = (
    "Context still overflows after one compact-and-retry; shorten the context or switch to a model "
    "with a larger window."
)


class NoModelError(RuntimeError):
    """The session has no usable model; the message says how to configure one (decision D-31)."""


class CompactionError(RuntimeError):
    """A manual ``/compact`` did not produce a compaction; the message is for the user."""


@dataclass
class ContextUsage:
    """How full the model's context window is (tokens None: unknown)."""

    tokens: int | None
    context_window: int
    percent: float | None


@dataclass
class CycleResult:
    """The model and thinking level after cycling to the next model (``is_scoped``: it came from
    the model scope, not from every available model)."""

    model: Model
    thinking_level: str
    is_scoped: bool = False


def clamp_level(model: Model | None, level: str) -> str:
    """The level the model supports that is closest to ``level`` (decision D-18)."""
    if model is None:
        return level
    from pi_app.ai.thinking import clamp_thinking_level

    return clamp_thinking_level(model, level)


def _server_retry_after_ms(message: AssistantMessage) -> int:
    """The delay the server asked for (``retry-after``) on the failed request, else 0."""
    for entry in reversed(getattr(message, "diagnostics", None) or []):
        if (
            isinstance(entry, dict)
            and entry.get("type") == "retryAfter"
            and isinstance(entry.get("delayMs"), int)
        ):
            return entry["delayMs"]
    return 0


class AgentSession(SessionSwitchingMixin):
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings_manager: SettingsManager,
        model_registry: ModelRegistry | None = None,
        cwd: str,
        tool_definitions: Sequence[Any] = (),
        no_model_message: str | None = None,
        resource_loader: ResourceLoader | None = None,
        extension_runner: ExtensionRunner | None = None,
        scoped_models: Sequence[Any] = (),
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings_manager = settings_manager
        self.model_registry = model_registry
        self.resource_loader = resource_loader
        self.extension_runner = extension_runner
        self.scoped_models = list(scoped_models)
        self._scope_pool: list[Model] = []  # the available models model_scope() last resolved over
        self.cwd = cwd
        self.tool_definitions = list(tool_definitions)
        self.no_model_message = no_model_message or "No model configured."
        self._listeners: list[SessionListener] = []
        self.save_error: str | None = None
        self._queue_shown: QueueUpdateEvent | None = None  # the queues as the last queue_update told
        self.on_save_error: list[Callable[[str], None]] = []
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)
        self._disposed = False
        # run bookkeeping
        self._active_runs = 0
        self._settled: asyncio.Event | None = None
        self._abort_requested = False  # during the current session-level run (agent_settled.aborted)
        self._system_declared_for: str | None = None  # the session id whose system message went out
        self._last_run_assistant: AssistantMessage | None = None
        self._retry_attempt = 0
        self._overflow_attempted = False
        self._pending_bash: list[BashExecutionMessage] = []
        # one abort controller per kind of background work (spec 30 §5.1)
        self._retry_controller: AbortController | None = None
        self._compaction_controller: AbortController | None = None
        self._branch_summary_controller: AbortController | None = None
        self._bash_controller: AbortController | None = None
        self._compaction_done: asyncio.Event | None = None
        self.checkpoints: CheckpointRecorder | None = None  # set by create_agent_session
        self.mcp: Any = None  # pi_app.coding.mcp.McpManager when MCP servers are configured
        self.mcp_disabled = False  # --no-mcp: extensions cannot add servers either
        self.mcp_output: list[Callable[[str], None]] = []  # where /mcp's text goes (print, RPC)
        self.mcp_report: Callable[[str], None] | None = None  # MCP notices (set by launch)
        # shells' say on each tool call (ACP's permission requests), asked after extension hooks
        self._tool_gates: list[ToolGate] = []
        self._extension_tool_hook: ToolGate | None = agent.before_tool_call
        agent.before_tool_call = self._before_tool_call
        # snapshots for shells (``session_port``): their number, and the usage totals summed so far
        self._snapshot_seq = 0
        self._usage_sum: tuple[Any, int, Any, UsageTotals] | None = None

    # -- state ----------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Any]:
        return self.agent.state.messages

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self.agent.state.is_streaming

    @property
    def is_compacting(self) -> bool:
        return self._compaction_controller is not None

    @property
    def is_retrying(self) -> bool:
        return self._retry_controller is not None

    @property
    def is_busy(self) -> bool:
        """A run, retry wait or compaction is in progress (the session is not settled)."""
        return self._active_runs > 0 or self.is_compacting

    @property
    def session_id(self) -> str:
        return self.session_manager.get_session_id()

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_name(self) -> str | None:
        return self.session_manager.get_session_name()

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def retry_attempt(self) -> int:
        return self._retry_attempt

    # -- file checkpoints -----------------------------------------------------------------------

    def plan_file_restore(self, from_id: str | None, to_id: str | None) -> RestorePlan | None:
        """What restoring the files of entry ``to_id`` would change (None: checkpoints are off)."""
        if self.checkpoints is None:
            return None
        from pi_app.coding.checkpoints.restore import plan_restore

        return plan_restore(self.checkpoints, from_id, to_id)

    def restore_files(self, plan: RestorePlan, *, overwrite_conflicts: bool = False) -> RestoreResult:
        """Put the planned files back (conflicts only with ``overwrite_conflicts``), recorded as a
        checkpoint so moving back undoes it."""
        from pi_app.coding.checkpoints.restore import RestoreResult, apply_restore

        if self.checkpoints is None:
            return RestoreResult()
        return apply_restore(self.checkpoints, plan, overwrite_conflicts=overwrite_conflicts)

    def file_restore_diff(self, plan: RestorePlan) -> str:
        from pi_app.coding.checkpoints.restore import diff_text

        return diff_text(self.checkpoints, plan) if self.checkpoints is not None else ""

    # -- tool gates -----------------------------------------------------------------------------

    def add_tool_gate(self, gate: ToolGate) -> Callable[[], None]:
        """Ask ``gate`` before every tool call (after the extensions' ``tool_call`` hooks): a
        result with ``block`` refuses the call with its reason. Returns the function that removes it."""
        self._tool_gates.append(gate)

        def remove() -> None:
            if gate in self._tool_gates:
                self._tool_gates.remove(gate)

        return remove

    def set_extension_tool_hook(self, hook: ToolGate | None) -> None:
        """The extension runner's ``tool_call`` hook (installed by the extension binding)."""
        self._extension_tool_hook = hook

    async def _before_tool_call(self, ctx: BeforeToolCallContext, signal: Any) -> BeforeToolCallResult | None:
        for gate in [self._extension_tool_hook, *self._tool_gates]:
            if gate is None:
                continue
            decision = gate(ctx, signal)
            if inspect.isawaitable(decision):
                decision = await decision
            if decision is not None and decision.block:
                return decision
        return None

    # -- snapshots for shells (session_port) ------------------------------------------------------

    def snapshot(self) -> SessionSnapshot:
        """Everything a shell may show, as of now; call it on the session's loop (D-13)."""
        model = self.model
        try:
            context = self.get_context_usage()
        except Exception:  # a broken estimate must not stop the shell from showing the rest
            context = None
        steering, follow_ups = self.agent.queued_messages()
        registry = self.model_registry
        try:
            subscription = bool(model is not None and registry is not None and registry.is_using_oauth(model))
        except Exception:
            subscription = False
        try:
            auto_compact = bool(self.settings_manager.get_compaction_enabled())
        except Exception:
            auto_compact = True
        from pi_app.ai.thinking import supported_thinking_levels

        self._snapshot_seq += 1
        return SessionSnapshot(
            seq=self._snapshot_seq,
            session_id=self.session_id,
            session_file=self.session_file,
            cwd=self.session_manager.get_cwd(),
            session_dir=self.session_manager.get_session_dir(),
            session_name=self.session_name,
            model_id=model.id if model is not None else None,
            provider=model.provider if model is not None else None,
            reasoning=bool(getattr(model, "reasoning", False)),
            thinking_level=self.thinking_level,
            thinking_levels=tuple(supported_thinking_levels(model)) if model is not None else ("off",),
            usage=self._usage_totals(),
            subscription=subscription,
            context_tokens=context.tokens if context is not None else 0,
            context_window=context.context_window
            if context is not None
            else (model.context_window if model else 0),
            auto_compact=auto_compact,
            steering=tuple(message_text(m) for m in steering),
            follow_up=tuple(message_text(m) for m in follow_ups),
            streaming=self.is_streaming,
            busy=self.is_busy,
            compacting=self.is_compacting,
            retrying=self.is_retrying,
            save_error=self.save_error,
        )

    def _usage_totals(self) -> UsageTotals:
        """The totals over every recorded message, summed incrementally: the session file only
        grows, so after the first snapshot only the entries added since are read (issue 20)."""
        manager = self.session_manager
        try:
            entries = manager.get_entries()
        except Exception:
            return UsageTotals().plus(self.messages)
        cached = self._usage_sum
        if (
            cached is not None
            and cached[0] is manager
            and cached[1] <= len(entries)
            and (cached[1] == 0 or entries[cached[1] - 1] is cached[2])
        ):
            start, total = cached[1], cached[3]
        else:
            start, total = 0, UsageTotals()
        added = [e.message for e in entries[start:] if isinstance(e, MessageEntry)]
        total = total.plus(added)
        self._usage_sum = (manager, len(entries), entries[-1] if entries else None, total)
        return total

    def subscribe_batches(self, listener: BatchListener) -> Callable[[], None]:
        """Every event, delivered in batches on this loop with a fresh snapshot each
        (``session_port.EventBatcher``); returns the function that unsubscribes."""
        batcher = EventBatcher(listener, self.snapshot)
        unsubscribe = self.subscribe(batcher)

        def stop() -> None:
            batcher.close()
            unsubscribe()

        return stop

    # -- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return unsubscribe

    async def _emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if hasattr(result, "__await__"):  # runs per streamed delta: cheaper than isawaitable
                    await result
            except Exception:
                log.exception("session listener failed on %s", getattr(event, "type", event))

    def _emit_soon(self, event: Any) -> None:
        """Deliver an event from synchronous code: sync listeners run now, async ones are scheduled."""
        for listener in list(self._listeners):
            try:
                result = listener(event)
            except Exception:
                log.exception("session listener failed on %s", event.type)
                continue
            if inspect.isawaitable(result):
                try:
                    asyncio.get_running_loop()
                    asyncio.ensure_future(result)
                except RuntimeError:  # no loop to run it on: drop it cleanly
                    if inspect.iscoroutine(result):
                        result.close()

    async def _on_agent_event(self, event: Any, signal: Any) -> None:
        kind = event.type
        if kind == "message_start" and getattr(event.message, "role", None) == "user":
            self._overflow_attempted = False
            steering, follow_ups = self.agent.queued_messages()
            if (steering or follow_ups or self._queue_shown is not None) and self._queue_changed():
                # the loop took a queued message: say so before it starts, as pi 1.6.0 does
                await self._emit(self._queue_event())
        elif kind == "message_end":
            message = event.message
            self._persist(message)
            if getattr(message, "role", None) == "assistant":
                self._last_run_assistant = message
        elif kind == "agent_end":
            event = replace(event, will_retry=self._will_retry_after(event.messages))
        await self._emit(event)
        if kind == "turn_start" and not self._system_declared:
            await self._declare_system_message()
        if kind == "message_end" and getattr(event.message, "role", None) == "assistant":
            await self._after_assistant_message(event.message)

    @property
    def _system_declared(self) -> bool:
        """The session's prompt and tools were announced (here, or by a 1.6.0 system message)."""
        session_id = self.session_manager.get_session_id()
        if self._system_declared_for == session_id:
            return True
        branch = self.session_manager.get_branch()
        if any(isinstance(e, MessageEntry) and e.role == "system" for e in branch):
            self._system_declared_for = session_id
            return True
        return False

    async def _declare_system_message(self) -> None:
        """pi 1.6.0 opens a session's first request with a ``system`` message (the prompt and the
        tool declarations): JSON and RPC clients see its ``message_start``/``message_end`` right
        after the first ``turn_start``. It is announced, not persisted (decision in the notes of
        issue 18: this pi rebuilds its prompt on resume, so a stored copy would only go stale)."""
        from pi_app.agent.events import MessageEndEvent, MessageStartEvent
        from pi_app.ai.util.validation import tool_parameters_schema
        from pi_app.coding.messages import SystemMessage

        self._system_declared_for = self.session_manager.get_session_id()
        tools = [
            {
                "name": t.name,
                "description": getattr(t, "description", "") or "",
                "parameters": tool_parameters_schema(getattr(t, "parameters", None)),
            }
            for t in (self.agent.state.tools or [])
        ]
        message = SystemMessage(
            content=self.agent.state.system_prompt or "", tools_added=tools, timestamp=now_ms()
        )
        await self._emit(MessageStartEvent(message))
        await self._emit(MessageEndEvent(message))

    def _will_retry_after(self, messages: Sequence[Any]) -> bool:
        """``agent_end.willRetry``: the run's last reply is an error the session will retry."""
        if self._abort_requested:
            return False
        retry = self.settings_manager.get_retry_settings()
        if not retry.enabled or self._retry_attempt >= retry.max_retries:
            return False
        for message in reversed(messages):
            if getattr(message, "role", None) == "assistant":
                window = self.model.context_window if self.model is not None else None
                return message.stop_reason == "error" and is_retryable_error(message, window)
        return False

    async def _after_assistant_message(self, message: AssistantMessage) -> None:
        if message.stop_reason == "error":
            return
        self._overflow_attempted = False  # R-RETRY-07
        if self._retry_attempt > 0:  # R-RETRY-03
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(AutoRetryEndEvent(success=True, attempt=attempt))

    def _persist(self, message: Any) -> None:
        role = getattr(message, "role", None)
        if role not in PERSISTED_ROLES:
            return
        try:
            if isinstance(message, CustomMessage):
                self.session_manager.append_custom_message_entry(
                    message.custom_type, message.content, message.display, message.details
                )
            else:
                self.session_manager.append_message(message)
        except SessionWriteError as exc:
            self._save_failed(str(exc))
        except Exception:
            log.exception("could not save the message to the session file")
        else:
            self.save_error = None

    def _save_failed(self, line: str) -> None:
        log.debug("session write failed: %s", line, exc_info=True)
        if line == self.save_error:
            return
        self.save_error = line
        for callback in list(self.on_save_error):
            try:
                callback(line)
            except Exception:
                log.exception("save-error callback failed")

    # -- extension hooks ------------------------------------------------------------------------

    async def _hook_before(self, event_name: str, **payload: Any) -> Any:
        """Fire a cancellable ``session_before_*`` hook; returns the handlers' answer (or None)."""
        runner = self.extension_runner
        if runner is None or not runner.has_handlers(event_name):
            return None
        from pi_app.coding.extensions import types as ext

        classes = {
            "session_before_compact": ext.SessionBeforeCompactEvent,
            "session_before_tree": ext.SessionBeforeTreeEvent,
            "session_before_fork": ext.SessionBeforeForkEvent,
            "session_before_switch": ext.SessionBeforeSwitchEvent,
        }
        answer = await runner.emit_session_before(classes[event_name](**payload))
        return SimpleNamespace(**answer) if isinstance(answer, dict) else answer

    def _notify_soon(self, event_name: str, **payload: Any) -> None:
        """``_hook_notify`` from synchronous code: scheduled on the running loop (dropped without one)."""
        if self.extension_runner is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        asyncio.ensure_future(self._hook_notify(event_name, **payload))

    async def _hook_notify(self, event_name: str, **payload: Any) -> None:
        runner = self.extension_runner
        if runner is None:
            return
        from pi_app.coding.extensions import types as ext

        classes = {
            "session_compact": ext.SessionCompactEvent,
            "session_tree": ext.SessionTreeEvent,
            "session_shutdown": ext.SessionShutdownEvent,
            "session_start": ext.SessionStartEvent,
            "model_select": ext.ModelSelectEvent,
            "session_info_changed": ext.SessionInfoChangedEvent,
            "thinking_level_select": ext.ThinkingLevelSelectEvent,
        }
        try:
            await runner.emit(classes[event_name](**payload))
        except Exception:
            log.exception("extension hook %s failed", event_name)

    # -- runs -----------------------------------------------------------------------------------

    def _user_message(self, text: str, images: Sequence[ImageContent] | None = None) -> UserMessage:
        fitted = self._fit_images(images) if images else []
        return UserMessage(content=[TextContent(text=text), *fitted], timestamp=now_ms())

    def _fit_images(self, images: Sequence[ImageContent]) -> list[ImageContent]:
        """Attachments fitted like ``read`` images (``images.autoResize``), into the current model's
        ``inputLimits.images.resize`` profile when models.json gives one (pi 1.6.0); an image
        already within the limits keeps its bytes, one that cannot be fitted is sent as it is."""
        try:
            enabled = bool(self.settings_manager.get_image_auto_resize())
        except Exception:
            enabled = True
        if not enabled:
            return list(images)
        import base64
        import binascii

        from pi_app.coding.tools.images import ResizeProfile, process_image

        profile = ResizeProfile.from_input_limits(getattr(self.model, "input_limits", None))
        out: list[ImageContent] = []
        for image in images:
            try:
                data = base64.b64decode(image.data, validate=True)
            except (binascii.Error, ValueError):
                out.append(image)
                continue
            processed = process_image(data, image.mime_type, True, profile)
            if processed.data is None or processed.data == data:
                out.append(image)
            else:
                encoded = base64.b64encode(processed.data).decode("ascii")
                out.append(ImageContent(data=encoded, mime_type=processed.mime_type))
        return out

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        source: str = "interactive",
        expand: bool = True,
        on_accepted: Callable[[str], None] | None = None,
    ) -> None:
        """Run one prompt to completion, including any retries and compactions it triggers.

        ``on_accepted`` hears the prompt's disposition once it is known, before any event of the
        run: ``"handled"`` (an ``input`` handler consumed it) or ``"started"`` (pi 1.6.0's RPC
        ``data.disposition``); a prompt rejected before that raises instead.

        In-run failures end up in the transcript, not as exceptions. With extensions bound
        (``pi_app.coding.extensions.session_binding``) the text first goes through extension
        commands, ``input`` handlers and skill/template expansion, and ``before_agent_start``
        may add messages and change this run's system prompt (spec 40 §2.8).
        """
        if self.mcp_output and not self.mcp_disabled:
            from pi_app.coding.mcp.text_command import is_mcp_command, run_text_command

            if is_mcp_command(text):  # /mcp outside the app (issue 22): never a prompt for the model
                if on_accepted is not None:
                    on_accepted("handled")
                output = await run_text_command(self, text)
                for listener in list(self.mcp_output):
                    listener(output)
                return
        binding = self.extension_runner if hasattr(self.extension_runner, "prepare_prompt") else None
        injected: list[Any] = []
        if binding is not None:
            prepared = await binding.prepare_prompt(
                text, list(images) if images else None, source=source, expand=expand
            )
            if prepared.handled:
                if on_accepted is not None:
                    on_accepted("handled")
                return
            text, images = prepared.text, prepared.images
        if self.agent.state.model is None:
            raise NoModelError(self.no_model_message)
        if on_accepted is not None:
            on_accepted("started")
        await self._wait_for_compaction()  # prompts typed during a compaction wait for it (R-CMP-32)
        self._flush_pending_bash()
        self._overflow_attempted = False
        await self._check_compaction_before_prompt()
        if binding is not None:
            message = self._user_message(text, images)
            injected, run_prompt = await binding.before_agent_start(text, list(images) if images else None)
            self.agent.state.system_prompt = run_prompt or binding.build_system_prompt()
        else:
            message = self._user_message(self.expand_input(text), images)
        await self._run(lambda: self.agent.prompt([message, *injected] if injected else message))

    def expand_input(self, text: str) -> str:
        """``/skill:<name> args`` then ``/<template> args`` expanded from the resource loader
        (R-SKL-11, R-PRM-05); any other text, or a session without a loader, is unchanged."""
        loader = self.resource_loader
        if loader is None or not text.startswith("/"):
            return text
        from pi_app.coding.resources.prompt_templates import expand_prompt_template
        from pi_app.coding.resources.skills import expand_skill_command

        enabled = bool(self.settings_manager.get_enable_skill_commands())
        text = expand_skill_command(text, list(loader.get_skills().items), enabled=enabled)
        return expand_prompt_template(text, list(loader.get_prompts().items))

    def set_project_trust(self, answer: TrustAnswer) -> bool:
        """``/trust``: take the user's answer for this run and save it where it says (the next
        reload loads or drops the project's resources); False when ``trust.json`` is unreadable."""
        apply = getattr(getattr(self.resource_loader, "trust", None), "apply", None)
        return bool(apply(answer)) if apply is not None else False

    async def prompt_message(self, message: Any) -> None:
        """Run with an already built message (a ``CustomMessage`` from an extension, for example)."""
        if self.agent.state.model is None:
            raise NoModelError(self.no_model_message)
        await self._wait_for_compaction()
        self._flush_pending_bash()
        await self._run(lambda: self.agent.prompt(message))

    def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        self.agent.steer(self._user_message(self.expand_input(text), images))
        self._emit_soon(self._queue_event())

    def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        self.agent.follow_up(self._user_message(self.expand_input(text), images))
        self._emit_soon(self._queue_event())

    def clear_queue(self) -> list[str]:
        removed = self.agent.clear_all_queues()
        self._emit_soon(self._queue_event())
        return [message_text(m) for m in removed]

    def _queue_changed(self) -> bool:
        steering, follow_ups = self.agent.queued_messages()
        shown = self._queue_shown
        now = ([message_text(m) for m in steering], [message_text(m) for m in follow_ups])
        return shown is None or (list(shown.steering), list(shown.follow_up)) != now

    def _queue_event(self) -> QueueUpdateEvent:
        steering, follow_ups = self.agent.queued_messages()
        event = QueueUpdateEvent([message_text(m) for m in steering], [message_text(m) for m in follow_ups])
        self._queue_shown = event
        return event

    async def _run(self, start: Callable[[], Awaitable[None]]) -> None:
        if self._active_runs == 0:
            self._abort_requested = False
        self._active_runs += 1
        if self._settled is None:
            self._settled = asyncio.Event()
        self._settled.clear()
        try:
            step: Callable[[], Awaitable[None]] | None = start
            while step is not None and not self._disposed:
                self._last_run_assistant = None
                if self.mcp is not None:
                    from pi_app.coding.mcp.session_tools import prepare_run

                    await prepare_run(self)
                await step()
                step = await self._after_run()
        finally:
            self._active_runs -= 1
            self._flush_pending_bash()
            if self._active_runs == 0:
                # nothing automatic follows (retries, compaction recovery, queued messages): pi
                # 1.6.0's agent_settled, which its RpcClient's waitForIdle/promptAndWait wait for
                await self._emit(AgentSettledEvent(aborted=self._abort_requested))
            if self._active_runs == 0 and self._settled is not None:
                self._settled.set()

    async def _after_run(self) -> Callable[[], Awaitable[None]] | None:
        """What follows a finished agent run: a retry, an overflow recovery, a threshold compaction."""
        message = self._last_run_assistant
        if message is None or message.stop_reason == "aborted":
            return None
        window = self.model.context_window if self.model is not None else None
        retry = self.settings_manager.get_retry_settings()
        if message.stop_reason == "error" and retry.enabled and is_retryable_error(message, window):
            outcome = await self._retry_after_delay(message, retry)
            if outcome == "retry":
                return self.agent.continue_
            if outcome == "cancelled":
                return None
        elif message.stop_reason == "error" and self._retry_attempt > 0:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(AutoRetryEndEvent(False, attempt, message.error_message or "Unknown error"))
        if self._is_current_model_overflow(message):
            return await self._recover_from_overflow()
        after_compaction = await self._check_threshold_after_run(message)
        if after_compaction is not None:
            return after_compaction
        return self._queued_after_finished_answer(message)

    def _queued_after_finished_answer(
        self, message: AssistantMessage
    ) -> Callable[[], Awaitable[None]] | None:
        """A message steered or queued after the loop's last poll (while ``agent_end`` was being
        handled) would otherwise wait, shown as pending, until the next prompt: once a run ended
        with a finished answer, the queue is delivered at once. Runs that ended with an error keep
        their queue (R-AG-LOOP-19)."""
        messages = self.agent.state.messages
        finished = message.stop_reason == "stop" and bool(messages) and messages[-1] is message
        if finished and self.agent.has_queued_messages():
            return self.agent.continue_
        return None

    async def _retry_after_delay(self, message: AssistantMessage, retry: Any) -> str:
        """R-RETRY-02/04: ``"retry"``, ``"cancelled"`` (abort during the wait) or ``"exhausted"``."""
        self._retry_attempt += 1
        if self._retry_attempt > retry.max_retries:
            attempt, self._retry_attempt = self._retry_attempt - 1, 0
            await self._emit(AutoRetryEndEvent(False, attempt, message.error_message))
            return "exhausted"
        delay = max(
            backoff_delay_ms(retry.base_delay_ms, self._retry_attempt), _server_retry_after_ms(message)
        )
        await self._emit(
            AutoRetryStartEvent(self._retry_attempt, retry.max_retries, delay, message.error_message or "")
        )
        self._drop_trailing_error()
        controller = AbortController()
        self._retry_controller = controller
        try:
            aborted = await sleep_abortable(delay / 1000, controller.signal)
        finally:
            self._retry_controller = None
        if aborted:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(AutoRetryEndEvent(False, attempt, "Retry cancelled"))
            return "cancelled"
        return "retry"

    def _is_current_model_overflow(self, message: AssistantMessage) -> bool:
        model = self.model
        if model is None or (message.provider, message.model) != (model.provider, model.id):
            return False
        return is_context_overflow(message, model.context_window)

    async def _recover_from_overflow(self) -> Callable[[], Awaitable[None]] | None:
        if self._overflow_attempted:
            await self._emit(CompactionStartEvent("overflow"))
            await self._emit(CompactionEndEvent("overflow", None, False, False, OVERFLOW_RECOVERY_FAILED))
            return None
        self._overflow_attempted = True
        self._drop_trailing_error()
        outcome = await self._compact("overflow", will_retry=True)
        if outcome.result is None:
            return None
        await asyncio.sleep(CONTINUE_DELAY_S)
        self._drop_trailing_error()
        last = self.agent.state.messages[-1] if self.agent.state.messages else None
        if last is None or getattr(last, "role", None) == "assistant":
            return None  # a silent overflow (a complete reply): nothing to resend
        return self.agent.continue_

    async def _check_threshold_after_run(
        self, message: AssistantMessage
    ) -> Callable[[], Awaitable[None]] | None:
        if not await self._threshold_compaction(message):
            return None
        if self.agent.has_queued_messages():
            await asyncio.sleep(CONTINUE_DELAY_S)
            return self.agent.continue_
        return None

    async def _check_compaction_before_prompt(self) -> None:
        message = self.get_last_assistant_message()
        if message is not None:
            await self._threshold_compaction(message)

    def _compaction_settings(self) -> Any:
        """The compaction settings of the current model (``compaction.modelOverrides``)."""
        model = self.model
        key = f"{model.provider}/{model.id}" if model is not None else None
        try:
            return self.settings_manager.get_compaction_settings(key)
        except TypeError:  # a host's settings object without the per-model form
            return self.settings_manager.get_compaction_settings()

    async def _threshold_compaction(self, message: AssistantMessage) -> bool:
        """R-CMP-05/06: compact when the context passed ``window - reserveTokens``. True if it ran."""
        model = self.model
        settings = CompactionSettings.from_any(self._compaction_settings())
        if not settings.enabled or model is None:
            return False
        latest = self._latest_compaction_ms()
        if message.timestamp <= latest:
            return False  # usage from before the latest compaction is stale
        if message.stop_reason == "error":
            estimate = estimate_context_tokens(self.messages)
            if estimate.last_usage_index is None:
                return False
            if self.messages[estimate.last_usage_index].timestamp <= latest:
                return False
            tokens = estimate.tokens
        elif message.stop_reason == "aborted":
            tokens = estimate_context_tokens(self.messages).tokens
        else:
            tokens = calculate_context_tokens(message.usage)
        if not should_compact(tokens, model.context_window, settings):
            return False
        from pi_app.coding.compaction.prepare import prepare_compaction  # only once compaction is due

        preparation = prepare_compaction(self.session_manager.get_branch(), settings)
        if preparation is None or preparation.is_empty:
            return False  # spec 30 §5.7: nothing to summarise, skip silently
        await self._compact("threshold")
        return True

    def _latest_compaction_ms(self) -> int:
        latest = getattr(self.session_manager, "latest_compaction", None)
        if latest is not None:  # cached by the manager: this runs on every footer refresh
            entry = latest()
            return entry.timestamp_ms if isinstance(entry, CompactionEntry) else 0
        for entry in reversed(self.session_manager.get_branch()):
            if isinstance(entry, CompactionEntry):
                return entry.timestamp_ms
        return 0

    def _drop_trailing_error(self) -> None:
        """Remove a failed assistant reply from the agent's memory (it stays in the file)."""
        messages = self.agent.state.messages
        if (
            messages
            and getattr(messages[-1], "role", None) == "assistant"
            and messages[-1].stop_reason == "error"
        ):
            self.agent.state.messages = messages[:-1]

    def abort(self) -> None:
        """Esc: stop the run and any retry wait, compaction, branch summary or user bash."""
        if self._active_runs:
            self._abort_requested = True
        self.agent.abort()
        for controller in (
            self._retry_controller,
            self._compaction_controller,
            self._branch_summary_controller,
            self._bash_controller,
        ):
            if controller is not None:
                controller.abort()

    def abort_retry(self) -> None:
        if self._retry_controller is not None:
            self._retry_controller.abort()

    def abort_compaction(self) -> None:
        if self._compaction_controller is not None:
            self._compaction_controller.abort()

    def abort_branch_summary(self) -> None:
        if self._branch_summary_controller is not None:
            self._branch_summary_controller.abort()

    def abort_bash(self) -> None:
        if self._bash_controller is not None:
            self._bash_controller.abort()

    async def wait_for_idle(self) -> None:
        """Wait until settled: no run, retry wait, compaction or queued continuation (D-3)."""
        while True:
            await self.agent.wait_for_idle()
            if self._active_runs > 0 and self._settled is not None:
                await self._settled.wait()
                continue
            if self.is_compacting:
                await self._wait_for_compaction()
                continue
            return

    async def _stop_everything(self) -> None:
        self.abort()
        await self.wait_for_idle()

    # -- compaction -----------------------------------------------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> CompactionResult:
        """Manual ``/compact``; raises ``CompactionError`` with the user-facing reason on failure."""
        messages = [e for e in self.session_manager.get_branch() if isinstance(e, MessageEntry)]
        if len(messages) < 2:
            raise CompactionError("Nothing to compact (no messages yet)")
        if self.is_streaming or self._active_runs:
            await self._stop_everything()
        outcome = await self._compact("manual", custom_instructions=custom_instructions)
        if outcome.result is None:
            raise CompactionError(outcome.error or "Compaction cancelled")
        return outcome.result

    async def _compact(
        self, reason: str, *, will_retry: bool = False, custom_instructions: str | None = None
    ) -> CompactionOutcome:
        controller = AbortController()
        self._compaction_controller = controller
        done = asyncio.Event()
        self._compaction_done = done
        model = self.model
        api_key = None
        if model is not None and self.agent.get_api_key is not None:
            maybe = self.agent.get_api_key(model.provider)
            api_key = await maybe if inspect.isawaitable(maybe) else maybe
        from pi_app.coding.compaction.run import run_compaction  # loaded when a compaction runs

        try:
            return await run_compaction(
                reason=reason,
                session_manager=self.session_manager,
                settings=self._compaction_settings(),
                model=model,
                stream_fn=self.agent.stream_fn,
                signal=controller.signal,
                emit=self._emit,
                replace_messages=self._replace_messages,
                will_retry=will_retry,
                custom_instructions=custom_instructions,
                thinking_level=self.thinking_level,
                retry=self.settings_manager.get_retry_settings(),
                api_key=api_key,
                before_compact=self._before_compact_hook(reason, will_retry),
                after_compact=self._after_compact_hook(reason, will_retry),
            )
        finally:
            self._compaction_controller = None
            self._compaction_done = None
            done.set()

    def _before_compact_hook(self, reason: str, will_retry: bool) -> Any:
        if self.extension_runner is None:
            return None

        async def hook(preparation: Any, entries: list[Any], instructions: str | None, signal: Any) -> Any:
            return await self._hook_before(
                "session_before_compact",
                preparation=preparation,
                branch_entries=entries,
                custom_instructions=instructions,
                reason=reason,
                will_retry=will_retry,
                signal=signal,
            )

        return hook

    def _after_compact_hook(self, reason: str, will_retry: bool) -> Any:
        async def hook(entry: Any, from_extension: bool) -> None:
            await self._hook_notify(
                "session_compact",
                compaction_entry=entry,
                from_extension=from_extension,
                reason=reason,
                will_retry=will_retry,
            )

        return hook

    async def _wait_for_compaction(self) -> None:
        done = self._compaction_done
        if done is not None:
            await done.wait()

    def _replace_messages(self, messages: list[Any]) -> None:
        self.agent.state.messages = list(messages)

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        """R-CMP-34: only automatic compaction is affected; ``/compact`` always works."""
        self.settings_manager.set_compaction_enabled(enabled)

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings_manager.set_retry_enabled(enabled)

    def get_context_usage(self) -> ContextUsage | None:
        """Footer figure (R-CMP-07): unknown right after a compaction until a fresh reply reports usage."""
        model = self.model
        if model is None:
            return None
        window = model.context_window
        latest = self._latest_compaction_ms()
        if latest:
            fresh = any(
                getattr(m, "role", None) == "assistant"
                and m.stop_reason not in ("error", "aborted")
                and m.timestamp > latest
                and calculate_context_tokens(m.usage) > 0
                for m in self.messages
            )
            if not fresh:
                return ContextUsage(None, window, None)
        tokens = estimate_context_tokens(self.messages).tokens
        return ContextUsage(tokens, window, tokens / window * 100 if window else None)

    # -- model and thinking -----------------------------------------------------------------------

    async def set_model(self, model: Model, *, persist_default: bool = True, source: str = "set") -> None:
        """Switch the model (``source``: ``set`` or ``cycle``, for extensions' ``model_select``)."""
        previous = self.agent.state.model
        self.agent.state.model = model
        self.session_manager.append_model_change(model.provider, model.id)
        if persist_default:
            try:
                self.settings_manager.set_default_model_and_provider(model.provider, model.id)
            except Exception:
                log.exception("could not save the default model")
        per_model = self.settings_manager.get_model_thinking_level(model.provider, model.id)
        clamped = clamp_level(model, per_model or self.agent.state.thinking_level)
        if clamped != self.agent.state.thinking_level:
            self.set_thinking_level(clamped, persist_default=False)
        await self._hook_notify("model_select", model=model, previous_model=previous, source=source)

    def set_thinking_level(self, level: str, *, persist_default: bool = True) -> None:
        """Appends ``thinking_level_change`` only when the effective level changes (R-NAV-10)."""
        clamped = clamp_level(self.agent.state.model, level)
        previous = self.agent.state.thinking_level
        if clamped == previous:
            return
        self.agent.state.thinking_level = clamped
        self._notify_soon("thinking_level_select", level=clamped, previous_level=previous)
        self.session_manager.append_thinking_level_change(clamped)
        if persist_default:
            try:
                self.settings_manager.set_default_thinking_level(clamped)
            except Exception:
                log.exception("could not save the default thinking level")
        self._emit_soon(ThinkingLevelChangedEvent(clamped))

    def cycle_thinking_level(self) -> str:
        """Next level the current model supports (wrapping); returns the new level."""
        from pi_app.ai.thinking import supported_thinking_levels

        levels = supported_thinking_levels(self.model) if self.model is not None else ["off"]
        current = self.thinking_level
        index = levels.index(current) if current in levels else -1
        self.set_thinking_level(levels[(index + 1) % len(levels)])
        return self.thinking_level

    async def model_scope(self) -> list[ScopedModel]:
        """The models Ctrl+P cycles through, the one owner of that choice (issue 21).

        The session's own scope (``--models``, or what ``/scoped-models`` set), else the
        ``enabledModels`` setting resolved over the available models (pi 1.6.0 resolves it over
        those too); empty when there is no scope: cycling then goes through every available model.
        """
        if self.scoped_models:
            return list(self.scoped_models)
        if not self.settings_manager.get_enabled_models() or self.model_registry is None:
            return []
        self._scope_pool = list(await self.model_registry.get_available())
        return self.known_model_scope

    @property
    def known_model_scope(self) -> list[ScopedModel]:
        """``model_scope()`` without asking the registry (extensions' ``ctx.scoped_models``): the
        ``enabledModels`` scope over the available models as last seen (launch resolves it)."""
        if self.scoped_models:
            return list(self.scoped_models)
        patterns = self.settings_manager.get_enabled_models()
        if not patterns or not self._scope_pool:
            return []
        from pi_app.coding.models.resolver import resolve_model_scope

        scope, _warnings = resolve_model_scope(patterns, self._scope_pool)
        return scope

    async def cycle_model(self, direction: int = 1) -> CycleResult | None:
        """Next model of the ``model_scope`` (or of all available ones); None when there is nothing
        to cycle."""
        if self.model_registry is None:
            return None
        from pi_app.coding.models.resolver import cycle_model

        scoped = await self.model_scope()
        chosen = await cycle_model(self.model_registry, self.model, scoped, direction)
        if chosen is None:
            return None
        await self.set_model(chosen.model, source="cycle")
        if chosen.thinking_level:
            self.set_thinking_level(chosen.thinking_level)
        return CycleResult(chosen.model, self.thinking_level, is_scoped=bool(scoped))

    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)
        current = self.session_manager.get_session_name()
        self._emit_soon(SessionInfoChangedEvent(current))
        self._notify_soon("session_info_changed", name=current)

    # -- user bash (!cmd) -----------------------------------------------------------------------

    async def execute_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], None] | None = None,
    ) -> BashExecutionMessage:
        """Run a user ``!cmd`` (``!!cmd``: ``exclude_from_context``) and record it."""
        from pi_app.coding.tools.bash import execute_user_bash

        operations, result = await self._user_bash_hook(command, exclude_from_context)
        controller = AbortController()
        self._bash_controller = controller
        try:
            if result is None:
                result = await execute_user_bash(
                    command,
                    self.cwd,
                    on_chunk,
                    controller.signal,
                    operations,
                    shell_path=self.settings_manager.get_shell_path(),
                    command_prefix=self.settings_manager.get_shell_command_prefix(),
                )
        finally:
            self._bash_controller = None
        message = BashExecutionMessage(
            command=result.command,
            output=result.output,
            exit_code=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            full_output_path=result.full_output_path,
            exclude_from_context=True if exclude_from_context else None,
            timestamp=now_ms(),
        )
        self.record_bash_execution(message)
        return message

    async def _user_bash_hook(self, command: str, exclude_from_context: bool) -> tuple[Any, Any]:
        """``user_bash`` (spec 40 §2.7): the first extension answer may supply ``operations`` (another
        executor, e.g. SSH) or a ready ``result`` that replaces running the command."""
        runner = self.extension_runner
        if runner is None or not runner.has_handlers("user_bash"):
            return None, None
        from pi_app.coding.extensions.types import UserBashEvent
        from pi_app.coding.tools.bash import BashResult

        answer = await runner.emit_user_bash(UserBashEvent(command, exclude_from_context, self.cwd)) or {}
        result = answer.get("result")
        if isinstance(result, dict):
            result = BashResult(
                command=command,
                output=str(result.get("output", "")),
                exit_code=result.get("exit_code", result.get("exitCode", 0)),
                cancelled=bool(result.get("cancelled", False)),
                truncated=bool(result.get("truncated", False)),
                full_output_path=result.get("full_output_path"),
            )
        return answer.get("operations"), result

    def record_bash_execution(self, message: BashExecutionMessage) -> None:
        """Add a bash result to the conversation; while the agent streams it waits for the run to end
        so a tool call and its result stay adjacent (R-NAV-11)."""
        if self.is_streaming:
            self._pending_bash.append(message)
            return
        self.agent.state.messages = [*self.agent.state.messages, message]
        self._persist(message)

    def _flush_pending_bash(self) -> None:
        if self.is_streaming:
            return
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self.record_bash_execution(message)

    # -- queries ----------------------------------------------------------------------------------

    def get_last_assistant_message(self) -> AssistantMessage | None:
        for message in reversed(self.messages):
            if getattr(message, "role", None) == "assistant":
                return message
        return None

    def get_last_assistant_text(self) -> str | None:
        message = self.get_last_assistant_message()
        if message is None:
            return None
        return content_text(message.content, "\n")

    def dispose(self) -> None:
        if self._disposed:
            return
        self._disposed = True
        self.abort()
        if self.mcp is not None:  # stdio servers end with their session
            self.mcp.kill()
        self._unsubscribe_agent()
        self._listeners.clear()
