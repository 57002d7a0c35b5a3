"""Which built-in tools a run starts with: ``defaultTools``, ``--tools``, ``--exclude-tools`` (pi 1.6.0).

A tool list is read as 1.6.0 documents it (settings.md "Tools", cli.md "Tools"):

- plain entries (names or ``*`` globs) form the selection and replace what was inherited;
- ``+name`` adds and ``-name`` removes, in order, after the plain entries; a list of only such
  edits changes the inherited selection instead of replacing it;
- ``defaultTools`` layers: the user's list edits pi's defaults (``read, bash, edit, write``), the
  project's list edits the user's result (or replaces it when it has a plain entry);
- ``--tools`` with a plain entry overrides ``defaultTools``; with only edits it edits the resolved
  ``defaultTools`` selection; ``--exclude-tools`` (names or globs) then removes matches.

A plain ``--tools`` list whose entries match no built-in tool selects no built-in tool (it never
falls back to all of them); ``unmatched`` names the entries that matched nothing here so the caller
can say so once extension and MCP tools had their chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_app.coding.mcp.naming import matches_any


def is_edit(entry: str) -> bool:
    return len(entry) > 1 and entry[0] in "+-"


def _expand(entry: str, available: Sequence[str]) -> list[str]:
    if "*" in entry:
        return [name for name in available if matches_any(name, [entry])]
    return [entry] if entry in available else []


@dataclass
class ToolSelection:
    names: list[str]
    unmatched: list[str] = field(default_factory=list)  # entries that matched no tool of ``available``


def apply_tool_list(
    entries: Sequence[str], inherited: Sequence[str], available: Sequence[str]
) -> ToolSelection:
    """``entries`` applied to ``inherited`` over the tools in ``available``."""
    plain = [e for e in entries if not is_edit(e)]
    unmatched: list[str] = []
    if plain or not entries:  # an empty list selects nothing (1.6.0: disables the built-ins)
        names: list[str] = []
        for entry in plain:
            found = _expand(entry, available)
            if not found:
                unmatched.append(entry)
            names += [n for n in found if n not in names]
    else:
        names = [n for n in inherited if n in available]
    for entry in entries:
        if not is_edit(entry):
            continue
        found = _expand(entry[1:], available)
        if not found:
            unmatched.append(entry)
        if entry[0] == "+":
            names += [n for n in found if n not in names]
        else:
            names = [n for n in names if n not in found]
    return ToolSelection(names, unmatched)


def resolve_tools(
    *,
    available: Sequence[str],
    defaults: Sequence[str],
    default_tools_layers: Sequence[Sequence[str]] = (),
    cli_tools: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
) -> ToolSelection:
    """The built-in tools to activate, and the ``--tools`` entries that matched none of them."""
    names = [n for n in defaults if n in available]
    for layer in default_tools_layers:
        names = apply_tool_list(layer, names, available).names
    unmatched: list[str] = []
    if cli_tools is not None:
        chosen = apply_tool_list(cli_tools, names, available)
        names, unmatched = chosen.names, chosen.unmatched
    if exclude:
        names = [n for n in names if not matches_any(n, exclude)]
    return ToolSelection(names, unmatched)
