"""Data types of the extension system: events, handler results, records and errors (spec 40 §2.3-2.9).

Every event is a dataclass whose ``type`` is pi's event name; attributes are snake_case versions of
pi's fields. Handlers may return the typed result dataclass, a plain ``dict`` with the same
snake_case keys, or None ("no opinion"); ``pi_app.coding.extensions.results`` normalises them.

``EVENT_TYPES`` is the one catalogue (00-index.md, decision D-5): subscribing to another name gives a
warning and the handler is never called ([D-12]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.extensions.discovery import ExtensionLoadError, LoadExtensionsResult  # noqa: F401
from pi_app.coding.resources.diagnostics import PathMetadata

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class ExtensionRuntimeNotReady(RuntimeError):
    """An action method was used while extensions were still loading (R-EXT-06)."""

    def __init__(self, method: str = "") -> None:
        what = f"pi.{method}() " if method else "Extension actions "
        super().__init__(
            f"{what}cannot be used while extensions are loading; "
            "use it from an event handler, a command or a tool instead"
        )


class StaleExtensionContextError(RuntimeError):
    """A ``pi``/``ctx`` object of a torn-down runtime was used (R-EXT-22)."""

    def __init__(self, member: str = "") -> None:
        what = f" ({member})" if member else ""
        super().__init__(
            f"This extension context belongs to a replaced session or reloaded runtime{what}; "
            "use the context passed to with_session or to the new session_start handler"
        )


@dataclass
class ExtensionError:
    """A handler, command, shortcut or action failure; reported, never raised to the agent."""

    extension_path: str
    event: str
    error: str
    stack: str | None = None

    def one_line(self) -> str:
        return f'Extension "{self.extension_path}" error: {self.error}'


# ---------------------------------------------------------------------------------------------
# Registration records
# ---------------------------------------------------------------------------------------------

Handler = Callable[..., Any]


@dataclass
class RegisteredCommand:
    """A slash command an extension registered (``pi.register_command``)."""

    name: str
    handler: Callable[..., Any]
    description: str | None = None
    get_argument_completions: Callable[[str], Any] | None = None
    extension_path: str = ""


@dataclass
class RegisteredFlag:
    """A command-line flag an extension registered (``pi.register_flag``)."""

    name: str
    type: Literal["boolean", "string"]
    default: bool | str | None = None
    description: str | None = None
    extension_path: str = ""


@dataclass
class RegisteredShortcut:
    """A key shortcut an extension registered (``pi.register_shortcut``)."""

    key: str
    handler: Callable[..., Any]
    description: str | None = None
    extension_path: str = ""


@dataclass
class RegisteredTool:
    """A tool an extension registered (``pi.register_tool``), with the extension's path."""

    definition: Any  # pi_app.coding.tools.definition.ToolDefinition
    extension_path: str = ""
    source_info: PathMetadata | None = None


@dataclass
class Extension:
    """Everything one extension registered (spec 40 §2.9)."""

    path: str
    resolved_path: str
    source_info: PathMetadata = field(default_factory=PathMetadata)
    handlers: dict[str, list[Handler]] = field(default_factory=dict)
    tools: dict[str, RegisteredTool] = field(default_factory=dict)
    commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    flags: dict[str, RegisteredFlag] = field(default_factory=dict)
    shortcuts: dict[str, RegisteredShortcut] = field(default_factory=dict)
    message_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # pi.register_mcp_server (issue 22)
    warnings: list[str] = field(default_factory=list)
    setup: Callable[..., Any] | None = None  # cached factory, re-run on session replacement


@dataclass
class AutocompleteItem:
    """One completion an extension command offers for its arguments."""

    value: str
    label: str | None = None
    description: str | None = None


CommandLocation = Literal["user", "project", "path"]


@dataclass
class SlashCommandInfo:
    """A slash command as ``pi.get_commands()`` lists it."""

    name: str
    source: Literal["extension", "prompt", "skill"]
    description: str | None = None
    location: CommandLocation | None = None
    path: str | None = None


@dataclass
class ToolInfo:
    """A tool as ``pi.get_all_tools()`` lists it."""

    name: str
    description: str
    parameters: dict[str, Any]
    source_info: PathMetadata | None = None
    annotations: dict[str, Any] | None = None  # MCP tools: readOnlyHint, destructiveHint, … (issue 22)


@dataclass
class ExecResult:
    """What ``pi.exec`` returns: the command's output and exit code."""

    stdout: str
    stderr: str
    code: int
    killed: bool = False


@dataclass
class ContextUsage:
    """The context window's use as ``ctx.get_context_usage()`` reports it."""

    tokens: int | None
    context_window: int
    percent: float | None


# ---------------------------------------------------------------------------------------------
# Events (spec 40 §2.7)
# ---------------------------------------------------------------------------------------------


@dataclass
class ProjectTrustEvent:
    """The ``project_trust`` event."""

    cwd: str
    type: ClassVar[str] = "project_trust"


