"""Layered settings: ``~/.pi/agent/settings.json``, ``<cwd>/.pi/settings.json``, runtime overrides.

What this module owns (spec 30 §2.12, R-SET-01…11, decision D-27):

- The raw dict of each scope is the source of truth. It is what gets saved, so unknown keys and
  the user's key order survive; defaults live in getters and are never written (I7).
- The effective view is ``deep_merge(global, project)`` then the CLI overrides (never saved), read
  through ``Settings``, a ``msgspec.Struct`` filled from the merged dict by
  ``pi_app.ai.util.structs.convert`` with pydantic's lax coercion (the view was a pydantic model
  until issue 20; importing pydantic and building its models was a large share of start-up). A
  top-level key whose value has the wrong type is ignored (with a one-line error) rather than
  breaking startup; unknown keys are ignored by the view and kept in the raw dict. The few ``PI_*``
  environment variables go through ``PiEnvironment`` (pydantic-settings), built on first use (only
  two getters read it, and only for a key the files leave out), so start-up imports no pydantic.
- Setters change one scope in memory, remember which keys (and nested sub-keys) this process
  changed, and save at once: under ``<file>.lock`` the file is re-read and migrated, only the
  changed keys are overwritten, and the result replaces the file atomically (D-25). So a key another
  process wrote meanwhile survives.
- A scope whose file failed to parse is never written; the change still applies in memory.
- ``SettingsManager.from_storage(storage)`` puts both scopes behind a host's ``SettingsStorage``
  (``with_lock(scope, fn)``; spec 70 R-SEAM-04): reads and writes then reach that storage only,
  with the same re-read-and-merge and never-overwrite-unreadable rules as the files.

Decision: writes are synchronous (a few hundred bytes under a lock), serialised by a
``threading.Lock``; ``flush()`` exists for API parity with pi's write queue and returns at once.
Hot reload via watchfiles is not wired (spec 30 §5.11: off by default).
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import msgspec

from pi_app.ai.util.structs import ConversionError, convert
from pi_app.coding import paths
from pi_app.coding.filelock import LockTimeout, atomic_write, file_lock
from pi_app.coding.settings_files import SettingsParseError, parse_json_object, read_json_object

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

Scope = Literal["global", "project"]
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
TREE_FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
NESTED_KEYS = frozenset(
    {"compaction", "branchSummary", "retry", "terminal", "images", "thinkingBudgets", "markdown"}
)


# ---------------------------------------------------------------------------------------------
# Typed view
# ---------------------------------------------------------------------------------------------


class _Section(msgspec.Struct, rename="camel"):
    """The view and its sections: camelCase keys in the file, snake_case attributes; the Python
    names are accepted too (pydantic's ``populate_by_name``, which the pydantic view had), unknown
    keys are ignored (the raw dict keeps them)."""

    populate_by_name: ClassVar[bool] = True


class CompactionSettings(_Section):
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000
    model_overrides: dict[str, dict[str, Any]] | None = None
    """pi 1.6.0: ``{"provider/modelId": {"reserveTokens"?, "keepRecentTokens"?}}``."""


class BranchSummarySettings(_Section):
    reserve_tokens: int = 16384
    skip_prompt: bool = False


class ProviderRetrySettings(_Section):
    timeout_ms: int | None = None
    max_retries: int | None = None
    max_retry_delay_ms: int = 60000


class RetrySettings(_Section):
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    provider: ProviderRetrySettings = msgspec.field(default_factory=ProviderRetrySettings)


class TerminalSettings(_Section):
    show_images: bool = True
    clear_on_shrink: bool | None = None
    show_terminal_progress: bool = False
    """pi 1.6.0: OSC 9;4 progress in the terminal tab while the agent works."""
    hyperlinks: bool | str = "auto"
    """pi 1.6.0: OSC 8 links for file paths; true / false / "auto"."""
    image_width_cells: int = 60
    """pi 1.6.0: the widest an inline image is drawn, in cells."""


class ImageSettings(_Section):
    auto_resize: bool = True
    block_images: bool = False


class CheckpointSettings(_Section):
    """File checkpoints that follow /tree (this product only; pi 1.6.0 ignores the key)."""

    enabled: bool = True
    max_file_bytes: int = 32 * 1024 * 1024


class MarkdownSettings(_Section):
    code_block_indent: str = "  "
    mermaid: str = "streaming"
    """pi 1.6.0: "off" | "final" | "streaming" (another value means the default)."""


class Settings(_Section):
    """The effective settings (defaults of spec 30 §2.12). Built from the merged scopes only, by
    ``pi_app.ai.util.structs.convert`` in pydantic's lax mode (``"3"`` is 3, ``"yes"`` is true).

    Only the merged files feed this view. The few ``PI_*`` variables pi honours are in
    ``PiEnvironment``.
    """

    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"] | None = None
    model_thinking_levels: dict[str, str] | None = None
    default_tools: list[str] | None = None
    transport: Literal["sse", "websocket", "auto"] = "auto"
    enabled_models: list[str] | None = None
    steering_mode: Literal["all", "one-at-a-time"] = "one-at-a-time"
    follow_up_mode: Literal["all", "one-at-a-time"] = "one-at-a-time"
    theme: str | None = None
    hide_thinking_block: bool = False
    compaction: CompactionSettings = msgspec.field(default_factory=CompactionSettings)
    branch_summary: BranchSummarySettings = msgspec.field(default_factory=BranchSummarySettings)
    checkpoints: CheckpointSettings = msgspec.field(default_factory=CheckpointSettings)
    retry: RetrySettings = msgspec.field(default_factory=RetrySettings)
    terminal: TerminalSettings = msgspec.field(default_factory=TerminalSettings)
    images: ImageSettings = msgspec.field(default_factory=ImageSettings)
    thinking_budgets: dict[str, int] | None = None
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    npm_command: list[str] | None = None
    packages: list[Any] = msgspec.field(default_factory=list)
    extensions: list[str] = msgspec.field(default_factory=list)
    skills: list[str] = msgspec.field(default_factory=list)
    prompts: list[str] = msgspec.field(default_factory=list)
    themes: list[str] = msgspec.field(default_factory=list)
    enable_skill_commands: bool = True
    markdown: MarkdownSettings = msgspec.field(default_factory=MarkdownSettings)
    editor_padding_x: int = 0
    autocomplete_max_visible: int = 5
    show_hardware_cursor: bool | None = None
    double_escape_action: Literal["tree", "fork", "none"] = "tree"
    tree_filter_mode: str = "default"
    quiet_startup: bool | Literal["header"] = False
    collapse_changelog: bool = False
    last_changelog_version: str | None = None
    session_dir: str | None = None
    http_proxy: str | None = None
    http_idle_timeout_ms: int | None = None
    external_editor: str | None = None
    output_pad: Literal[0, 1] = 1
    show_cache_miss_notices: bool = False
    fullscreen_exit_output: str = "transcript"
    """pi 1.6.0: "transcript" (the conversation, then the resume hint) or "resume-hint"."""


@cache
def pi_environment_class() -> type[BaseSettings]:
    """``PiEnvironment``: the ``PI_*`` environment variables that change settings-related behaviour.

    Defined on first use so that pydantic(-settings) is imported only when a getter needs it: the
    two getters that read it fall back to it only when the setting is not in a file.
    """
    from pydantic import AliasChoices, Field
    from pydantic_settings import BaseSettings, SettingsConfigDict

    class PiEnvironment(BaseSettings):
        model_config = SettingsConfigDict(extra="ignore")

        coding_agent_dir: str | None = Field(default=None, validation_alias="PI_CODING_AGENT_DIR")
        coding_agent_session_dir: str | None = Field(
            default=None, validation_alias="PI_CODING_AGENT_SESSION_DIR"
        )
        clear_on_shrink: bool = Field(
            default=False, validation_alias=AliasChoices("PI_CLEAR_ON_SHRINK", "pi_clear_on_shrink")
        )
        hardware_cursor: bool = Field(default=False, validation_alias="PI_HARDWARE_CURSOR")

    return PiEnvironment


def _env() -> Any:
    from pydantic import ValidationError

    environment = pi_environment_class()
    try:
        return environment()
    except ValidationError:
        return environment.model_construct()


# ---------------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------------


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` wins; dicts merge one level deep; lists replace (R-SET-03)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            continue
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = {**current, **copy.deepcopy(value)}
        else:
            out[key] = copy.deepcopy(value)
    return out


def migrate_settings(data: dict[str, Any]) -> dict[str, Any]:
    """Rename legacy keys in memory (R-SET-02). Returns a new dict; the input is not changed."""
    out = copy.deepcopy(data)
    if "queueMode" in out:
        legacy = out.pop("queueMode")
        out.setdefault("steeringMode", legacy)
    if isinstance(out.get("websockets"), bool):
        legacy = out.pop("websockets")
        out.setdefault("transport", "websocket" if legacy else "sse")
    skills = out.get("skills")
    if isinstance(skills, dict):
        del out["skills"]
        if "enableSkillCommands" in skills and "enableSkillCommands" not in out:
            out["enableSkillCommands"] = skills["enableSkillCommands"]
        dirs = skills.get("customDirectories")
        if isinstance(dirs, list) and dirs:
            out["skills"] = dirs
    retry = out.get("retry")
    if isinstance(retry, dict) and "maxDelayMs" in retry:
        retry = dict(retry)
        legacy = retry.pop("maxDelayMs")
        provider = dict(retry.get("provider") or {}) if isinstance(retry.get("provider"), dict) else {}
        provider.setdefault("maxRetryDelayMs", legacy)
        retry["provider"] = provider
        out["retry"] = retry
    return out


class SettingsStorage(Protocol):
    """Where a host keeps settings text (spec 70 R-SEAM-04). ``with_lock`` calls ``fn`` with the
    scope's current text (None when there is none) while holding the scope's lock, and stores what
    ``fn`` returns unless that is None. A storage may ignore the project scope (give None, drop
    writes)."""

    def with_lock(self, scope: Scope, fn: Callable[[str | None], str | None]) -> None: ...


class InMemorySettingsStorage:
    """A ``SettingsStorage`` over a dict of scope -> text."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self.texts: dict[str, str] = dict(texts or {})
        self._lock = threading.Lock()

    def with_lock(self, scope: Scope, fn: Callable[[str | None], str | None]) -> None:
        with self._lock:
            new = fn(self.texts.get(scope))
            if new is not None:
                self.texts[scope] = new


def _display(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text


# ---------------------------------------------------------------------------------------------
# The manager
# ---------------------------------------------------------------------------------------------


class SettingsManager:
    def __init__(
        self,
        global_path: Path | None,
        project_path: Path | None,
        global_settings: dict[str, Any] | None = None,
        project_settings: dict[str, Any] | None = None,
        storage: SettingsStorage | None = None,
    ) -> None:
        self.global_path = global_path
        self.project_path = project_path
        self.storage = storage
        self.errors: list[str] = []
        self._broken: set[Scope] = set()
        self._raw: dict[Scope, dict[str, Any]] = {
            "global": migrate_settings(global_settings or {}),
            "project": migrate_settings(project_settings or {}),
        }
        self._modified: dict[Scope, dict[str, set[str] | None]] = {"global": {}, "project": {}}
        self._overrides: dict[str, Any] = {}
        self._project_enabled = True
        self._write_lock = threading.Lock()
        self._view = Settings()
        self._merged: dict[str, Any] = {}
        if global_path is not None or storage is not None:
            self._load_scope("global")
        if project_path is not None or storage is not None:
            self._load_scope("project")
        self._recompute()

    @classmethod
    def create(cls, cwd: str | Path, agent_dir: str | Path | None = None) -> SettingsManager:
        base = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
        return cls(base / "settings.json", paths.project_settings_path(cwd))

    @classmethod
    def in_memory(cls, settings: dict[str, Any] | None = None) -> SettingsManager:
        return cls(None, None, global_settings=settings)

    @classmethod
    def from_storage(cls, storage: SettingsStorage) -> SettingsManager:
        """Both scopes read from and written to ``storage`` only (no settings file is touched)."""
        return cls(None, None, storage=storage)

    # -- loading --------------------------------------------------------------------------------

    def _path(self, scope: Scope) -> Path | None:
        return self.global_path if scope == "global" else self.project_path

    def _read_scope(self, scope: Scope) -> dict[str, Any] | None:
        if self.storage is not None:
            seen: list[str | None] = []
            self.storage.with_lock(scope, lambda current: seen.append(current))
            return parse_json_object(seen[0] if seen else None)
        path = self._path(scope)
        return read_json_object(path) if path is not None else None

    def _scope_name(self, scope: Scope) -> str:
        path = self._path(scope)
        return _display(path) if path is not None else f"{scope} settings"

    def _load_scope(self, scope: Scope) -> bool:
        if self._path(scope) is None and self.storage is None:
            return True
        try:
            data = self._read_scope(scope)
        except SettingsParseError as exc:
            self._broken.add(scope)
            self.errors.append(
                f"Could not parse {self._scope_name(scope)}: {exc}; using defaults for this scope"
            )
            return False
        self._broken.discard(scope)
        self._raw[scope] = migrate_settings(data or {})
        return True

    def reload(self) -> None:
        """Re-read both files (a file that now fails keeps its previous values) (R-SET-09)."""
        previous = {scope: copy.deepcopy(raw) for scope, raw in self._raw.items()}
        for scope in ("global", "project"):
            if not self._load_scope(scope):
                self._raw[scope] = previous[scope]
        self._modified = {"global": {}, "project": {}}
        self._recompute()

    def drain_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors

    def set_project_enabled(self, enabled: bool) -> None:
        """Ignore (or use again) the project scope, e.g. for an untrusted project (R-TRUST-01)."""
        self._project_enabled = enabled
        self._recompute()

    def _recompute(self) -> None:
        merged = copy.deepcopy(self._raw["global"])
        if self._project_enabled:
            merged = deep_merge(merged, self._raw["project"])
        merged = deep_merge(merged, self._overrides)
        self._merged = merged
        self._view = self._validate(merged)

    def _validate(self, merged: dict[str, Any]) -> Settings:
        data = dict(merged)
        for _ in range(len(data) + 1):
            try:
                return convert(data, Settings)
            except ConversionError as exc:
                bad = dict.fromkeys(err.loc[0] for err in exc.errors if err.loc)
                if not bad:
                    break
                for key in bad:
                    if key in data:
                        self._note(f"Ignoring invalid setting {key!r}: {data.pop(key)!r} has the wrong type")
        return Settings()

    def _note(self, message: str) -> None:
        if message not in self.errors:
            self.errors.append(message)

    # -- overrides and raw access ---------------------------------------------------------------

    def apply_overrides(self, overrides: dict[str, Any]) -> None:
        """Runtime values (CLI flags) on top of both files; never saved."""
        self._overrides = deep_merge(self._overrides, migrate_settings(overrides))
        self._recompute()

    def get_global_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._raw["global"])

    def get_project_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._raw["project"])

    def get_effective_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._merged)

    @property
    def settings(self) -> Settings:
        return self._view

    # -- writing --------------------------------------------------------------------------------

    def set(self, key: str, value: Any, scope: Scope = "global") -> None:
        """Set (``None``: remove) a top-level key and save that scope."""
        raw = self._raw[scope]
        if value is None:
            raw.pop(key, None)
        else:
            raw[key] = copy.deepcopy(value)
        self._modified[scope][key] = None
        self._recompute()
        self._save(scope)

    def set_nested(self, key: str, sub_key: str, value: Any, scope: Scope = "global") -> None:
        """Set (``None``: remove) ``key.sub_key`` and save; other sub-keys in the file are kept."""
        raw = self._raw[scope]
        section = raw.get(key)
        section = dict(section) if isinstance(section, dict) else {}
        if value is None:
            section.pop(sub_key, None)
        else:
            section[sub_key] = copy.deepcopy(value)
        raw[key] = section
        tracked = self._modified[scope].get(key, set())
        if tracked is not None:
            tracked.add(sub_key)
            self._modified[scope][key] = tracked
        self._recompute()
        self._save(scope)

    def _save(self, scope: Scope) -> None:
        if self.storage is not None:
            self._save_to_storage(scope)
            return
        path = self._path(scope)
        if path is None or scope in self._broken:
            return
        with self._write_lock:
            try:
                with file_lock(path):
                    try:
                        on_disk = read_json_object(path) or {}
                    except SettingsParseError as exc:
                        self._broken.add(scope)
                        self._note(f"Could not parse {_display(path)}: {exc}; it was not overwritten")
                        return
                    merged = self._merge_modified(migrate_settings(on_disk), scope)
                    atomic_write(path, json.dumps(merged, indent=2, ensure_ascii=False))
            except (LockTimeout, OSError) as exc:
                self._note(f"Could not save {_display(path)}: {exc}")
                return
        self._raw[scope] = merged
        self._modified[scope] = {}
        self._recompute()

    def _save_to_storage(self, scope: Scope) -> None:
        if scope in self._broken or self.storage is None:
            return
        saved: list[dict[str, Any]] = []

        def update(current: str | None) -> str | None:
            try:
                stored = parse_json_object(current) or {}
            except SettingsParseError as exc:
                self._broken.add(scope)
                self._note(f"Could not parse {self._scope_name(scope)}: {exc}; it was not overwritten")
                return None
            merged = self._merge_modified(migrate_settings(stored), scope)
            saved.append(merged)
            return json.dumps(merged, indent=2, ensure_ascii=False)

        with self._write_lock:
            try:
                self.storage.with_lock(scope, update)
            except Exception as exc:  # a host storage failing is reported, never raised into a setter
                self._note(f"Could not save {self._scope_name(scope)}: {exc}")
                return
        if saved:
            self._raw[scope] = saved[0]
            self._modified[scope] = {}
            self._recompute()

    def _merge_modified(self, on_disk: dict[str, Any], scope: Scope) -> dict[str, Any]:
        mine = self._raw[scope]
        out = dict(on_disk)
        for key, subs in self._modified[scope].items():
            if subs is None:
                if key in mine:
                    out[key] = copy.deepcopy(mine[key])
                else:
                    out.pop(key, None)
                continue
            section = dict(out[key]) if isinstance(out.get(key), dict) else {}
            source = mine.get(key)
            if not isinstance(source, dict):
                source = {}
            for sub in subs:
                if sub in source:
                    section[sub] = copy.deepcopy(source[sub])
                else:
                    section.pop(sub, None)
            out[key] = section
        return out

    async def flush(self) -> None:
        """Writes are synchronous; nothing is ever pending."""
        return None

    # -- getters (defaults of spec 30 §2.12) ----------------------------------------------------

    def get_default_provider(self) -> str | None:
        return self._view.default_provider

    def get_default_model(self) -> str | None:
        return self._view.default_model

    def get_default_thinking_level(self) -> str | None:
        return self._view.default_thinking_level

    def get_default_tools_layers(self) -> list[list[str]]:
        """``defaultTools`` of the user, then of the project (each applies on top of the one before,
        see ``pi_app.coding.tool_selection``); a list that is not all strings is left out."""
        scopes: list[Scope] = ["global", "project"] if self._project_enabled else ["global"]
        layers = [self._raw[scope].get("defaultTools") for scope in scopes]
        layers.append(self._overrides.get("defaultTools"))
        return [list(v) for v in layers if isinstance(v, list) and all(isinstance(x, str) for x in v)]

    def get_model_thinking_level(self, provider: str, model_id: str) -> str | None:
        """``modelThinkingLevels["provider/modelId"]`` (1.6.0's per-model startup level), if valid."""
        level = (self._view.model_thinking_levels or {}).get(f"{provider}/{model_id}")
        return level if level in THINKING_LEVELS else None

    def get_transport(self) -> Literal["sse", "websocket", "auto"]:
        return self._view.transport

    def get_enabled_models(self) -> list[str] | None:
        return list(self._view.enabled_models) if self._view.enabled_models is not None else None

    def get_steering_mode(self) -> Literal["all", "one-at-a-time"]:
        return self._view.steering_mode

    def get_follow_up_mode(self) -> Literal["all", "one-at-a-time"]:
        return self._view.follow_up_mode

    def get_theme(self) -> str | None:
        return self._view.theme

    def get_hide_thinking_block(self) -> bool:
        return self._view.hide_thinking_block

    def get_compaction_settings(self, model: str | None = None) -> CompactionSettings:
        """The compaction settings; for ``model`` (``provider/modelId``) its ``modelOverrides``
        entry replaces ``reserveTokens``/``keepRecentTokens`` field by field (pi 1.6.0)."""
        settings = copy.copy(self._view.compaction)
        override = (settings.model_overrides or {}).get(model) if model else None
        if isinstance(override, dict):
            for key, attr in (
                ("reserveTokens", "reserve_tokens"),
                ("keepRecentTokens", "keep_recent_tokens"),
            ):
                value = override.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    setattr(settings, attr, value)
        return settings

    def get_compaction_enabled(self) -> bool:
        return self._view.compaction.enabled

    def get_branch_summary_settings(self) -> BranchSummarySettings:
        return copy.copy(self._view.branch_summary)

    def get_checkpoint_settings(self) -> CheckpointSettings:
        return copy.copy(self._view.checkpoints)

    def get_retry_settings(self) -> RetrySettings:
        return copy.deepcopy(self._view.retry)

    def get_show_images(self) -> bool:
        return self._view.terminal.show_images

    def get_image_width_cells(self) -> int:
        return max(1, int(self._view.terminal.image_width_cells))

    def get_show_terminal_progress(self) -> bool:
        return bool(self._view.terminal.show_terminal_progress)

    def set_show_terminal_progress(self, value: bool) -> None:
        self.set_nested("terminal", "showTerminalProgress", value)

    def get_hyperlinks(self) -> bool | str:
        value = self._view.terminal.hyperlinks
        return value if isinstance(value, bool) else "auto"

    def set_hyperlinks(self, value: bool | str) -> None:
        self.set_nested("terminal", "hyperlinks", value)

    def get_clear_on_shrink(self) -> bool:
        value = self._view.terminal.clear_on_shrink
        return value if value is not None else _env().clear_on_shrink

    def get_image_auto_resize(self) -> bool:
        return self._view.images.auto_resize

    def get_block_images(self) -> bool:
        return self._view.images.block_images

    def get_thinking_budgets(self) -> dict[str, int] | None:
        return dict(self._view.thinking_budgets) if self._view.thinking_budgets else None

    def get_shell_path(self) -> str | None:
        value = self._view.shell_path
        return paths.expand_user(value) if value else None

    def get_shell_command_prefix(self) -> str | None:
        return self._view.shell_command_prefix

    def get_npm_command(self) -> list[str] | None:
        return list(self._view.npm_command) if self._view.npm_command else None

    def get_packages(self) -> list[Any]:
        return copy.deepcopy(self._view.packages)

    def get_extension_paths(self) -> list[str]:
        return list(self._view.extensions)

    def get_skill_paths(self) -> list[str]:
        return list(self._view.skills)

    def get_prompt_template_paths(self) -> list[str]:
        return list(self._view.prompts)

    def get_theme_paths(self) -> list[str]:
        return list(self._view.themes)

    def get_enable_skill_commands(self) -> bool:
        return self._view.enable_skill_commands

    def get_code_block_indent(self) -> str:
        return self._view.markdown.code_block_indent

    def get_mermaid_mode(self) -> str:
        value = self._view.markdown.mermaid
        return value if value in ("off", "final", "streaming") else "streaming"

    def set_mermaid_mode(self, mode: str) -> None:
        self.set_nested("markdown", "mermaid", mode)

    def get_editor_padding_x(self) -> int:
        return max(0, min(3, self._view.editor_padding_x))

    def get_autocomplete_max_visible(self) -> int:
        return max(3, min(20, self._view.autocomplete_max_visible))

    def get_show_hardware_cursor(self) -> bool:
        value = self._view.show_hardware_cursor
        return value if value is not None else _env().hardware_cursor

    def get_double_escape_action(self) -> str:
        return self._view.double_escape_action

    def get_tree_filter_mode(self) -> str:
        mode = self._view.tree_filter_mode
        return mode if mode in TREE_FILTER_MODES else "default"

    def get_quiet_startup(self) -> bool | Literal["header"]:
        """``True`` hides the start-up header; ``"header"`` (pi 1.6.0) keeps the header and hides
        the loaded-resource listing."""
        return self._view.quiet_startup

    def get_collapse_changelog(self) -> bool:
        return self._view.collapse_changelog

    def get_last_changelog_version(self) -> str | None:
        return self._view.last_changelog_version

    def get_session_dir(self) -> str | None:
        value = self._view.session_dir
        return paths.expand_user(value) if value else None

    def get_http_proxy(self) -> str | None:
        return self._view.http_proxy

    def get_http_idle_timeout_ms(self) -> int | None:
        return self._view.http_idle_timeout_ms

    def get_external_editor(self) -> str | None:
        return self._view.external_editor

    def get_fullscreen_exit_output(self) -> str:
        value = self._view.fullscreen_exit_output
        return value if value in ("transcript", "resume-hint") else "transcript"

    def set_fullscreen_exit_output(self, value: str) -> None:
        self.set("fullscreenExitOutput", value)

    def set_http_idle_timeout_ms(self, value: int) -> None:
        """0 disables the timeout (pi 1.6.0)."""
        self.set("httpIdleTimeoutMs", max(0, int(value)))

    def set_default_project_trust(self, value: str) -> None:
        """Global only, like the getter (a project cannot trust itself)."""
        self.set("defaultProjectTrust", value)

    def get_output_pad(self) -> int:
        return self._view.output_pad

    def get_show_cache_miss_notices(self) -> bool:
        return self._view.show_cache_miss_notices

    def get_default_project_trust(self) -> str:
        """Honoured only from the global file (a project cannot trust itself)."""
        value = self._raw["global"].get("defaultProjectTrust")
        return value if value in ("ask", "always", "never") else "ask"

    def get_session_store(self) -> str:
        """``sessionStore`` (issue 25): ``"jsonl"`` (default, pi's files) or ``"sqlite"``. Honoured only
        from the global file: the database holds every project's sessions."""
        value = self._raw["global"].get("sessionStore")
        return value if value in ("jsonl", "sqlite") else "jsonl"

    def get_session_database(self) -> str | None:
        """``sessionDatabase``: where the SQLite store lives (default ``<agentDir>/sessions.sqlite``)."""
        value = self._raw["global"].get("sessionDatabase")
        return paths.expand_user(value) if isinstance(value, str) and value.strip() else None

    # -- setters (global scope unless stated) ---------------------------------------------------

    def set_default_provider(self, provider: str) -> None:
        self.set("defaultProvider", provider)

    def set_default_model(self, model_id: str) -> None:
        self.set("defaultModel", model_id)

    def set_default_model_and_provider(self, provider: str, model_id: str) -> None:
        raw = self._raw["global"]
        raw["defaultProvider"] = provider
        raw["defaultModel"] = model_id
        self._modified["global"]["defaultProvider"] = None
        self._modified["global"]["defaultModel"] = None
        self._recompute()
        self._save("global")

    def set_default_thinking_level(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise ValueError(f"Unknown thinking level: {level}")
        self.set("defaultThinkingLevel", level)

    def set_transport(self, transport: str) -> None:
        self.set("transport", transport)

    def set_enabled_models(self, patterns: list[str] | None) -> None:
        self.set("enabledModels", patterns)

    def set_steering_mode(self, mode: str) -> None:
        self.set("steeringMode", mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self.set("followUpMode", mode)

    def set_theme(self, theme: str) -> None:
        self.set("theme", theme)

    def set_hide_thinking_block(self, hide: bool) -> None:
        self.set("hideThinkingBlock", hide)

    def set_compaction_enabled(self, enabled: bool) -> None:
        self.set_nested("compaction", "enabled", enabled)

    def set_retry_enabled(self, enabled: bool) -> None:
        self.set_nested("retry", "enabled", enabled)

    def set_show_images(self, show: bool) -> None:
        self.set_nested("terminal", "showImages", show)

    def set_clear_on_shrink(self, value: bool) -> None:
        self.set_nested("terminal", "clearOnShrink", value)

    def set_image_auto_resize(self, value: bool) -> None:
        self.set_nested("images", "autoResize", value)

    def set_block_images(self, value: bool) -> None:
        self.set_nested("images", "blockImages", value)

    def set_shell_path(self, value: str | None) -> None:
        self.set("shellPath", value)

    def set_enable_skill_commands(self, value: bool) -> None:
        self.set("enableSkillCommands", value)

    def set_editor_padding_x(self, value: int) -> None:
        self.set("editorPaddingX", max(0, min(3, int(value))))

    def set_autocomplete_max_visible(self, value: int) -> None:
        self.set("autocompleteMaxVisible", max(3, min(20, int(value))))

    def set_show_hardware_cursor(self, value: bool) -> None:
        self.set("showHardwareCursor", value)

    def set_double_escape_action(self, value: str) -> None:
        self.set("doubleEscapeAction", value)

    def set_tree_filter_mode(self, value: str) -> None:
        self.set("treeFilterMode", value if value in TREE_FILTER_MODES else "default")

    def set_quiet_startup(self, value: bool) -> None:
        self.set("quietStartup", value)

    def set_collapse_changelog(self, value: bool) -> None:
        self.set("collapseChangelog", value)

    def set_last_changelog_version(self, version: str) -> None:
        self.set("lastChangelogVersion", version)

    def set_output_pad(self, value: int) -> None:
        self.set("outputPad", 1 if value else 0)

    def set_show_cache_miss_notices(self, value: bool) -> None:
        self.set("showCacheMissNotices", value)

    def set_packages(self, packages: list[Any], scope: Scope = "global") -> None:
        self.set("packages", packages, scope)

    def set_extension_paths(self, values: list[str], scope: Scope = "global") -> None:
        self.set("extensions", values, scope)

    def set_skill_paths(self, values: list[str], scope: Scope = "global") -> None:
        self.set("skills", values, scope)

    def set_prompt_template_paths(self, values: list[str], scope: Scope = "global") -> None:
        self.set("prompts", values, scope)

    def set_theme_paths(self, values: list[str], scope: Scope = "global") -> None:
        self.set("themes", values, scope)
