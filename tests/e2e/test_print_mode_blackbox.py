"""Black-box: the installed ``pi`` executable against the loopback fake LLM server.

Covers the walking skeleton's promises: a tool-using turn over both wire APIs, the session file in
pi's format, ``--no-session``, the no-provider message, JSON mode's camelCase stream, and that
``--version``/``--help`` are cheap and leave no trace on disk.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import PI, run_pi, session_files, write_models_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference"
ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def _script_ls(llm_server) -> None:
    llm_server.enqueue(text("Let me list the files."), tool_call("bash", {"command": "ls"}, id="call_0_0"))
    llm_server.enqueue(text("The directory contains a.txt and b.txt."))


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_print_mode_runs_a_tool_and_prints_the_final_answer(api, llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url, api=api)
    _script_ls(llm_server)

    result = run_pi("-p", "list files", cwd=project)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "The directory contains a.txt and b.txt.\n"
    assert len(llm_server.requests) == 2
    second = json.dumps(llm_server.requests[1].body)
    assert "a.txt\\nb.txt" in second  # the bash tool result went back to the model
    assert "list files" in json.dumps(llm_server.requests[0].body)


def test_session_file_has_pi_header_and_entries(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    _script_ls(llm_server)

    assert run_pi("-p", "list the files", cwd=project).returncode == 0

    files = session_files(agent_dir)
    assert len(files) == 1
    assert files[0].parent.name == "--" + str(project).lstrip("/").replace("/", "-") + "--"
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    header = lines[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(project)
    assert ISO_MS.match(header["timestamp"])

    fixture = [
        json.loads(line)
        for line in (FIXTURES / "session-bash_ls-print-0.73.1.jsonl").read_text().splitlines()
    ]
    shape = [(e["type"], e.get("message", {}).get("role")) for e in lines[1:]]
    assert shape == [(e["type"], e.get("message", {}).get("role")) for e in fixture[1:]]
    parent = None
    for entry, reference in zip(lines[1:], fixture[1:], strict=True):
        assert re.fullmatch(r"[0-9a-f]{8}", entry["id"])
        assert entry["parentId"] == parent
        assert ISO_MS.match(entry["timestamp"])
        assert list(entry)[:4] == ["type", "id", "parentId", "timestamp"]
        assert set(entry) == set(reference), entry["type"]
        if entry["type"] == "message":
            assert set(entry["message"]) <= set(reference["message"]) | {
                "responseId",
                "usage",
                "durationMs",  # pi 1.6.0's additions
                "thinkingLevel",
            }
        parent = entry["id"]
    tool_result = lines[5]["message"]
    assert tool_result["toolCallId"] == "call_0_0" and tool_result["isError"] is False
    assert tool_result["content"] == [{"type": "text", "text": "a.txt\nb.txt\n"}]


def test_no_session_writes_no_file(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("hello"))
    result = run_pi("--no-session", "-p", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
    assert session_files(agent_dir) == []


def test_no_provider_configured_is_one_clear_line(project, agent_dir) -> None:
    result = run_pi("-p", "hi", cwd=project)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "models.json" in lines[0]
    assert "API_KEY" in lines[0]
    assert "Traceback" not in result.stderr


def test_json_mode_streams_header_then_camel_case_events(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    _script_ls(llm_server)
    result = run_pi("--mode", "json", "list files", cwd=project)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session" and events[0]["version"] == 3
    types = [e["type"] for e in events[1:]]
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert set(end) == {"type", "toolCallId", "toolName", "result", "isError", "durationMs"}
    assert end["result"]["structuredContent"]["exit_code"] == 0
    update = next(e for e in events if e["type"] == "message_update")
    assert list(update) == ["type", "usage", "assistantMessageEvent"]  # pi 1.6.0: the delta only
    assert "contentIndex" in update["assistantMessageEvent"]
    final = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert {"stopReason", "usage", "timestamp"} <= set(final["message"])
    assert "totalTokens" in final["message"]["usage"]


def _snapshot_tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_create_nothing(flag, tmp_path, isolated_home) -> None:
    before_home, before_cwd = _snapshot_tree(isolated_home), _snapshot_tree(tmp_path)
    result = run_pi(flag, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip()
    assert _snapshot_tree(isolated_home) == before_home
    assert _snapshot_tree(tmp_path) == before_cwd


def test_version_imports_neither_textual_nor_httpx(tmp_path) -> None:
    import pi_app

    proc = subprocess.run(
        [str(Path(PI).with_name("python")), "-X", "importtime", "-m", "pi_app", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == pi_app.__version__
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not {m for m in imported if m.split(".")[0] in ("textual", "httpx")}