@dataclass
class ResourcesDiscoverEvent:
    """The ``resources_discover`` event."""

    cwd: str
    reason: Literal["startup", "reload"]
    type: ClassVar[str] = "resources_discover"


@dataclass
class SessionStartEvent:
    """The ``session_start`` event."""

    reason: Literal["startup", "reload", "new", "resume", "fork"]
    previous_session_file: str | None = None
    type: ClassVar[str] = "session_start"


@dataclass
class SessionInfoChangedEvent:
    """The ``session_info_changed`` event."""

    name: str | None
    type: ClassVar[str] = "session_info_changed"


@dataclass
class SessionBeforeSwitchEvent:
    """The ``session_before_switch`` event."""

    reason: Literal["new", "resume"]
    target_session_file: str | None = None
    type: ClassVar[str] = "session_before_switch"


@dataclass
class SessionBeforeForkEvent:
    """The ``session_before_fork`` event."""

    entry_id: str
    position: Literal["before", "at"] = "before"
    type: ClassVar[str] = "session_before_fork"


@dataclass
class SessionBeforeCompactEvent:
    """The ``session_before_compact`` event."""

    preparation: Any
    branch_entries: list[Any]
    custom_instructions: str | None
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool
    signal: AbortSignal | None = None
    type: ClassVar[str] = "session_before_compact"


@dataclass
class SessionCompactEvent:
    """The ``session_compact`` event."""

    compaction_entry: Any
    from_extension: bool
    reason: str
    will_retry: bool
    type: ClassVar[str] = "session_compact"


@dataclass
class SessionCompactFailedEvent:
    """The ``session_compact_failed`` event."""

    reason: str
    error_message: str | None
    aborted: bool
    will_retry: bool
    from_extension: bool
    type: ClassVar[str] = "session_compact_failed"


@dataclass
class SessionBeforeTreeEvent:
    """The ``session_before_tree`` event."""

    preparation: Any
    signal: AbortSignal | None = None
    type: ClassVar[str] = "session_before_tree"


@dataclass
class SessionTreeEvent:
    """The ``session_tree`` event."""

    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: Any = None
    from_extension: bool | None = None
    type: ClassVar[str] = "session_tree"


@dataclass
class SessionShutdownEvent:
    """The ``session_shutdown`` event."""

    reason: Literal["quit", "reload", "new", "resume", "fork"]
    target_session_file: str | None = None
    type: ClassVar[str] = "session_shutdown"


@dataclass
class InputEvent:
    """The ``input`` event."""

    text: str
    images: list[Any] | None = None
    source: Literal["interactive", "rpc", "extension"] = "interactive"
    streaming_behavior: Literal["steer", "followUp"] | None = None
    type: ClassVar[str] = "input"


@dataclass
class BeforeAgentStartEvent:
    """The ``before_agent_start`` event."""

    prompt: str
    images: list[Any] | None
    system_prompt: str
    system_prompt_options: Any = None
    type: ClassVar[str] = "before_agent_start"


@dataclass
class AgentStartEvent:
    """The ``agent_start`` event."""

    type: ClassVar[str] = "agent_start"


@dataclass
class TurnStartEvent:
    """The ``turn_start`` event."""

    turn_index: int
    timestamp: int
    type: ClassVar[str] = "turn_start"


@dataclass
class ContextEvent:
    """The ``context`` event."""

    messages: list[Any]
    type: ClassVar[str] = "context"


@dataclass
class BeforeProviderRequestEvent:
    """The ``before_provider_request`` event."""

    payload: Any
    type: ClassVar[str] = "before_provider_request"


@dataclass
class BeforeProviderHeadersEvent:
    """The ``before_provider_headers`` event."""

    headers: dict[str, str | None]
    type: ClassVar[str] = "before_provider_headers"


@dataclass
class AfterProviderResponseEvent:
    """The ``after_provider_response`` event."""

    status: int
    headers: dict[str, str]
    type: ClassVar[str] = "after_provider_response"


@dataclass
class MessageStartEvent:
    """The ``message_start`` event."""

    message: Any
    type: ClassVar[str] = "message_start"


@dataclass
class MessageUpdateEvent:
    """The ``message_update`` event."""

    message: Any
    assistant_message_event: Any
    type: ClassVar[str] = "message_update"


@dataclass
class MessageEndEvent:
    """The ``message_end`` event."""

    message: Any
    type: ClassVar[str] = "message_end"


@dataclass
class ToolExecutionStartEvent:
    """The ``tool_execution_start`` event."""

    tool_call_id: str
    tool_name: str
    args: Any
    type: ClassVar[str] = "tool_execution_start"


@dataclass
class ToolCallEvent:
    """The ``tool_call`` event."""

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    type: ClassVar[str] = "tool_call"


@dataclass
class ToolExecutionUpdateEvent:
    """The ``tool_execution_update`` event."""

    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: Any
    type: ClassVar[str] = "tool_execution_update"


@dataclass
class ToolResultEvent:
    """The ``tool_result`` event."""

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    content: list[Any]
    details: Any
    is_error: bool
    usage: Any = None
    type: ClassVar[str] = "tool_result"


