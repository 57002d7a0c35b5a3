"""The two-phase extension runtime and the host interface it binds to (spec 40 §2.9, R-EXT-06/07/22).

Phase 1 (loading): ``setup(pi)`` functions run; registration works, action methods raise
``ExtensionRuntimeNotReady`` and provider registrations are queued. Phase 2 starts with
``runner.bind_core(host)``: the host's real implementations replace the throwing stubs and the
queued providers are flushed into the model registry.

``ExtensionHost`` is everything an extension can make the session do. ``AgentSession`` (or an
adapter) subclasses it; every method not overridden raises ``NotImplementedError`` naming itself,
so a partially wired host fails loudly instead of silently doing nothing.

A runtime dies at teardown (reload, new/resume/fork, quit): from then on every ``pi`` and ``ctx``
object made for it raises ``StaleExtensionContextError``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.coding.extensions.event_bus import EventBus
from pi_app.coding.extensions.types import (
    ContextUsage,
    ExtensionRuntimeNotReady,
    StaleExtensionContextError,
    ToolInfo,
)

if TYPE_CHECKING:
    from pi_app.ai.event_stream import AbortSignal
    from pi_app.ai.types import Model
    from pi_app.coding.models.registry import ModelRegistry


_runtime_ids = itertools.count(1)


class ExtensionHost:
    """What an extension may ask of the session; override what your shell supports."""

    def _missing(self, name: str) -> NotImplementedError:
        return NotImplementedError(f"{name} is not supported by this host")

    # -- values read at call time (ExtensionContext) ---------------------------------------------
    @property
    def cwd(self) -> str:
        raise self._missing("cwd")

    @property
    def session_manager(self) -> Any:
        """A read-only proxy (get_entries, get_branch, get_leaf_id, get_entry, …); no mutators."""
        raise self._missing("session_manager")

    @property
    def model(self) -> Model | None:
        return None

    @property
    def scoped_models(self) -> tuple[Any, ...]:
        return ()

    @property
    def thinking_level(self) -> str:
        return "off"

    @property
    def signal(self) -> AbortSignal | None:
        return None

    def is_idle(self) -> bool:
        return True

    def abort(self) -> None:
        raise self._missing("abort")

    def has_pending_messages(self) -> bool:
        return False

    def is_project_trusted(self) -> bool:
        return False

    def shutdown(self) -> None:
        raise self._missing("shutdown")

    def get_context_usage(self) -> ContextUsage | None:
        return None

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        raise self._missing("compact")

    def get_system_prompt(self) -> str:
        raise self._missing("get_system_prompt")

    # -- actions (ExtensionAPI) -----------------------------------------------------------------
    def send_message(self, message: dict[str, Any], trigger_turn: bool, deliver_as: str) -> Any:
        raise self._missing("send_message")

    def send_user_message(self, content: Any, deliver_as: str | None, expand_prompt_templates: bool) -> Any:
        raise self._missing("send_user_message")

    def append_entry(self, custom_type: str, data: Any) -> Any:
        raise self._missing("append_entry")

    def set_session_name(self, name: str | None) -> None:
        raise self._missing("set_session_name")

    def get_session_name(self) -> str | None:
        raise self._missing("get_session_name")

    def set_label(self, entry_id: str, label: str | None) -> None:
        raise self._missing("set_label")

    def get_active_tools(self) -> list[str]:
        raise self._missing("get_active_tools")

    def get_all_tools(self) -> list[ToolInfo]:
        raise self._missing("get_all_tools")

    def set_active_tools(self, names: list[str]) -> None:
        raise self._missing("set_active_tools")

    async def set_model(self, model: Model) -> bool:
        raise self._missing("set_model")

    def get_thinking_level(self) -> str:
        return self.thinking_level

    def set_thinking_level(self, level: str) -> None:
        raise self._missing("set_thinking_level")

    def refresh_tools(self) -> None:
        """Called after ``register_tool`` post-bind: rebuild the tool registry, activate new tools."""
        return None

    # -- command-context actions (ExtensionCommandContext) --------------------------------------
    async def wait_for_idle(self) -> None:
        return None

    async def new_session(
        self, *, parent_session: str | None = None, setup: Any = None, with_session: Any = None
    ) -> dict[str, Any]:
        raise self._missing("new_session")

    async def fork(
        self, entry_id: str, *, position: str = "before", with_session: Any = None
    ) -> dict[str, Any]:
        raise self._missing("fork")

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> dict[str, Any]:
        raise self._missing("navigate_tree")

    async def switch_session(self, session_path: str, *, with_session: Any = None) -> dict[str, Any]:
        raise self._missing("switch_session")

    async def reload(self) -> None:
        raise self._missing("reload")

    def get_system_prompt_options(self) -> Any:
        return None


@dataclass
class PendingProvider:
    """A provider an extension registered (or unregistered) while loading, applied once loading ends."""

    name: str
    config: Any  # None = unregister
    extension_path: str


class ExtensionRuntime:
    """State shared by all extensions of one generation: flags, queued providers, the bound host."""

    def __init__(self, *, model_registry: ModelRegistry | None = None, import_generation: int = 0) -> None:
        self.id = next(_runtime_ids)
        self.import_generation = import_generation
        self.model_registry = model_registry
        self.flag_values: dict[str, bool | str] = {}
        self.pending_providers: list[PendingProvider] = []
        self.host: ExtensionHost | None = None
        self.runner: Any = None
        self.stale = False
        self.providers_live = False  # after the first flush, registrations apply at once
        self.event_bus = EventBus()

    # -- guards ---------------------------------------------------------------------------------

    def check_live(self, member: str = "") -> None:
        if self.stale:
            raise StaleExtensionContextError(member)

    def bound_host(self, method: str) -> ExtensionHost:
        self.check_live(method)
        if self.host is None:
            raise ExtensionRuntimeNotReady(method)
        return self.host

    # -- providers --------------------------------------------------------------------------------

    def register_provider(self, name: str, config: Any, extension_path: str) -> None:
        self.check_live("register_provider")
        if not self.providers_live or self.model_registry is None:
            self.pending_providers.append(PendingProvider(name, config, extension_path))
            return
        self.model_registry.register_provider(name, config, owner=self)

    def unregister_provider(self, name: str, extension_path: str) -> None:
        self.check_live("unregister_provider")
        if not self.providers_live or self.model_registry is None:
            self.pending_providers = [p for p in self.pending_providers if p.name != name]
            return
        self.model_registry.unregister_provider(name)

    def discard_extension(self, extension_path: str) -> None:
        """Drop everything a failed extension queued (R-EXT-05)."""
        self.pending_providers = [p for p in self.pending_providers if p.extension_path != extension_path]

    def flush_providers(self, report: Callable[[str, str, BaseException], None]) -> None:
        """Apply queued registrations in order; a bad one is reported and skipped (R-EXT-07)."""
        if self.model_registry is None:
            return
        self.providers_live = True
        pending, self.pending_providers = self.pending_providers, []
        for item in pending:
            try:
                if item.config is None:
                    self.model_registry.unregister_provider(item.name)
                else:
                    self.model_registry.register_provider(item.name, item.config, owner=self)
            except Exception as exc:
                report(item.extension_path, item.name, exc)

    # -- teardown ---------------------------------------------------------------------------------

    def teardown(self) -> None:
        if self.stale:
            return
        self.stale = True
        self.event_bus.clear()
        self.pending_providers.clear()
        if self.model_registry is not None:
            unregister_owner = getattr(self.model_registry, "unregister_owner", None)
            if unregister_owner is not None:
                unregister_owner(self)
