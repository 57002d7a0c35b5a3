"""Prompt templates: ``/name args`` with positional substitution (spec 40 §2.11, R-PRM-01..09).

A template is a Markdown file; its name is the file name without ``.md``; its description is the
frontmatter ``description`` or else the first non-empty body line (at most 60 characters, ``...``
appended when cut). Placeholders: ``$1``, ``$2`` … (1-based), ``$@`` and ``$ARGUMENTS`` (all
arguments joined by one space), ``${@:N}`` (from position N) and ``${@:N:L}`` (L arguments from N),
and pi 1.6.0's defaults ``${1:-text}`` (argument 1, or ``text`` when it is missing or empty) and
``${@:-text}`` (all arguments, or ``text`` when there are none).
Substitution is one pass over the template text, so an argument containing ``$1`` stays literal.

Arguments follow pi 1.6.0's shell-like quoting: a quote opens quoting only at the start of an
argument (``doesn't`` stays one word), a quote that is never closed is kept as text, and inside a
quoted argument a backslash before that same quote character keeps the quote as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pi_app.coding.resources.diagnostics import PathMetadata, ResourceDiagnostic, error, warning
from pi_app.coding.resources.frontmatter import FrontmatterError, parse_frontmatter
from pi_app.coding.resources.ignore_rules import discover_files

DESCRIPTION_LIMIT = 60

_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$\{(\d+|@):-([^}]*)\}|\$ARGUMENTS|\$@|\$(\d+)")


@dataclass(frozen=True)
class PromptTemplate:
    """A loaded prompt template (``/name``)."""

    name: str
    description: str
    content: str
    file_path: str
    source_info: PathMetadata = field(default_factory=PathMetadata)


def describe(body: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= DESCRIPTION_LIMIT else line[:DESCRIPTION_LIMIT] + "..."
    return ""


def load_prompt_template(
    path: Path, source_info: PathMetadata
) -> tuple[PromptTemplate | None, list[ResourceDiagnostic]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [warning(f"cannot read prompt template: {exc}", str(path))]
    try:
        doc = parse_frontmatter(text)
    except FrontmatterError as exc:
        return None, [warning(f"invalid frontmatter: {exc}", str(path))]
    raw = doc.frontmatter.get("description")
    description = str(raw).strip() if raw is not None and str(raw).strip() else describe(doc.body)
    return PromptTemplate(path.stem, description, doc.body, str(path), source_info), []


def discover_template_files(directory: Path, *, recursive: bool) -> list[Path]:
    return discover_files(directory, ".md", recursive=recursive)


def load_prompt_templates_from_path(
    path: str | Path, source_info: PathMetadata, *, recursive: bool, explicit: bool = False
) -> tuple[list[PromptTemplate], list[ResourceDiagnostic]]:
    """A directory (non-recursive for the auto dirs, recursive otherwise) or one ``.md`` file."""
    target = Path(path)
    if not target.exists():
        return [], [error("Prompt template path does not exist", str(target))] if explicit else []
    files = [target] if target.is_file() else discover_template_files(target, recursive=recursive)
    templates: list[PromptTemplate] = []
    diagnostics: list[ResourceDiagnostic] = []
    for file in files:
        if file.suffix != ".md":
            continue
        template, problems = load_prompt_template(file, source_info)
        diagnostics.extend(problems)
        if template is not None:
            templates.append(template)
    return templates, diagnostics


# ---------------------------------------------------------------------------------------------
# Arguments and expansion
# ---------------------------------------------------------------------------------------------


def parse_command_args(text: str) -> list[str]:
    """R-PRM-06 with pi 1.6.0's quoting: spaces/tabs split; a ``"`` or ``'`` at the start of an
    argument quotes up to the matching quote (``\\"`` inside keeps a quote); an unclosed quote is
    text; empty quotes give nothing."""
    args: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in (" ", "\t"):
            i += 1
            continue
        quote = text[i]
        if quote in ('"', "'"):
            value, end = _quoted(text, i + 1, quote)
            if end is not None:
                args.append(value)
                i = end
                continue
        start = i
        while i < n and text[i] not in (" ", "\t"):
            i += 1
        args.append(text[start:i])
    return args


def _quoted(text: str, start: int, quote: str) -> tuple[str, int | None]:
    """The value of a quoted argument from ``start`` and the index after its closing quote (None
    when it is never closed)."""
    out: list[str] = []
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == quote:
            out.append(quote)
            i += 2
            continue
        if ch == quote:
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    return "", None


def substitute_args(content: str, args: list[str]) -> str:
    """R-PRM-07 in one pass (values are never re-scanned)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(5) is not None:
            index = int(match.group(5)) - 1
            return args[index] if 0 <= index < len(args) else ""
        if match.group(3) is not None:
            default = match.group(4)
            if match.group(3) == "@":
                return " ".join(args) if args else default
            index = int(match.group(3)) - 1
            value = args[index] if 0 <= index < len(args) else ""
            return value or default
        if match.group(1) is not None:
            start = max(int(match.group(1)), 1) - 1
            if match.group(2) is not None:
                return " ".join(args[start : start + int(match.group(2))])
            return " ".join(args[start:])
        return " ".join(args)

    return _PLACEHOLDER.sub(replace, content)


def expand_prompt_template(text: str, templates: list[PromptTemplate]) -> str:
    """``/name args`` -> the template with arguments; unknown names leave the text unchanged."""
    if not text.startswith("/"):
        return text
    name, _, args = text[1:].partition(" ")
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(args))
