"""Black-box: a realistic pi 1.6.0 configuration (tests/fixtures/pi-reference-1.6/config-home/).

Issue 18 acceptance 2: the user's models.json, settings.json, keybindings.json and theme load
without a warning, and what they say reaches the request as pi 1.6.0 sends it (checked against
1.6.0's own request to the same fake server: headers from env and commands, ``Authorization:
Bearer`` from ``authHeader``, ``max_tokens`` from compat, no ``stream_options``, the
``qwen-chat-template`` kwargs, and ``samplingParams`` merged with the thinking level's entry).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_app.ai.testing import text
from tests.e2e.helpers import run_pi

CONFIG_HOME = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference-1.6" / "config-home"
ENV = {"FAKE_API_KEY": "k123", "TEAM_NAME": "team-a"}


def install_pi16_config(agent_dir: Path, server_url: str) -> None:
    """Copy the 1.6.0 user's files into the throwaway agent dir, pointed at the fake server."""
    shutil.copytree(CONFIG_HOME, agent_dir, dirs_exist_ok=True)
    template = agent_dir / "models.json.tmpl"
    port = server_url.rsplit(":", 1)[1]
    (agent_dir / "models.json").write_text(template.read_text().replace("@PORT@", port))
    template.unlink()


def test_print_mode_loads_the_1_6_config_without_a_warning(llm_server, project, agent_dir) -> None:
    install_pi16_config(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("hello there"))

    result = run_pi("-p", "hi", cwd=project, env=ENV)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello there\n"
    assert result.stderr == ""
    request = llm_server.requests[0]
    assert request.path == "/v1/chat/completions"
    headers = request.headers
    assert headers["authorization"] == "Bearer k123"  # authHeader + "$FAKE_API_KEY"
    assert (headers["x-team"], headers["x-static"], headers["x-cmd"], headers["x-model"]) == (
        "team-a",
        "static-value",
        "from-command",
        "fake",
    )
    body = request.body
    assert body["model"] == "fake-model" and body["max_tokens"] == 8192
    assert "stream_options" not in body  # compat.supportsUsageInStreaming false
    assert body["messages"][0]["role"] == "system"  # compat.supportsDeveloperRole false
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "preserve_thinking": True}
    assert (body["temperature"], body["top_p"]) == (0.6, 0.95)
    # modelThinkingLevels starts fake/fake-model at medium, whose samplingParamsByThinkingLevel
    # entry adds top_k (pi 1.6.0 sends exactly this body)
    assert body["top_k"] == 20


def test_thinking_off_uses_the_off_sampling_entry(llm_server, project, agent_dir) -> None:
    install_pi16_config(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("ok"))

    result = run_pi("-p", "--thinking", "off", "hi", cwd=project, env=ENV)

    assert result.returncode == 0, result.stderr
    body = llm_server.requests[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False, "preserve_thinking": True}
    assert (body["temperature"], body["top_p"]) == (0.7, 0.95) and "top_k" not in body


def test_a_broken_provider_is_named_when_asked_for(llm_server, project, agent_dir) -> None:
    install_pi16_config(agent_dir, llm_server.base_url)
    models = agent_dir / "models.json"
    models.write_text(models.read_text().replace('"contextWindow": 32000', '"contextWindow": "big"'))

    result = run_pi("-p", "--provider", "fake", "--model", "fake-model", "hi", cwd=project, env=ENV)

    assert result.returncode == 1
    assert 'Unknown provider "fake"' in result.stderr
    assert "providers.fake.models.1.contextWindow: Input should be a valid number" in result.stderr
    assert "Skipped provider(s): fake." in result.stderr
    assert not llm_server.requests


def test_a_file_that_does_not_parse_is_named_when_a_provider_is_asked_for(project, agent_dir) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text('{"providers": {"fake": {')

    result = run_pi("-p", "--provider", "fake", "hi", cwd=project)

    assert result.returncode == 1
    assert 'Unknown provider "fake"' in result.stderr
    assert "Failed to parse models.json" in result.stderr
