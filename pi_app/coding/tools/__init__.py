"""Built-in tools: definitions, factories and the shared helpers extensions reuse (spec 50 §2.3).

``create_<name>_tool(cwd, operations=None, …)`` return ``ToolDefinition``s (the extension format:
an extension can wrap or re-target one and register it under the same name). ``create_tool`` returns
the agent-layer view (``wrap_tool_definition`` without a context). Every factory takes an explicit
``cwd``; nothing here reads the process cwd. The per-session registry and the active list live in
``pi_app/coding/tool_registry.py`` (D-10).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.coding.lazy_exports import lazy_exports

# read and bash are on by default, and ToolsOptions needs their option types: their modules (and
# the helpers they import) load with the package. The other tools' modules and working parts load
# on first use (``pi -p`` with the default tools never imports grep/find/ls).
from pi_app.coding.tools.bash import (
    BashAborted,
    BashOperations,
    BashResult,
    BashTimeout,
    BashToolOptions,
    LocalBashOperations,
    create_bash_tool_definition,
    create_local_bash_operations,
    execute_user_bash,
)
from pi_app.coding.tools.definition import (
    DefinitionAgentTool,
    ToolDefinition,
    create_tool_definition_from_agent_tool,
    wrap_tool_definition,
)
from pi_app.coding.tools.path_utils import expand_path, resolve_read_path, resolve_to_cwd
from pi_app.coding.tools.read import (
    LocalReadOperations,
    ReadOperations,
    ReadToolOptions,
    create_read_tool_definition,
)
from pi_app.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)

if TYPE_CHECKING:
    from pi_app.coding.tools.edit import (
        EditOperations,
        LocalEditOperations,
        compute_edits_diff,
        prepare_edit_arguments,
    )
    from pi_app.coding.tools.edit_diff import (
        apply_edits_to_normalized_content,
        fuzzy_find_text,
        generate_diff_string,
        generate_unified_patch,
        normalize_for_fuzzy_match,
    )
    from pi_app.coding.tools.find import FindOperations, LocalFindOperations
    from pi_app.coding.tools.grep import (
        GrepMatch,
        GrepOperations,
        LocalGrepOperations,
    )
    from pi_app.coding.tools.ls import LocalLsOperations, LsOperations
    from pi_app.coding.tools.mutation_queue import with_file_mutation_queue
    from pi_app.coding.tools.output_accumulator import sanitize_output
    from pi_app.coding.tools.shell import BashSpawnContext, kill_tracked_process_groups
    from pi_app.coding.tools.tool_params import ToolParams
    from pi_app.coding.tools.write import LocalWriteOperations, WriteOperations

_LAZY_EXPORTS: dict[str, str] = {
    "EditOperations": "edit",
    "LocalEditOperations": "edit",
    "compute_edits_diff": "edit",
    "prepare_edit_arguments": "edit",
    "apply_edits_to_normalized_content": "edit_diff",
    "fuzzy_find_text": "edit_diff",
    "generate_diff_string": "edit_diff",
    "generate_unified_patch": "edit_diff",
    "normalize_for_fuzzy_match": "edit_diff",
    "FindOperations": "find",
    "LocalFindOperations": "find",
    "GrepMatch": "grep",
    "GrepOperations": "grep",
    "LocalGrepOperations": "grep",
    "LocalLsOperations": "ls",
    "LsOperations": "ls",
    "with_file_mutation_queue": "mutation_queue",
    "sanitize_output": "output_accumulator",
    "BashSpawnContext": "shell",
    "kill_tracked_process_groups": "shell",
    "ToolParams": "tool_params",  # pydantic: only for extensions' models
    "LocalWriteOperations": "write",
    "WriteOperations": "write",
}

BUILTIN_TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")
ALL_TOOL_NAMES = frozenset(BUILTIN_TOOL_NAMES)
DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")
READ_ONLY_TOOLS = ("read", "grep", "find", "ls")


def create_read_tool(
    cwd: str,
    operations: ReadOperations | None = None,
    *,
    auto_resize_images: bool = True,
    options: ReadToolOptions | None = None,
) -> ToolDefinition:
    options = options or ReadToolOptions(auto_resize_images=auto_resize_images)
    return create_read_tool_definition(cwd, operations, options)


def create_write_tool(cwd: str, operations: WriteOperations | None = None) -> ToolDefinition:
    from pi_app.coding.tools.write import create_write_tool_definition

    return create_write_tool_definition(cwd, operations)


def create_edit_tool(cwd: str, operations: EditOperations | None = None) -> ToolDefinition:
    from pi_app.coding.tools.edit import create_edit_tool_definition

    return create_edit_tool_definition(cwd, operations)


def create_bash_tool(
    cwd: str,
    operations: BashOperations | None = None,
    spawn_hook: Any = None,
    *,
    command_prefix: str | None = None,
    shell_path: str | None = None,
    expose_session_environment: bool = True,
    options: BashToolOptions | None = None,
) -> ToolDefinition:
    if options is None:
        options = BashToolOptions(
            operations=operations,
            command_prefix=command_prefix,
            spawn_hook=spawn_hook,
            shell_path=shell_path,
            expose_session_environment=expose_session_environment,
        )
    elif operations is not None or spawn_hook is not None:
        options = BashToolOptions(**{**vars(options), "operations": operations or options.operations})
        options.spawn_hook = spawn_hook or options.spawn_hook
    return create_bash_tool_definition(cwd, options)


def create_grep_tool(cwd: str, operations: GrepOperations | None = None) -> ToolDefinition:
    from pi_app.coding.tools.grep import create_grep_tool_definition

    return create_grep_tool_definition(cwd, operations)


def create_find_tool(cwd: str, operations: FindOperations | None = None) -> ToolDefinition:
    from pi_app.coding.tools.find import create_find_tool_definition

    return create_find_tool_definition(cwd, operations)


def create_ls_tool(cwd: str, operations: LsOperations | None = None) -> ToolDefinition:
    from pi_app.coding.tools.ls import create_ls_tool_definition

    return create_ls_tool_definition(cwd, operations)


@dataclass
class ToolsOptions:
    """Per-tool options for the factories; ``operations`` maps a tool name to its back end."""

    read: ReadToolOptions = field(default_factory=ReadToolOptions)
    bash: BashToolOptions = field(default_factory=BashToolOptions)
    operations: dict[str, Any] = field(default_factory=dict)


def create_tool_definition(name: str, cwd: str, options: ToolsOptions | None = None) -> ToolDefinition:
    options = options or ToolsOptions()
    ops = options.operations.get(name)
    if name == "read":
        return create_read_tool(cwd, ops, options=options.read)
    if name == "bash":
        return create_bash_tool(cwd, ops, options=options.bash)
    if name == "edit":
        return create_edit_tool(cwd, ops)
    if name == "write":
        return create_write_tool(cwd, ops)
    if name == "grep":
        return create_grep_tool(cwd, ops)
    if name == "find":
        return create_find_tool(cwd, ops)
    if name == "ls":
        return create_ls_tool(cwd, ops)
    raise ValueError(f"Unknown tool: {name}")


def create_tool(name: str, cwd: str, options: ToolsOptions | None = None) -> DefinitionAgentTool:
    """The agent-layer view of one built-in (no extension context)."""
    return wrap_tool_definition(create_tool_definition(name, cwd, options))


def create_builtin_tools(
    cwd: str, names: Any = None, options: ToolsOptions | None = None
) -> list[ToolDefinition]:
    """Definitions for ``names`` (default: all seven) in the given order; unknown names raise."""
    return [create_tool_definition(name, cwd, options) for name in (names or BUILTIN_TOOL_NAMES)]


def create_coding_tools(cwd: str, options: ToolsOptions | None = None) -> list[ToolDefinition]:
    return create_builtin_tools(cwd, DEFAULT_ACTIVE_TOOLS, options)


def create_read_only_tools(cwd: str, options: ToolsOptions | None = None) -> list[ToolDefinition]:
    return create_builtin_tools(cwd, READ_ONLY_TOOLS, options)


def create_all_tools(cwd: str, options: ToolsOptions | None = None) -> dict[str, ToolDefinition]:
    return {d.name: d for d in create_builtin_tools(cwd, BUILTIN_TOOL_NAMES, options)}


__all__ = [
    "ALL_TOOL_NAMES",
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_ACTIVE_TOOLS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "READ_ONLY_TOOLS",
    "BashAborted",
    "BashOperations",
    "BashResult",
    "BashSpawnContext",
    "BashTimeout",
    "BashToolOptions",
    "DefinitionAgentTool",
    "EditOperations",
    "FindOperations",
    "GrepMatch",
    "GrepOperations",
    "LocalFindOperations",
    "LocalGrepOperations",
    "LocalLsOperations",
    "LsOperations",
    "LocalBashOperations",
    "LocalEditOperations",
    "LocalReadOperations",
    "LocalWriteOperations",
    "ReadOperations",
    "ReadToolOptions",
    "ToolDefinition",
    "ToolParams",
    "ToolsOptions",
    "TruncationResult",
    "WriteOperations",
    "apply_edits_to_normalized_content",
    "compute_edits_diff",
    "create_all_tools",
    "create_bash_tool",
    "create_builtin_tools",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_local_bash_operations",
    "create_read_only_tools",
    "create_read_tool",
    "create_tool",
    "create_tool_definition",
    "create_tool_definition_from_agent_tool",
    "create_write_tool",
    "execute_user_bash",
    "expand_path",
    "format_size",
    "fuzzy_find_text",
    "generate_diff_string",
    "generate_unified_patch",
    "kill_tracked_process_groups",
    "normalize_for_fuzzy_match",
    "prepare_edit_arguments",
    "resolve_read_path",
    "resolve_to_cwd",
    "sanitize_output",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "with_file_mutation_queue",
    "wrap_tool_definition",
]

__getattr__ = lazy_exports(__name__, _LAZY_EXPORTS, globals())
