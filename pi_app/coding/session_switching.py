"""Moving around sessions: tree navigation, ``/fork``, ``/clone``, ``/new`` and resume (spec 30 R-NAV).

A mixin of ``AgentSession`` (kept apart so each module has one job). Every operation stops any
running work first, fires the cancellable ``session_before_*`` extension hook, changes the
``SessionManager``, then rebuilds the agent's messages and fires ``session_shutdown`` /
``session_start`` (decision D-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.ai.event_stream import AbortController, AbortSignal
from pi_app.ai.types import UserMessage
from pi_app.coding.session.format import MessageEntry, ThinkingLevelChangeEntry
from pi_app.coding.session_events import SessionInfoChangedEvent

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.settings import SettingsManager

if TYPE_CHECKING:  # tree_navigation loads with the first tree operation (start-up cost)
    from pi_app.ai.types import Model
    from pi_app.coding.session_events import QueueUpdateEvent
    from pi_app.coding.tree_navigation import NavigateResult, TreePreparation


def _clamp(model: Any, level: str) -> str:
    from pi_app.ai.thinking import clamp_thinking_level

    return level if model is None else clamp_thinking_level(model, level)


class SessionOperationError(RuntimeError):
    """A fork/clone/switch request that cannot be carried out; the message is for the user."""


@dataclass
class ForkResult:
    """The outcome of ``fork``: the forked message's text, or cancelled by a hook."""

    selected_text: str | None = None
    cancelled: bool = False


@dataclass
class SwitchResult:
    """The outcome of switching sessions: whether it happened, and warnings."""

    switched: bool = True
    warnings: list[str] = field(default_factory=list)


