"""A throwaway agent dir and project dir for resource-loader tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Dirs:
    agent: Path
    project: Path
    root: Path

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def skill(self, root: Path, name: str, description: str = "A skill") -> Path:
        return self.write(
            root / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\nBody of {name}\n"
        )


@pytest.fixture
def dirs(tmp_path: Path, isolated_home: Path) -> Dirs:
    agent = isolated_home / ".pi" / "agent"
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    agent.mkdir(parents=True)
    return Dirs(agent, project, tmp_path)
