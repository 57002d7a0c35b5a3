"""Helpers for black-box tests that run the installed ``pi`` executable as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PI = str(Path(sys.executable).with_name("pi"))


def write_models_json(agent_dir: Path, base_url: str, api: str = "openai-completions", **model: Any) -> Path:
    """Point pi at a fake server through a custom provider named ``fake``."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    url = base_url + "/v1" if api in ("openai-completions", "openai-responses") else base_url
    config = {
        "providers": {
            "fake": {
                "baseUrl": url,
                "api": api,
                "apiKey": "fake-key",
                "models": [{"id": "fake-model", **model}],
            }
        }
    }
    path = agent_dir / "models.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def run_pi(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [PI, *args],
        cwd=cwd,
        env=full_env,
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def session_files(agent_dir: Path) -> list[Path]:
    root = agent_dir / "sessions"
    return sorted(root.rglob("*.jsonl")) if root.exists() else []
