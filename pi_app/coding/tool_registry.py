"""The per-session tool registry and active list (decision D-10, spec 40 R-EXT-19, R-EXT-43, R-EXT-44).

The registry is the built-in tool definitions overlaid by the winning extension tools (an extension
tool named like a built-in replaces it). The active list decides what the model sees:

- ``allowlist`` given (``--tools``, SDK ``tools=[…]``): exactly those names that exist, in order;
- otherwise the default built-ins (``read, bash, edit, write``) plus every extension tool;
- ``no_tools``: nothing; ``no_builtin_tools``: extension tools only; ``exclude`` removes names.

``refresh`` after ``register_tool`` appends newly registered tools to the active list and never
reorders tools already active (a stable prompt prefix keeps provider caches warm).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.util.validation import is_struct_params, tool_parameters_schema
from pi_app.coding.extensions.types import RegisteredTool, ToolInfo

DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")


@dataclass
class RefreshResult:
    """What a tool registry refresh changed."""

    added: list[str] = field(default_factory=list)
    overrides: list[tuple[str, str]] = field(default_factory=list)  # (tool name, extension path), new only
    unknown: list[str] = field(default_factory=list)  # allow-list names that exist nowhere


def parameters_schema(parameters: Any) -> dict[str, Any]:
    """A JSON-Schema dict for a tool's ``parameters`` (a dict, a pydantic model class, or a
    built-in tool's ``StructParams``, whose recorded wire schema it is)."""
    if isinstance(parameters, Mapping):
        return dict(parameters)
    if is_struct_params(parameters):
        return tool_parameters_schema(parameters)
    schema_fn = getattr(parameters, "model_json_schema", None)
    if schema_fn is not None:
        return schema_fn(by_alias=True)
    return {"type": "object", "properties": {}}


class ToolRegistry:
    def __init__(
        self,
        builtins: Mapping[str, Any] | Sequence[Any],
        *,
        allowlist: Sequence[str] | None = None,
        no_tools: bool = False,
        no_builtin_tools: bool = False,
        exclude: Iterable[str] = (),
        default_active: Sequence[str] = DEFAULT_ACTIVE_TOOLS,
    ) -> None:
        items = builtins.values() if isinstance(builtins, Mapping) else builtins
        self.builtins: dict[str, Any] = {d.name: d for d in items}
        self.allowlist = list(allowlist) if allowlist is not None else None
        self.no_tools = no_tools
        self.no_builtin_tools = no_builtin_tools
        self.exclude = set(exclude)
        self.default_active = list(default_active)
        self.definitions: dict[str, Any] = dict(self.builtins)
        self.extension_tools: dict[str, RegisteredTool] = {}
        self.active: list[str] = []
        self._known_overrides: set[str] = set()
        self._initialised = False

    # -- building ----------------------------------------------------------------------------------

    def _initial_active(self) -> list[str]:
        if self.no_tools:
            return []
        if self.allowlist is not None:
            names = [n for n in self.allowlist if n in self.definitions]
        else:
            builtin = (
                [] if self.no_builtin_tools else [n for n in self.default_active if n in self.definitions]
            )
            extension = [n for n in self.extension_tools if n not in builtin]
            names = builtin + extension
        return [n for n in dict.fromkeys(names) if n not in self.exclude]

    def refresh(self, extension_tools: Sequence[RegisteredTool]) -> RefreshResult:
        """Overlay the (winning) extension tools; on later calls newly added tools become active."""
        result = RefreshResult()
        previous = set(self.extension_tools)
        self.extension_tools = {t.definition.name: t for t in extension_tools}
        self.definitions = dict(self.builtins)
        for name, tool in self.extension_tools.items():
            self.definitions[name] = tool.definition
            if name in self.builtins and name not in self._known_overrides:
                self._known_overrides.add(name)
                result.overrides.append((name, tool.extension_path))
        if not self._initialised:
            self._initialised = True
            self.active = self._initial_active()
            if self.allowlist is not None:
                result.unknown = [n for n in self.allowlist if n not in self.definitions]
            return result
        self.active = [n for n in self.active if n in self.definitions]
        if self.no_tools:
            return result
        for name in self.extension_tools:
            if name in previous or name in self.active or name in self.exclude:
                continue
            if self.allowlist is not None and name not in self.allowlist:
                continue
            self.active.append(name)
            result.added.append(name)
        return result

    # -- queries -------------------------------------------------------------------------------------

    def get(self, name: str) -> Any | None:
        return self.definitions.get(name)

    def names(self) -> list[str]:
        return list(self.definitions)

    def is_overridden_builtin(self, name: str) -> bool:
        return name in self.builtins and name in self.extension_tools

    def renderer_fallback(self, name: str) -> Any | None:
        """The built-in definition whose renderers draw an override that brings none (R-EXT-19)."""
        tool = self.extension_tools.get(name)
        if tool is None or name not in self.builtins:
            return None
        definition = tool.definition
        if getattr(definition, "render_call", None) or getattr(definition, "render_result", None):
            return None
        return self.builtins[name]

    def set_active(self, names: Sequence[str]) -> list[str]:
        """Only registry names; already-active tools keep their order, new ones are appended."""
        wanted = [n for n in dict.fromkeys(names) if n in self.definitions]
        kept = [n for n in self.active if n in wanted]
        self.active = kept + [n for n in wanted if n not in kept]
        return list(self.active)

    def active_definitions(self) -> list[Any]:
        return [self.definitions[n] for n in self.active if n in self.definitions]

    def tool_infos(self) -> list[ToolInfo]:
        out: list[ToolInfo] = []
        for name, definition in self.definitions.items():
            ext = self.extension_tools.get(name)
            out.append(
                ToolInfo(
                    name,
                    getattr(definition, "description", ""),
                    parameters_schema(getattr(definition, "parameters", None)),
                    ext.source_info if ext is not None else None,
                )
            )
        return out

    def prompt_snippets(self) -> dict[str, str]:
        """Active tools with a snippet, collapsed to one line (tools without one are omitted)."""
        out: dict[str, str] = {}
        for definition in self.active_definitions():
            snippet = getattr(definition, "prompt_snippet", None)
            if snippet and snippet.strip():
                out[definition.name] = re.sub(r"\s+", " ", snippet).strip()
        return out

    def prompt_guidelines(self) -> dict[str, list[str]]:
        """Per active tool: trimmed, non-blank guidelines, duplicates (across tools) removed."""
        seen: set[str] = set()
        out: dict[str, list[str]] = {}
        for definition in self.active_definitions():
            lines: list[str] = []
            for raw in getattr(definition, "prompt_guidelines", None) or []:
                text = str(raw).strip()
                if text and text not in seen:
                    seen.add(text)
                    lines.append(text)
            if lines:
                out[definition.name] = lines
        return out

    def agent_tools(self, get_ctx: Callable[[], Any] | None = None) -> list[Any]:
        """The active tools as agent-layer ``AgentTool``s; ``get_ctx()`` runs on every execution."""
        from pi_app.coding.tools.definition import wrap_tool_definition

        return [wrap_tool_definition(d, get_ctx) for d in self.active_definitions()]
