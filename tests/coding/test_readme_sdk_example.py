"""The README's SDK example runs as written against the loopback fake LLM server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from pi_app.ai.testing import text
from tests.e2e.helpers import write_models_json

README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> str:
    section = README.read_text().split("## Python SDK", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_readme_sdk_example_streams_an_answer(llm_server, isolated_home: Path, tmp_path: Path) -> None:
    write_models_json(isolated_home / ".pi" / "agent", llm_server.base_url)
    llm_server.enqueue(text("Only a.txt is here."))
    (tmp_path / "a.txt").write_text("a")
    script = tmp_path / "example.py"
    script.write_text(_example())
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Only a.txt is here." in result.stdout
    assert "final answer: Only a.txt is here." in result.stdout
    assert "What files are in this directory?" in str(llm_server.requests[0].body)
    assert not (isolated_home / ".pi" / "agent" / "sessions").exists()  # in-memory session
