"""Agent definitions: Markdown files with frontmatter."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    system_prompt: str
    model: str | None
    tools: str | None
    source: str  # user | project
    path: str


def _parse(path: Path, source: str) -> AgentDefinition | None:
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except OSError:
        return None
    meta: dict = {}
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            loaded = yaml.safe_load(text[4:end]) or {}
            meta = loaded if isinstance(loaded, dict) else {}
            body = text[text.find("\n", end + 1) + 1 :] if text.find("\n", end + 1) > 0 else ""
    name = str(meta.get("name") or path.stem)
    return AgentDefinition(
        name=name,
        description=str(meta.get("description") or ""),
        system_prompt=body.strip(),
        model=str(meta["model"]) if meta.get("model") else None,
        tools=str(meta["tools"]) if meta.get("tools") else None,
        source=source,
        path=str(path),
    )


def load_agents(user_dir: Path | None, project_dir: Path | None) -> dict[str, AgentDefinition]:
    """User agents, then project agents (which override same-named user agents)."""
    found: dict[str, AgentDefinition] = {}
    for directory, source in ((user_dir, "user"), (project_dir, "project")):
        if directory is None or not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            definition = _parse(path, source)
            if definition is not None:
                found[definition.name] = definition
    return found
