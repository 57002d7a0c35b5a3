"""``/mcp`` in the app (issue 22): the servers with their state, a server's tools, enable/disable
saved to mcp.json, and a failing server reported in one line while the app goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.coding.launch import LaunchOptions
from pi_app.tui.app import PiApp
from pi_app.tui.selectors.choice import ChoiceSelector
from tests.mcp.servers import time_command
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import notes


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    models = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "local-model"}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    command = time_command()
    servers = {
        "time": {"command": command[0], "args": command[1:], "exposure": "direct", "description": "Clock"},
        "gone": {"command": "/nonexistent/mcp-server"},
        "off": {"command": "x", "enabled": False},
    }
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers, "keep": 1}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    cwd = tmp_path / "proj"
    cwd.mkdir()
    return cwd, agent_dir


def _selector(app: PiApp, title: str) -> ChoiceSelector | None:
    found = [w for w in app.query(ChoiceSelector) if w.title.startswith(title)]
    return found[0] if found else None


async def test_mcp_lists_servers_attention_first_and_shows_a_servers_tools(setup: tuple[Path, Path]) -> None:
    cwd, agent_dir = setup
    app = PiApp(
        LaunchOptions(no_session=True, cwd=str(cwd)), cwd=str(cwd), animate=False, agent_dir=agent_dir
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None, 20)
        # the dead server is one warning line; the app goes on
        await wait_for(pilot, lambda: 'MCP server "gone" failed' in notes(app), 30)
        assert len([line for line in notes(app).splitlines() if '"gone"' in line]) == 1
        await wait_for(pilot, lambda: app.session.mcp.connections["time"].state == "connected", 30)
        await pilot.press(*"/mcp", "enter")
        await wait_for(pilot, lambda: _selector(app, "MCP servers") is not None, 10)
        listing = _selector(app, "MCP servers")
        assert listing is not None
        assert listing.options[0].startswith("gone — failed")
        assert listing.options[1] == "time — connected, 2 tools (direct, global)"
        assert listing.options[2] == "off — disabled (codemode, global)"
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: _selector(app, "time —") is not None, 10)
        await pilot.press("enter")  # Tools and connection details
        await wait_for(pilot, lambda: "mcp__time__get_current_time" in notes(app), 10)
        assert "mcp__time__convert_time (direct)" in notes(app)
        await pilot.press(*"/mcp disable time", "enter")
        await wait_for(pilot, lambda: app.session.mcp.connections["time"].state == "disabled", 10)
    data = json.loads((agent_dir / "mcp.json").read_text())
    assert data["mcpServers"]["time"]["enabled"] is False and data["keep"] == 1
    assert data["mcpServers"]["time"]["description"] == "Clock"  # the rest of the entry is kept


async def test_reload_picks_up_a_server_added_to_mcp_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    models = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "local-model"}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    cwd = tmp_path / "proj"
    cwd.mkdir()
    app = PiApp(
        LaunchOptions(no_session=True, cwd=str(cwd)), cwd=str(cwd), animate=False, agent_dir=agent_dir
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert app.session.mcp is None  # nothing configured: nothing of MCP runs
        command = time_command()
        (agent_dir / "mcp.json").write_text(
            json.dumps({"mcpServers": {"time": {"command": command[0], "args": command[1:]}}})
        )
        await pilot.press(*"/reload", "enter")
        await wait_for(
            pilot,
            lambda: app.session.mcp is not None and app.session.mcp.connections["time"].state == "connected",
            30,
        )


async def test_progress_of_a_long_mcp_call_shows_in_its_tool_block(tmp_path: Path) -> None:
    import json as _json

    from pi_app.ai.testing import text as say
    from pi_app.ai.testing import tool_call
    from pi_app.coding.mcp import attach_mcp
    from tests.mcp.servers import everything_command
    from tests.tui.test_app_flows import make_app, started

    command = everything_command()
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "mcp.json").write_text(
        _json.dumps(
            {"mcpServers": {"everything": {"command": command[0], "args": ["stdio"], "exposure": "direct"}}}
        )
    )
    script = [
        [
            tool_call(
                "mcp__everything__trigger_long_running_operation", {"duration": 6, "steps": 6}, id="call-long"
            )
        ],
        [say("Finished.")],
    ]
    app, _ = make_app(tmp_path, script, agent_dir=agent_dir)
    async with app.run_test(size=(110, 36)) as pilot:
        await started(pilot, app)
        await app.bridge.request(
            lambda s: attach_mcp(
                s, agent_dir=agent_dir, cwd=str(tmp_path), project_trusted=False, report=lambda line: None
            )
        )
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "progress 2/6" in notes(app) or "progress 3/6" in notes(app), 40)
        await wait_for(pilot, lambda: "Finished." in notes(app) and not app.is_working, 40)
        assert "Long running operation completed" in notes(app)
        app.session.mcp.kill()
