"""``pi mcp add/remove/list/get`` from a shell (issue 22), beside what pi 1.6.0 prints."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import run_pi
from tests.mcp.servers import stdio_entry, time_command, write_mcp_json


def test_add_writes_the_entry_and_keeps_the_rest_of_the_file(agent_dir: Path, project: Path) -> None:
    path = write_mcp_json(agent_dir, {"keep": {"command": "keep-me"}}, autoEnableCodemode=False)
    result = run_pi(
        "mcp", "add", "tools", "--env", "API_KEY=${TOOLS_KEY}", "--description", "Tools", "--", "uvx", "tools-mcp", "--flag",
        cwd=project,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f'Added global MCP server "tools" in {path}.',
        "Check it with: pi mcp list",
    ]
    data = json.loads(path.read_text())
    assert data["autoEnableCodemode"] is False and data["mcpServers"]["keep"] == {"command": "keep-me"}
    assert data["mcpServers"]["tools"] == {
        "command": "uvx",
        "args": ["tools-mcp", "--flag"],
        "env": {"API_KEY": "${TOOLS_KEY}"},
        "description": "Tools",
    }
    result = run_pi(
        "mcp",
        "add",
        "docs",
        "--url",
        "https://example.com/mcp",
        "--bearer-token-env-var",
        "DOCS_TOKEN",
        "--header",
        "X-A=b",
        cwd=project,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(path.read_text())["mcpServers"]["docs"] == {
        "url": "https://example.com/mcp",
        "headers": {"X-A": "b", "Authorization": "Bearer ${DOCS_TOKEN}"},
    }
    again = run_pi("mcp", "add", "docs", "--url", "https://example.com/other", cwd=project)
    assert again.stdout.startswith('Replaced global MCP server "docs"')


def test_add_local_writes_the_project_file_and_says_it_waits_for_trust(project: Path) -> None:
    result = run_pi("mcp", "add", "-l", "loc", "--", "echo", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "is not trusted" in result.stdout
    assert json.loads((project / ".pi" / "mcp.json").read_text()) == {
        "mcpServers": {"loc": {"command": "echo", "args": ["hi"]}}
    }
    removed = run_pi("mcp", "remove", "-l", "loc", cwd=project)
    assert removed.stdout.strip() == f'Removed project MCP server "loc" from {project / ".pi" / "mcp.json"}.'


def test_bad_usage_and_unknown_names_are_one_line_and_status_1(agent_dir: Path, project: Path) -> None:
    for argv, expected in (
        (("mcp", "add", "foo"), "Usage: pi mcp add"),
        (("mcp", "add", "foo", "--url", "ftp://x"), '"url" must be an http:// or https:// URL'),
        (("mcp", "remove", "nope"), 'No global MCP server named "nope"'),
        (("mcp", "frob"), 'Unknown mcp command "frob".'),
    ):
        result = run_pi(*argv, cwd=project)
        assert result.returncode == 1, argv
        assert expected in result.stderr.splitlines()[0], result.stderr
        assert result.stdout == ""


def test_list_connects_and_reports_every_server_and_each_bad_entry(agent_dir: Path, project: Path) -> None:
    write_mcp_json(
        agent_dir,
        {
            "time": stdio_entry(time_command(), exposure="deferred", toolExposure={"convert_*": "direct"}),
            "gone": {"command": "/nonexistent/server"},
            "needs-var": {"command": "x", "env": {"K": "${PI_TEST_UNSET_VAR}"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
            "off": {"command": "x", "enabled": False},
        },
    )
    result = run_pi("mcp", "list", cwd=project, timeout=60)
    assert result.returncode == 1
    out = result.stdout
    assert "time: connected, 2 tools (deferred, global)" in out
    assert "tools: get_current_time, convert_time [direct]" in out
    assert "gone: failed (codemode, global)" in out and "not found" in out
    assert (
        'Failed to resolve MCP server "needs-var" env "K" from environment variable: PI_TEST_UNSET_VAR' in out
    )
    assert [
        line
        for line in out.splitlines()
        if line.startswith("config error:") and '"legacy"' in line and "SSE" in line
    ]
    assert "off: disabled" in out
    listed = json.loads(run_pi("mcp", "list", "--json", cwd=project, timeout=60).stdout)
    assert {s["name"]: s["state"] for s in listed["servers"]}["time"] == "connected"
    got = run_pi("mcp", "get", "time", cwd=project, timeout=60)
    assert got.returncode == 0 and "get_current_time" in got.stdout


def test_mcp_words_are_never_sent_to_the_model_as_prompts(project: Path) -> None:
    result = run_pi("mcp", "list", cwd=project)
    assert result.returncode == 0
    assert "No MCP servers configured" in result.stdout
