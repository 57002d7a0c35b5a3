"""Contexts passed to handlers, tools, shortcuts and commands (spec 40 §2.5, R-EXT-22/23).

Values are read from the bound host at access time, so a context kept for the length of a tool run
still sees the current model and level. Once the runtime is torn down every member except the plain
``cwd`` raises ``StaleExtensionContextError``; ``ctx.ui`` is a proxy that checks on each call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_app.coding.extensions.readonly import ReadonlySessionManager
from pi_app.coding.extensions.runtime import ExtensionHost, ExtensionRuntime
from pi_app.coding.extensions.types import ContextUsage
from pi_app.coding.extensions.ui import ExtensionUIContext, NoOpUIContext

if TYPE_CHECKING:
    from pi_app.ai.event_stream import AbortSignal
    from pi_app.ai.types import Model
    from pi_app.coding.models.registry import ModelRegistry


class _StaleCheckingUI:
    """Forwards to the mode's UI context while the runtime lives."""

    def __init__(self, runtime: ExtensionRuntime, get_ui: Callable[[], ExtensionUIContext]) -> None:
        self._runtime = runtime
        self._get_ui = get_ui

    def __getattr__(self, name: str) -> Any:
        self._runtime.check_live(f"ui.{name}")
        return getattr(self._get_ui(), name)


class ExtensionContext:
    def __init__(self, runner: Any, runtime: ExtensionRuntime) -> None:
        self._runner = runner
        self._runtime = runtime
        self.cwd: str = runner.cwd
        self._ui = _StaleCheckingUI(runtime, lambda: runner.ui)

    def _host(self, member: str) -> ExtensionHost:
        return self._runtime.bound_host(member)

    @property
    def ui(self) -> Any:
        self._runtime.check_live("ui")
        return self._ui

    @property
    def has_ui(self) -> bool:
        self._runtime.check_live("has_ui")
        return bool(self._runner.has_ui)

    @property
    def mode(self) -> str:
        self._runtime.check_live("mode")
        return str(self._runner.mode)

    @property
    def session_manager(self) -> ReadonlySessionManager:
        manager = self._host("session_manager").session_manager
        return manager if isinstance(manager, ReadonlySessionManager) else ReadonlySessionManager(manager)

    @property
    def model_registry(self) -> ModelRegistry | None:
        self._runtime.check_live("model_registry")
        return self._runtime.model_registry

    @property
    def model(self) -> Model | None:
        return self._host("model").model

    @property
    def scoped_models(self) -> tuple[Any, ...]:
        return tuple(self._host("scoped_models").scoped_models)

    @property
    def thinking_level(self) -> str:
        return self._host("thinking_level").thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        return self._host("signal").signal

    def is_idle(self) -> bool:
        return self._host("is_idle").is_idle()

    def abort(self) -> None:
        self._host("abort").abort()

    def has_pending_messages(self) -> bool:
        return self._host("has_pending_messages").has_pending_messages()

    def is_project_trusted(self) -> bool:
        return self._host("is_project_trusted").is_project_trusted()

    def shutdown(self) -> None:
        self._host("shutdown").shutdown()

    def get_context_usage(self) -> ContextUsage | None:
        return self._host("get_context_usage").get_context_usage()

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        host = self._host("compact")
        host.compact(
            custom_instructions=custom_instructions,
            on_complete=self._runner.guard_callback(on_complete, "compact"),
            on_error=self._runner.guard_callback(on_error, "compact"),
        )

    def get_system_prompt(self) -> str:
        return self._host("get_system_prompt").get_system_prompt()


class ExtensionCommandContext(ExtensionContext):
    """Only command handlers may replace or navigate sessions (spec 40 §4 item 14)."""

    async def wait_for_idle(self) -> None:
        await self._host("wait_for_idle").wait_for_idle()

    async def new_session(
        self, *, parent_session: str | None = None, setup: Any = None, with_session: Any = None
    ) -> dict[str, Any]:
        return await self._host("new_session").new_session(
            parent_session=parent_session, setup=setup, with_session=with_session
        )

    async def fork(
        self, entry_id: str, *, position: str = "before", with_session: Any = None
    ) -> dict[str, Any]:
        return await self._host("fork").fork(entry_id, position=position, with_session=with_session)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> dict[str, Any]:
        return await self._host("navigate_tree").navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def switch_session(self, session_path: str, *, with_session: Any = None) -> dict[str, Any]:
        return await self._host("switch_session").switch_session(session_path, with_session=with_session)

    async def reload(self) -> None:
        await self._host("reload").reload()

    def get_system_prompt_options(self) -> Any:
        return self._host("get_system_prompt_options").get_system_prompt_options()


class ReplacedSessionContext(ExtensionCommandContext):
    """Given to ``with_session`` callbacks: awaitable message actions bound to the NEW session."""

    async def send_message(
        self, message: dict[str, Any], *, trigger_turn: bool = False, deliver_as: str = "steer"
    ) -> Any:
        result = self._host("send_message").send_message(message, trigger_turn, deliver_as)
        if hasattr(result, "__await__"):
            result = await result
        return result

    async def send_user_message(
        self, content: Any, *, deliver_as: str | None = None, expand_prompt_templates: bool = False
    ) -> Any:
        result = self._host("send_user_message").send_user_message(
            content, deliver_as, expand_prompt_templates
        )
        if hasattr(result, "__await__"):
            result = await result
        return result


class ProjectTrustContext:
    """What a ``project_trust`` handler gets: no session exists yet (spec 40 §2.7)."""

    def __init__(self, cwd: str, mode: str, ui: ExtensionUIContext | None) -> None:
        self.cwd = cwd
        self.mode = mode
        self.has_ui = ui is not None and not isinstance(ui, NoOpUIContext)
        self.ui = ui if ui is not None else NoOpUIContext()
