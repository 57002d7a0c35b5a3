"""mcp.json loading, merging and validation; tool names and exposure patterns (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.coding.mcp.config import ResolveError, load_mcp_config, resolve_env, resolve_headers
from pi_app.coding.mcp.naming import tool_exposure, tool_names


def _write(path: Path, servers: dict, **top: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **top}))


def test_project_entries_replace_or_override_user_entries_only_when_trusted(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    _write(
        agent / "mcp.json",
        {
            "internal-tools": {"command": "srv", "env": {"TOKEN": "${T}"}, "description": "Internal"},
            "docs": {"url": "https://a.example/mcp"},
        },
    )
    _write(
        project / ".pi" / "mcp.json",
        {
            "internal-tools": {"enabled": False, "exposure": "direct"},
            "docs": {"url": "https://b.example/mcp"},
        },
    )
    untrusted = load_mcp_config(agent, project, project_trusted=False)
    assert (
        untrusted.servers["internal-tools"].enabled
        and untrusted.servers["docs"].url == "https://a.example/mcp"
    )
    trusted = load_mcp_config(agent, project, project_trusted=True)
    tools = trusted.servers["internal-tools"]
    assert (tools.enabled, tools.exposure, tools.env, tools.description) == (
        False,
        "direct",
        {"TOKEN": "${T}"},
        "Internal",
    )
    assert tools.scope == "global" and tools.override_source == str(project / ".pi" / "mcp.json")
    assert (
        trusted.servers["docs"].url == "https://b.example/mcp" and trusted.servers["docs"].scope == "project"
    )


def test_bad_entries_are_one_line_each_naming_server_and_field_and_the_rest_loads(tmp_path: Path) -> None:
    _write(
        tmp_path / "mcp.json",
        {
            "ok": {"command": "srv", "timeout": 5, "exposure": "codemode-deferred"},
            "a": {"command": "srv", "args": "not-a-list"},
            "b": {"url": "http://x", "headers": {"K": 1}},
            "c": {"type": "sse", "url": "http://x/sse"},
            "d": {"command": "srv", "exposure": "everywhere"},
            "e": {"command": "srv", "timeout": -1},
            "bad name": {"command": "srv"},
            "my-srv": {"command": "srv"},
            "my_srv": {"command": "dup"},
            "f": {},
        },
    )
    config = load_mcp_config(tmp_path, None, project_trusted=False)
    assert list(config.servers) == ["ok", "my-srv"]
    assert config.servers["ok"].timeout_s == 5 and config.servers["ok"].exposure == "codemode"
    errors = "\n".join(config.errors)
    assert len(config.errors) == 8
    for needle in (
        '"a": "args"',
        '"b": "headers"',
        '"c": legacy SSE',
        '"d": "exposure"',
        '"e": "timeout"',
        '"bad name"',
        '"my_srv" is the same server as "my-srv"',
        '"f" needs either',
    ):
        assert needle in errors


def test_broken_json_is_one_error_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text("{ nope")
    config = load_mcp_config(tmp_path, None, project_trusted=False)
    assert not config.servers and len(config.errors) == 1 and "invalid JSON" in config.errors[0]


def test_variables_are_expanded_at_connect_time_and_a_missing_one_names_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path / "mcp.json",
        {
            "s": {"command": "x", "env": {"A": "pre-${PI_T1}-post"}},
            "h": {"url": "http://x", "headers": {"Authorization": "Bearer ${PI_T2}"}},
        },
    )
    config = load_mcp_config(tmp_path, None, project_trusted=False)
    monkeypatch.setenv("PI_T1", "one")
    assert resolve_env(config.servers["s"]) == {"A": "pre-one-post"}
    monkeypatch.delenv("PI_T2", raising=False)
    with pytest.raises(
        ResolveError, match='server "h" header "Authorization" from environment variable: PI_T2'
    ):
        resolve_headers(config.servers["h"])


def test_tool_names_are_sanitised_and_collisions_get_a_hash_suffix() -> None:
    names = tool_names("dev-radius", ["get.file", "get_file", "list files", "ok"])
    assert names["ok"] == "mcp__dev_radius__ok" and names["list files"] == "mcp__dev_radius__list_files"
    assert names["get.file"].startswith("mcp__dev_radius__get_file_") and names["get_file"].startswith(
        "mcp__dev_radius__get_file_"
    )
    assert names["get.file"] != names["get_file"]


def test_exact_tool_exposure_wins_over_patterns_and_the_first_pattern_wins() -> None:
    overrides = {"get_*": "codemode", "get_secret": "hidden", "*": "direct"}
    assert tool_exposure("get_secret", "deferred", overrides) == "hidden"
    assert tool_exposure("get_user", "deferred", overrides) == "codemode"
    assert tool_exposure("delete", "deferred", overrides) == "direct"
    assert tool_exposure("x", "deferred", {}) == "deferred"
