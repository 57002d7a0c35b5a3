"""Agent Skills: discovery, validation, ``/skill:name`` expansion (spec 40 §2.10, R-SKL-01..14).

A skill is a Markdown file with YAML frontmatter (``name``, ``description``,
``disable-model-invocation``, anything else kept in ``extra``). Only name, description and location
reach the system prompt (``pi_app.coding.system_prompt.format_skills_for_prompt``); the body is
read when the model opens the file or the user types ``/skill:<name>``. Skills are never executed.

Discovery inside one skills root (R-SKL-01): the root's own ``*.md`` files are skills; below the
root only ``SKILL.md`` counts; a directory holding ``SKILL.md`` is one skill and nothing beneath it
is searched; a root that itself holds ``SKILL.md`` is one skill. Hidden entries, ``node_modules``,
``__pycache__`` and ignore-file matches are skipped; symlinks are followed.

Decision [D-4]: a root-level ``foo.md`` without ``name`` is called ``foo``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.coding.resources.diagnostics import PathMetadata, ResourceDiagnostic, error, warning
from pi_app.coding.resources.frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter
from pi_app.coding.resources.ignore_rules import IgnoreRules, list_entries

SKILL_FILE = "SKILL.md"
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME_CHARS = re.compile(r"^[a-z0-9-]+$")


@dataclass(frozen=True)
class Skill:
    """A loaded skill: name, description and the file it came from."""

    name: str
    description: str
    file_path: str
    base_dir: str
    source_info: PathMetadata = field(default_factory=PathMetadata)
    disable_model_invocation: bool = False
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


def validate_skill_name(name: str) -> list[str]:
    """The R-SKL-05 warnings for a name (the skill still loads)."""
    problems: list[str] = []
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _NAME_CHARS.match(name):
        problems.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def load_skill_file(path: Path, source_info: PathMetadata) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Read one skill file; problems become diagnostics carrying the path."""
    file_path = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [warning(f"cannot read skill: {exc}", file_path)]
    try:
        doc = parse_frontmatter(text)
    except FrontmatterError as exc:
        return None, [warning(f"invalid frontmatter: {exc}", file_path)]
    meta = doc.frontmatter
    default_name = path.parent.name if path.name == SKILL_FILE else path.stem
    raw_name = meta.get("name")
    name = str(raw_name).strip() if raw_name is not None and str(raw_name).strip() else default_name
    diagnostics = [warning(problem, file_path) for problem in validate_skill_name(name)]
    raw_description = meta.get("description")
    description = str(raw_description).strip() if raw_description is not None else ""
    if not description:
        return None, [*diagnostics, warning("description is required", file_path)]
    if len(description) > MAX_DESCRIPTION_LENGTH:
        diagnostics.append(
            warning(
                f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})",
                file_path,
            )
        )
    extra = {k: v for k, v in meta.items() if k not in ("name", "description", "disable-model-invocation")}
    skill = Skill(
        name=name,
        description=description,
        file_path=file_path,
        base_dir=str(path.parent),
        source_info=source_info,
        disable_model_invocation=meta.get("disable-model-invocation") is True,
        extra=extra,
    )
    return skill, diagnostics


def discover_skill_files(root: Path) -> list[Path]:
    """The skill files inside one skills root, in a stable order (R-SKL-01)."""
    root_rules = IgnoreRules().for_directory(root)
    if (root / SKILL_FILE).is_file():
        return [root / SKILL_FILE]
    found: list[Path] = []
    visited: set[str] = set()

    def walk(directory: Path, rules: IgnoreRules, at_root: bool) -> None:
        real = os.path.realpath(directory)
        if real in visited:
            return
        visited.add(real)
        rules = rules if at_root else rules.for_directory(directory)
        if not at_root and (directory / SKILL_FILE).is_file():
            found.append(directory / SKILL_FILE)
            return
        for path, is_dir in list_entries(directory, rules):
            if is_dir:
                walk(path, rules, False)
            elif at_root and path.suffix == ".md":
                found.append(path)

    walk(root, root_rules, True)
    return found


def load_skills_from_path(
    path: str | Path, source_info: PathMetadata, *, explicit: bool = False
) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """A skills root directory or one ``.md`` file. Explicit paths report R-SKL-09 problems."""
    target = Path(path)
    if not target.exists():
        return [], [error("Skill path does not exist", str(target))] if explicit else []
    if target.is_file():
        if target.suffix != ".md":
            return [], [warning("skill path is not a markdown file", str(target))]
        skill, problems = load_skill_file(target, source_info)
        return ([skill] if skill else []), problems
    skills: list[Skill] = []
    diagnostics: list[ResourceDiagnostic] = []
    for file in discover_skill_files(target):
        skill, problems = load_skill_file(file, source_info)
        diagnostics.extend(problems)
        if skill is not None:
            skills.append(skill)
    return skills, diagnostics


# ---------------------------------------------------------------------------------------------
# /skill:name expansion (R-SKL-11, R-SKL-12)
# ---------------------------------------------------------------------------------------------

SKILL_COMMAND_PREFIX = "/skill:"

_BLOCK = re.compile(
    r'\A<skill name="(?P<name>[^"]*)" location="(?P<location>[^"]*)">\n'
    r"References are relative to (?P<base>[^\n]*)\.\n\n"
    r"(?P<content>.*?)\n</skill>(?:\n\n(?P<user>.*))?\Z",
    re.DOTALL,
)


def format_skill_block(skill: Skill, body: str, args: str = "") -> str:
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n"
        f"{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block


@dataclass(frozen=True)
class SkillBlock:
    """A ``/skill:name`` invocation expanded into the message the model gets."""

    name: str
    location: str
    content: str
    user_message: str | None


def parse_skill_block(text: str) -> SkillBlock | None:
    """Recognise exactly the text ``expand_skill_command`` produces (for collapsed rendering)."""
    match = _BLOCK.match(text)
    if match is None:
        return None
    return SkillBlock(match["name"], match["location"], match["content"], match["user"])


def expand_skill_command(
    text: str,
    skills: list[Skill],
    *,
    enabled: bool = True,
    on_error: Callable[[Skill, Exception], None] | None = None,
) -> str:
    """``/skill:<name> [args]`` -> the skill block (+ args); anything else is returned unchanged."""
    if not enabled or not text.startswith(SKILL_COMMAND_PREFIX):
        return text
    rest = text[len(SKILL_COMMAND_PREFIX) :]
    name, _, args = rest.partition(" ")
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    try:
        body = strip_frontmatter(Path(skill.file_path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        if on_error is not None:
            on_error(skill, exc)
        return text
    return format_skill_block(skill, body, args.strip())