class SessionSwitchingMixin:
    """Needs the ``AgentSession`` attributes: agent, session_manager, settings_manager, model_registry,
    extension_runner and the helpers ``_stop_everything``, ``_hook_before``, ``_hook_notify``,
    ``_replace_messages``, ``_emit_soon``, ``_queue_event``."""

    agent: Any
    session_manager: SessionManager
    settings_manager: SettingsManager
    model_registry: ModelRegistry | None
    extension_runner: Any
    _pending_bash: list[Any]
    _retry_attempt: int
    _overflow_attempted: bool
    _branch_summary_controller: AbortController | None
    _active_runs: int

    if TYPE_CHECKING:  # what AgentSession defines

        @property
        def model(self) -> Model | None: ...

        @property
        def thinking_level(self) -> str: ...

        @property
        def is_streaming(self) -> bool: ...

        async def _stop_everything(self) -> None: ...

        async def _hook_before(self, event_name: str, **payload: Any) -> Any: ...

        async def _hook_notify(self, event_name: str, **payload: Any) -> None: ...

        def _replace_messages(self, messages: list[Any]) -> None: ...

        def _emit_soon(self, event: Any) -> None: ...

        def _queue_event(self) -> QueueUpdateEvent: ...

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigateResult:
        """Move to another point of the tree (R-NAV-01); errors raise with a user-facing message."""
        from pi_app.coding.tree_navigation import navigate_tree

        if self.is_streaming or self._active_runs:
            await self._stop_everything()
        controller = AbortController()
        self._branch_summary_controller = controller
        settings = self.settings_manager.get_branch_summary_settings()

        async def before_tree(prep: TreePreparation, signal: AbortSignal | None) -> Any:
            return await self._hook_before("session_before_tree", preparation=prep, signal=signal)

        try:
            result = await navigate_tree(
                self.session_manager,
                target_id,
                summarize=summarize,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
                label=label,
                model=self.model,
                stream_fn=self.agent.stream_fn,
                signal=controller.signal,
                reserve_tokens=settings.reserve_tokens,
                thinking_level=self.thinking_level,
                retry=self.settings_manager.get_retry_settings(),
                before_tree=before_tree if self.extension_runner is not None else None,
            )
        finally:
            self._branch_summary_controller = None
        if result.cancelled or (result.new_leaf_id == result.old_leaf_id and result.summary_entry is None):
            return result
        self._replace_messages(self.session_manager.build_session_context().messages)
        await self._hook_notify(
            "session_tree",
            new_leaf_id=result.new_leaf_id,
            old_leaf_id=result.old_leaf_id,
            summary_entry=result.summary_entry,
            from_extension=result.from_extension if result.summary_entry is not None else None,
        )
        return result

    def get_user_messages_for_forking(self) -> list[tuple[str, str]]:
        """``(entry_id, text)`` of every user message in the file (all branches), in file order."""
        from pi_app.ai.util.content_text import content_text

        out = []
        for entry in self.session_manager.get_entries():
            if (
                isinstance(entry, MessageEntry)
                and entry.role == "user"
                and isinstance(entry.message, UserMessage)
            ):
                text = content_text(entry.message.content)
                if text.strip():
                    out.append((entry.id, text))
        return out

    async def fork(self, entry_id: str, position: str = "before") -> ForkResult:
        """``/fork``: a new session file from the path before (or including) a user message."""
        from pi_app.ai.util.content_text import content_text

        entry = self.session_manager.get_entry(entry_id)
        # an unreadable user message (an UnknownMessage) is not offered for forking either
        if (
            not isinstance(entry, MessageEntry)
            or entry.role != "user"
            or not isinstance(entry.message, UserMessage)
        ):
            raise SessionOperationError("Invalid entry ID for forking")
        answer = await self._hook_before("session_before_fork", entry_id=entry_id, position=position)
        if answer is not None and getattr(answer, "cancel", False):
            return ForkResult(cancelled=True)
        await self._stop_everything()
        previous = self.session_manager.get_session_file()
        await self._hook_notify("session_shutdown", reason="fork", target_session_file=None)
        selected = content_text(entry.message.content) if position == "before" else None
        if position == "before" and entry.parent_id is None:
            self.session_manager.new_session(parent_session=previous)
            self._append_startup_state()
        else:
            self.session_manager.create_branched_session(
                entry.parent_id if position == "before" else entry_id
            )
        self._after_session_switch()
        if answer is None or not getattr(answer, "skip_conversation_restore", False):
            self._replace_messages(self.session_manager.build_session_context().messages)
        else:
            self._replace_messages([])
        await self._hook_notify("session_start", reason="fork", previous_session_file=previous)
        return ForkResult(selected_text=selected)

    async def clone(self) -> ForkResult:
        """``/clone``: save the active path into a new session file and continue there."""
        leaf = self.session_manager.get_leaf_id()
        if leaf is None:
            raise SessionOperationError("Nothing to clone")
        await self._stop_everything()
        previous = self.session_manager.get_session_file()
        await self._hook_notify("session_shutdown", reason="fork", target_session_file=None)
        self.session_manager.create_branched_session(leaf)
        self._after_session_switch()
        self._replace_messages(self.session_manager.build_session_context().messages)
        await self._hook_notify("session_start", reason="fork", previous_session_file=previous)
        return ForkResult()

    async def new_session(self, parent_session: str | None = None) -> bool:
        """``/new``: False when an extension cancelled it."""
        answer = await self._hook_before("session_before_switch", reason="new")
        if answer is not None and getattr(answer, "cancel", False):
            return False
        await self._stop_everything()
        previous = self.session_manager.get_session_file()
        await self._hook_notify("session_shutdown", reason="new", target_session_file=None)
        self.agent.reset()
        self.session_manager.new_session(parent_session=parent_session)
        self.session_manager.append_thinking_level_change(self.thinking_level)
        self._after_session_switch()
        await self._hook_notify("session_start", reason="new", previous_session_file=previous)
        return True

    async def switch_session(self, path: str) -> SwitchResult:
        """Resume another session file (R-NAV-08); ``NotASessionFileError`` (raised before any hook
        runs or anything changes) for a file that is not a session."""
        from pi_app.coding.session.manager import check_session_file

        check_session_file(path, self.session_manager.storage)
        answer = await self._hook_before("session_before_switch", reason="resume", target_session_file=path)
        if answer is not None and getattr(answer, "cancel", False):
            return SwitchResult(switched=False)
        await self._stop_everything()
        previous = self.session_manager.get_session_file()
        await self._hook_notify("session_shutdown", reason="resume", target_session_file=path)
        self.session_manager.set_session_file(path)
        self._after_session_switch()
        warnings = list(self.session_manager.warnings)
        self.session_manager.warnings.clear()
        context = self.session_manager.build_session_context()
        self._replace_messages(context.messages)
        warnings += await self._restore_model_and_thinking(context)
        await self._hook_notify("session_start", reason="resume", previous_session_file=previous)
        return SwitchResult(True, warnings)

    async def import_session(self, source: str) -> SwitchResult:
        """``/import <file.jsonl>`` (pi 1.6.0): copy a session file, byte for byte (so its id and
        recorded cwd stay), into this project's session folder under its own name, then resume it.
        ``SessionOperationError`` for a missing file, a file that is not a session, or a different
        session already stored under that name (nothing is overwritten)."""
        import os

        from pi_app.coding.session.format import parse_session_text
        from pi_app.coding.session.storage import ENCODING, ERRORS

        path = os.path.abspath(os.path.expanduser(source))
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode(ENCODING, ERRORS)
        except FileNotFoundError:
            raise SessionOperationError(f"File not found: {path}") from None
        except OSError as exc:
            raise SessionOperationError(f"{path}: {exc.strerror or exc}") from None
        header = parse_session_text(text).header if text.strip() else None
        if header is None:
            raise SessionOperationError(f"Not a session file: {path}")
        storage = self.session_manager.storage
        directory = self.session_manager.get_session_dir()
        target = path if not directory else os.path.join(directory, os.path.basename(path))
        if target != path:
            existing = storage.load(target)
            if existing is not None and existing != text:
                raise SessionOperationError(f"A different session is already stored as {target}")
            if existing is None:
                storage.rewrite(target, text)
        result = await self.switch_session(target)
        recorded = getattr(header, "cwd", "") or ""
        current = self.session_manager.get_cwd()
        if result.switched and recorded and os.path.abspath(recorded) != os.path.abspath(current):
            result.warnings.append(f"The session was recorded in {recorded}; tools keep working in {current}")
        return result

    async def _restore_model_and_thinking(self, context: Any) -> list[str]:
        warnings: list[str] = []
        if context.model is not None and self.model_registry is not None:
            provider, model_id = context.model
            current = self.model
            if current is None or (current.provider, current.id) != (provider, model_id):
                from pi_app.coding.models.resolver import restore_session_model

                model, message, restored = await restore_session_model(
                    self.model_registry, provider, model_id, current
                )
                if restored and model is not None:
                    self.agent.state.model = model
                    await self._hook_notify(
                        "model_select", model=model, previous_model=current, source="restore"
                    )
                elif message:
                    warnings.append(message)
        has_level = any(isinstance(e, ThinkingLevelChangeEntry) for e in self.session_manager.get_branch())
        if has_level:
            self.agent.state.thinking_level = _clamp(self.model, context.thinking_level)
        else:
            level = _clamp(self.model, self.settings_manager.get_default_thinking_level() or "medium")
            self.agent.state.thinking_level = level
            self.session_manager.append_thinking_level_change(level)
        return warnings

    def _append_startup_state(self) -> None:
        if self.model is not None:
            self.session_manager.append_model_change(self.model.provider, self.model.id)
        self.session_manager.append_thinking_level_change(self.thinking_level)

    def _after_session_switch(self) -> None:
        """Bookkeeping shared by fork, clone, new and resume."""
        self.agent.session_id = self.session_manager.get_session_id()
        self.agent.clear_all_queues()
        self._pending_bash.clear()
        self._retry_attempt = 0
        self._overflow_attempted = False
        self._emit_soon(self._queue_event())
        self._emit_soon(SessionInfoChangedEvent(self.session_manager.get_session_name()))
