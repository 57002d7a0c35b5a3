"""``pi --export`` (a self-contained HTML page that headless Chromium opens without errors) and
``pi --list-models`` against a models.json provider."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.coding.messages import BashExecutionMessage
from pi_app.coding.session.manager import SessionManager
from tests.e2e.helpers import run_pi, write_models_json

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DIFF = "-1 old line\n+1 new line\n 2 same"


def _write_session(directory: Path, cwd: Path) -> Path:
    manager = SessionManager.create(str(cwd), str(directory))
    manager.append_message(UserMessage(content=[TextContent(text="Please fix <b>main.py</b>")], timestamp=1))
    manager.append_message(
        AssistantMessage(
            content=[
                ThinkingContent(thinking="secret reasoning about the bug"),
                TextContent(text="I will **edit** it:\n\n```python\nprint('hi')\n```"),
                ToolCall(id="t1", name="edit", arguments={"path": "main.py", "edits": [{"oldText": "a"}]}),
            ],
            model="fake-model",
            stop_reason="toolUse",
            timestamp=2,
        )
    )
    manager.append_message(
        ToolResultMessage(
            tool_call_id="t1",
            tool_name="edit",
            content=[TextContent(text="Successfully replaced 1 block(s) in main.py.")],
            details={"diff": DIFF},
            timestamp=3,
        )
    )
    manager.append_message(BashExecutionMessage(command="ls", output="main.py\n", exit_code=0, timestamp=4))
    manager.append_message(
        AssistantMessage(content=[TextContent(text="Done.")], model="fake-model", timestamp=5)
    )
    path = manager.get_session_file()
    assert path is not None and Path(path).exists()
    return Path(path)


def test_export_writes_a_self_contained_page(tmp_path: Path) -> None:
    session = _write_session(tmp_path / "sessions", tmp_path)
    result = run_pi("--export", str(session), "out.html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out.html"
    assert result.stdout.strip() == f"Exported to: {out}"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert '<details class="thinking"><summary>Thinking</summary>' in page  # collapsed by default
    assert "secret reasoning" in page
    assert '<span class="add">+1 new line</span>' in page and '<span class="del">-1 old line</span>' in page
    assert "&lt;b&gt;main.py&lt;/b&gt;" in page  # message HTML is escaped, never rendered
    assert "<strong>edit</strong>" in page and "$ ls" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_export_default_name_and_missing_file(tmp_path: Path) -> None:
    session = _write_session(tmp_path / "sessions", tmp_path)
    result = run_pi("--export", str(session), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / f"pi-session-{session.stem}.html").is_file()
    missing = run_pi("--export", "nope.jsonl", cwd=tmp_path)
    assert missing.returncode == 1 and missing.stderr.strip() == "Error: File not found: nope.jsonl"


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_exported_page_opens_in_headless_chromium(tmp_path: Path) -> None:
    session = _write_session(tmp_path / "sessions", tmp_path)
    assert run_pi("--export", str(session), "page.html", cwd=tmp_path).returncode == 0
    proc = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            (tmp_path / "page.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Successfully replaced 1 block(s)" in proc.stdout
    assert "<details" in proc.stdout
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []


def test_list_models_shows_configured_models_and_filters(tmp_path: Path, isolated_home: Path) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    write_models_json(agent_dir, "http://127.0.0.1:9", contextWindow=200000, maxTokens=8192, reasoning=True)
    result = run_pi("--list-models", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert lines[1].split() == ["fake", "fake-model", "200K", "8.2K", "yes", "no"]
    assert run_pi("--list-models", "fkmdl", cwd=tmp_path).stdout.splitlines()[1].startswith("fake")
    none = run_pi("--list-models", "zzz", cwd=tmp_path)
    assert none.returncode == 0 and none.stdout.strip() == 'No models matching "zzz"'
