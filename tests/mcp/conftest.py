"""Fixtures of the MCP tests: the throwaway agent dir and a project folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def agent_dir(isolated_home: Path) -> Path:
    path = isolated_home / ".pi" / "agent"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root
