"""System prompt assembly: a pure function from pre-loaded inputs to one string (spec 30 R-SP).

No I/O, no clock, no ``os.getcwd()``: the same options give the same bytes (I8), so the provider's
prompt cache keeps hitting across days. Structure follows pi (decision D-29) in our own words:

    default path:  identity, "Available tools:", custom-tools note, "Guidelines:", pi docs block
    custom path:   the SYSTEM.md / --system-prompt text instead of all of that
    common tail:   append text, <project_context>, skills, "Current working directory: ..."

There is deliberately no date line (cache stability) and no bullet nudging the model from bash
towards grep/find/ls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pi_app.coding.resources.context_files import ContextFile

DEFAULT_SELECTED_TOOLS = ("read", "bash", "edit", "write")

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent

IDENTITY = (
    "You are an expert coding assistant working inside pi, a coding agent harness. You help the user "
    "by reading files, running commands, editing code and writing new files."
)
CUSTOM_TOOLS_NOTE = "Other tools specific to this project may also be available to you."
BASH_FOR_FILES = "Use bash for file operations such as ls, rg and find"
ALWAYS_GUIDELINES = (
    "Keep your answers concise",
    "Show file paths clearly when you work with files",
)
SKILLS_INTRO = (
    "The skills below give specialised instructions for particular tasks.",
    "When a task matches a skill's description, use the read tool to load the file at its location first.",
    "Paths inside a skill are relative to the skill's directory; use absolute paths in tool calls.",
)


class SkillLike(Protocol):
    name: str
    description: str
    file_path: str


@dataclass(frozen=True)
class SkillRef:
    """A skill as the system prompt lists it."""

    name: str
    description: str
    file_path: str
    disable_model_invocation: bool = False


@dataclass(frozen=True)
class BuildSystemPromptOptions:
    """Everything the system prompt is built from."""

    cwd: str
    custom_prompt: str | None = None
    selected_tools: Sequence[str] | None = None
    tool_snippets: Mapping[str, str] = field(default_factory=dict)
    tool_guidelines: Mapping[str, Sequence[str]] = field(default_factory=dict)
    prompt_guidelines: Sequence[str] = ()
    append_system_prompt: str | None = None
    context_files: Sequence[ContextFile] = ()
    skills: Sequence[Any] = ()
    docs_root: str | None = None  # where README.md, docs/ and examples/ live (default: the package's)


def _normalise_snippet(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(skills: Sequence[Any]) -> str:
    """The ``<available_skills>`` block (metadata only), or ``""`` when no skill may be invoked."""
    visible = [s for s in skills if not getattr(s, "disable_model_invocation", False)]
    if not visible:
        return ""
    lines = [*SKILLS_INTRO, "", "<available_skills>"]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_escape_xml(str(skill.name))}</name>",
            f"    <description>{_escape_xml(str(skill.description))}</description>",
            f"    <location>{_escape_xml(str(skill.file_path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n\n" + "\n".join(lines)


def _guidelines(tools: Sequence[str], opts: BuildSystemPromptOptions) -> list[str]:
    bullets: list[str] = []
    if "bash" in tools and not any(t in tools for t in ("grep", "find", "ls")):
        bullets.append(BASH_FOR_FILES)
    for tool in tools:
        bullets.extend(opts.tool_guidelines.get(tool, ()))
    bullets.extend(opts.prompt_guidelines)
    bullets.extend(ALWAYS_GUIDELINES)
    out: list[str] = []
    for bullet in bullets:
        text = bullet.strip()
        if text and text not in out:
            out.append(text)
    return out


def _docs_block(root: Path) -> str:
    return "\n".join(
        [
            "Documentation about pi itself (read it only when the user asks about pi: its SDK, extensions, "
            "themes, skills, TUI, keybindings, prompt templates, models, providers or packages):",
            f"- Overview: {root / 'README.md'}",
            f"- Detailed docs: {root / 'docs'}",
            f"- Examples: {root / 'examples'} (extensions, custom tools, SDK use)",
            "- Read the relevant files completely and follow the .md cross-references they contain before "
            "building anything on pi.",
        ]
    )


def _default_body(tools: Sequence[str], opts: BuildSystemPromptOptions) -> str:
    listed = [
        f"- {name}: {_normalise_snippet(opts.tool_snippets[name])}"
        for name in tools
        if _normalise_snippet(opts.tool_snippets.get(name) or "")
    ]
    tool_list = "\n".join(listed) if listed else "(none)"
    guidelines = "\n".join(f"- {g}" for g in _guidelines(tools, opts))
    root = Path(opts.docs_root) if opts.docs_root else _PACKAGE_ROOT
    return (
        f"{IDENTITY}\n\nAvailable tools:\n{tool_list}\n\n{CUSTOM_TOOLS_NOTE}"
        f"\n\nGuidelines:\n{guidelines}\n\n{_docs_block(root)}"
    )


def build_system_prompt(opts: BuildSystemPromptOptions) -> str:
    if not opts.cwd:
        raise ValueError("build_system_prompt needs a cwd")
    selected = list(opts.selected_tools) if opts.selected_tools is not None else list(DEFAULT_SELECTED_TOOLS)
    if opts.custom_prompt is not None:
        prompt = opts.custom_prompt
        read_available = opts.selected_tools is None or "read" in selected
    else:
        prompt = _default_body(selected, opts)
        read_available = "read" in selected
    if opts.append_system_prompt:
        prompt += "\n\n" + opts.append_system_prompt
    if opts.context_files:
        prompt += "\n\n<project_context>\n\n"
        for item in opts.context_files:
            prompt += (
                f'<project_instructions path="{item.path}">\n{item.content}\n</project_instructions>\n\n'
            )
        prompt += "</project_context>\n"
    if read_available:
        prompt += format_skills_for_prompt(opts.skills)
    prompt += "\nCurrent working directory: " + opts.cwd.replace("\\", "/")
    return prompt