@dataclass
class ToolExecutionEndEvent:
    """The ``tool_execution_end`` event."""

    tool_call_id: str
    tool_name: str
    result: Any
    is_error: bool
    type: ClassVar[str] = "tool_execution_end"


@dataclass
class TurnEndEvent:
    """The ``turn_end`` event."""

    turn_index: int
    message: Any
    tool_results: list[Any]
    type: ClassVar[str] = "turn_end"


@dataclass
class AgentEndEvent:
    """The ``agent_end`` event."""

    messages: list[Any]
    type: ClassVar[str] = "agent_end"


@dataclass
class AgentSettledEvent:
    """The ``agent_settled`` event."""

    type: ClassVar[str] = "agent_settled"


@dataclass
class ModelSelectEvent:
    """The ``model_select`` event."""

    model: Any
    previous_model: Any = None
    source: Literal["set", "cycle", "restore"] = "set"
    type: ClassVar[str] = "model_select"


@dataclass
class ThinkingLevelSelectEvent:
    """The ``thinking_level_select`` event."""

    level: str
    previous_level: str | None = None
    type: ClassVar[str] = "thinking_level_select"


@dataclass
class UserBashEvent:
    """The ``user_bash`` event."""

    command: str
    exclude_from_context: bool
    cwd: str
    type: ClassVar[str] = "user_bash"


@dataclass
class UiPromptStartEvent:
    """The ``ui_prompt_start`` event."""

    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None
    type: ClassVar[str] = "ui_prompt_start"


@dataclass
class UiPromptEndEvent:
    """The ``ui_prompt_end`` event."""

    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None
    type: ClassVar[str] = "ui_prompt_end"


EVENT_CLASSES: tuple[type, ...] = (
    ProjectTrustEvent,
    ResourcesDiscoverEvent,
    SessionStartEvent,
    SessionInfoChangedEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeForkEvent,
    SessionBeforeCompactEvent,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionBeforeTreeEvent,
    SessionTreeEvent,
    SessionShutdownEvent,
    InputEvent,
    BeforeAgentStartEvent,
    AgentStartEvent,
    TurnStartEvent,
    ContextEvent,
    BeforeProviderRequestEvent,
    BeforeProviderHeadersEvent,
    AfterProviderResponseEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    MessageEndEvent,
    ToolExecutionStartEvent,
    ToolCallEvent,
    ToolExecutionUpdateEvent,
    ToolResultEvent,
    ToolExecutionEndEvent,
    TurnEndEvent,
    AgentEndEvent,
    AgentSettledEvent,
    ModelSelectEvent,
    ThinkingLevelSelectEvent,
    UserBashEvent,
    UiPromptStartEvent,
    UiPromptEndEvent,
)
EVENT_TYPES: frozenset[str] = frozenset(cls.type for cls in EVENT_CLASSES)  # type: ignore[attr-defined]  # ClassVar


# ---------------------------------------------------------------------------------------------
# Handler results (typed forms; plain dicts with the same keys are accepted too)
# ---------------------------------------------------------------------------------------------


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass
class ProjectTrustResult:
    """What a ``project_trust`` handler may return."""

    trusted: Literal["yes", "no", "undecided"]
    remember: bool = False


@dataclass
class ResourcesDiscoverResult:
    """What a ``resources_discover`` handler may return."""

    skill_paths: list[str] | None = None
    prompt_paths: list[str] | None = None
    theme_paths: list[str] | None = None


@dataclass
class SessionBeforeSwitchResult:
    """What a ``session_before_switch`` handler may return."""

    cancel: bool = False


@dataclass
class SessionBeforeForkResult:
    """What a ``session_before_fork`` handler may return."""

    cancel: bool = False
    skip_conversation_restore: bool = False


@dataclass
class SessionBeforeCompactResult:
    """What a ``session_before_compact`` handler may return."""

    cancel: bool = False
    compaction: Any = None


@dataclass
class SessionBeforeTreeResult:
    """What a ``session_before_tree`` handler may return."""

    cancel: bool = False
    summary: Any = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


@dataclass
class InputResult:
    """What a ``input`` handler may return."""

    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[Any] | None = None


@dataclass
class BeforeAgentStartResult:
    """What a ``before_agent_start`` handler may return."""

    message: Any = None
    system_prompt: str | None = None


@dataclass
class ContextResult:
    """What a ``context`` handler may return."""

    messages: list[Any] | None = None


@dataclass
class MessageEndResult:
    """What a ``message_end`` handler may return."""

    message: Any = None


@dataclass
class ToolCallResult:
    """What a ``tool_call`` handler may return."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass
class ToolResultPatch:
    """Only the fields set (not ``UNSET``) replace the current values ([D-7])."""

    content: Any = UNSET
    details: Any = UNSET
    is_error: Any = UNSET
    usage: Any = UNSET


@dataclass
class UserBashResult:
    """What a ``user_bash`` handler may return."""

    operations: Any = None
    result: Any = None
