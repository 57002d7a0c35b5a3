"""YAML frontmatter of skills and prompt templates (spec 40 R-SKL-03, R-SKL-04, R-PRM-03).

Line endings are normalised to ``\\n``. Frontmatter exists only when the text starts with ``---`` and a
later line starts with ``---``; the YAML between them is parsed with PyYAML's ``safe_load`` (a
non-mapping result counts as empty) and the body is the rest after the closing line, trimmed.
Without a closing line the whole text is the body. A YAML syntax error raises ``FrontmatterError``
carrying the parser's message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class FrontmatterError(ValueError):
    """The frontmatter is not valid YAML."""


@dataclass(frozen=True)
class ParsedDocument:
    """A markdown file split into its YAML frontmatter and body."""

    frontmatter: dict[str, Any] = field(default_factory=dict)
    body: str = ""


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_frontmatter(text: str) -> ParsedDocument:
    normalised = normalise_newlines(text)
    if not normalised.startswith("---"):
        return ParsedDocument({}, normalised.strip())
    first_end = normalised.find("\n")
    if first_end < 0:
        return ParsedDocument({}, normalised.strip())
    closing = normalised.find("\n---", first_end)
    if closing < 0:
        return ParsedDocument({}, normalised.strip())
    yaml_text = normalised[first_end + 1 : closing + 1]
    closing_line_end = normalised.find("\n", closing + 1)
    body = "" if closing_line_end < 0 else normalised[closing_line_end + 1 :]
    import yaml  # imported here: only documents with a frontmatter block pay for it

    try:
        data = yaml.safe_load(yaml_text) if yaml_text.strip() else None
    except yaml.YAMLError as exc:
        raise FrontmatterError(str(exc).replace("\n", " ")) from exc
    return ParsedDocument(data if isinstance(data, dict) else {}, body.strip())


def strip_frontmatter(text: str) -> str:
    """The body only; a YAML error still strips the block (the body is what the user wants)."""
    try:
        return parse_frontmatter(text).body
    except FrontmatterError:
        normalised = normalise_newlines(text)
        first_end = normalised.find("\n")
        closing = normalised.find("\n---", first_end)
        closing_line_end = normalised.find("\n", closing + 1)
        return "" if closing_line_end < 0 else normalised[closing_line_end + 1 :].strip()
