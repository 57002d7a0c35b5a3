"""Fixtures shared by ``tests/`` and ``snapshots/``: every test runs with a throwaway HOME and
agent dir, never the real ones."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.fakes.fixtures"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    monkeypatch.setenv("PI_OFFLINE", "1")
    for var in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_OAUTH_TOKEN",
        "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "OPENROUTER_API_KEY",
        "PI_CODING_AGENT_SESSION_DIR",
        "VISUAL",
        "EDITOR",
    ):
        monkeypatch.delenv(var, raising=False)
    return home
