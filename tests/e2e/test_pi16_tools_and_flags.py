"""Tool selection as pi 1.6.0 documents it: ``defaultTools`` layers with ``+name``/``-name`` edits,
``--tools`` plain lists, edits and ``*`` patterns, ``--exclude-tools``; a list matching no tool
enables none (never all seven) and says so; ``--no-approve`` ignores project files for one run; the
bash tool sees ``PI_SESSION_ID``/``PI_PROVIDER``/``PI_MODEL`` in print mode too (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import text
from pi_app.coding.launch import LaunchOptions, active_tool_names
from pi_app.coding.settings import SettingsManager
from pi_app.coding.tool_selection import resolve_tools
from tests.e2e.helpers import run_pi, write_models_json

BUILTINS = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULTS = ("read", "bash", "edit", "write")


def _resolve(layers=(), cli=None, exclude=()):
    return resolve_tools(
        available=BUILTINS, defaults=DEFAULTS, default_tools_layers=layers, cli_tools=cli, exclude=exclude
    )


def test_default_tools_layers_edit_or_replace() -> None:
    assert _resolve([["+grep"]]).names == ["read", "bash", "edit", "write", "grep"]
    assert _resolve([["-bash", "+ls", "+grep"]]).names == ["read", "edit", "write", "ls", "grep"]
    assert _resolve([["read", "ls"]]).names == ["read", "ls"]  # a plain name replaces the defaults
    assert _resolve([["read", "ls", "+grep", "-read"]]).names == ["ls", "grep"]  # plain first, then edits
    # the project's edits apply to the user's result; a project plain list replaces it
    assert _resolve([["read", "ls"], ["+find"]]).names == ["read", "ls", "find"]
    assert _resolve([["read", "ls"], ["write"]]).names == ["write"]
    assert _resolve([[]]).names == []  # an empty list: no built-in tool


def test_cli_tools_patterns_edits_and_exclude() -> None:
    assert _resolve([["+grep"]], cli=["read"]).names == ["read"]  # plain --tools overrides defaultTools
    assert _resolve([["+grep"]], cli=["-bash"]).names == ["read", "edit", "write", "grep"]
    assert _resolve(cli=["*"]).names == list(BUILTINS)
    assert _resolve(cli=["*e*"]).names == ["read", "edit", "write", "grep"]
    assert _resolve(exclude=["b*", "write"]).names == ["read", "edit"]
    nothing = _resolve(cli=["nonsense", "also-not"])
    assert nothing.names == [] and nothing.unmatched == ["nonsense", "also-not"]


def test_launch_reads_default_tools_from_settings() -> None:
    settings = SettingsManager.in_memory({"defaultTools": ["-edit", "-write", "+grep"]})
    assert active_tool_names(LaunchOptions(), settings) == (["read", "bash", "grep"], False)
    assert active_tool_names(LaunchOptions(tools="nope"), settings) == ([], False)
    assert active_tool_names(LaunchOptions(no_builtin_tools=True), settings) == ([], False)
    assert active_tool_names(LaunchOptions(), SettingsManager.in_memory({})) == (None, False)


def test_a_tools_list_matching_nothing_enables_no_tool_and_says_so(
    llm_server, tmp_path: Path, isolated_home: Path
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("no tools here"))
    result = run_pi("-p", "--tools", "rm-rf,nuke", "hi", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Warning: --tools: no tool matches rm-rf, nuke" in result.stderr
    assert "Warning: no tools are enabled (--tools matched none)" in result.stderr
    assert not llm_server.requests[0].body.get("tools")  # not all seven: none

    (agent_dir / "settings.json").write_text(json.dumps({"defaultTools": ["+grep", "-bash"]}))
    llm_server.enqueue(text("ok"))
    assert run_pi("-p", "-xt", "write", "hi", cwd=tmp_path).returncode == 0
    names = [t["function"]["name"] for t in llm_server.requests[1].body["tools"]]
    assert names == ["read", "edit", "grep"]


def test_no_approve_ignores_project_files_for_the_run(
    llm_server, tmp_path: Path, isolated_home: Path
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    write_models_json(agent_dir, llm_server.base_url)
    (agent_dir / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "APPEND_SYSTEM.md").write_text("PROJECT-MARKER\n")
    llm_server.enqueue(text("one"))
    llm_server.enqueue(text("two"))
    assert run_pi("-p", "hi", cwd=tmp_path).returncode == 0
    result = run_pi("-p", "--no-approve", "hi", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    first, second = (json.dumps(r.body) for r in llm_server.requests)
    assert "PROJECT-MARKER" in first and "PROJECT-MARKER" not in second
    assert not (agent_dir / "trust.json").exists()  # nothing saved


def test_bash_sees_the_session_model_and_provider_in_print_mode(
    llm_server, tmp_path: Path, isolated_home: Path
) -> None:
    from pi_app.ai.testing import tool_call

    write_models_json(isolated_home / ".pi" / "agent", llm_server.base_url)
    llm_server.enqueue(
        tool_call("bash", {"command": 'echo "$PI_SESSION_ID|$PI_PROVIDER|$PI_MODEL"'}, id="c1")
    )
    llm_server.enqueue(text("done"))
    result = run_pi("-p", "env please", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    tool_result = json.dumps(llm_server.requests[1].body)
    assert "|fake|fake-model" in tool_result
    session_id = tool_result.split("|fake|fake-model")[0].rsplit('"', 1)[-1].split("\\n")[-1]
    assert len(session_id) >= 8


def test_a_failing_command_is_an_error_result_that_keeps_its_structured_content(
    llm_server, tmp_path: Path, isolated_home: Path
) -> None:
    from pi_app.ai.testing import tool_call

    write_models_json(isolated_home / ".pi" / "agent", llm_server.base_url)
    llm_server.enqueue(tool_call("bash", {"command": "echo half; exit 4"}, id="c1"))
    llm_server.enqueue(text("it failed"))
    result = run_pi("--mode", "json", "run it", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["structuredContent"]["exit_code"] == 4
    assert end["result"]["structuredContent"]["output"] == "half\n"
    assert end["result"]["content"][0]["text"] == "half\n\n\nCommand exited with code 4"
    tool_message = next(
        e for e in events if e["type"] == "message_end" and e["message"]["role"] == "toolResult"
    )
    assert tool_message["message"]["isError"] is True
