"""Fixtures for the black-box tests: a project folder and the throwaway agent dir pi reads."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``<tmp>/project`` with ``a.txt`` and ``b.txt`` (what the pi reference scenario listed)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("A\n")
    (root / "b.txt").write_text("B\n")
    return root


@pytest.fixture
def agent_dir(isolated_home: Path) -> Path:
    return isolated_home / ".pi" / "agent"
