"""Thinking level ``max`` (pi 1.6.0) end to end, and ``modelThinkingLevels``: ``--thinking max``
reaches the wire as the model's mapped effort, a session recorded at ``max`` resumes at ``max``,
``defaultThinkingLevel: "max"`` and a per-model ``modelThinkingLevels`` entry pick the start-up level."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import text
from tests.e2e.helpers import run_pi, session_files, write_models_json

MAX_MODEL = {
    "id": "claude-opus-4-6",  # adaptive thinking: the level travels as output_config.effort
    "reasoning": True,
    "thinkingLevelMap": {"xhigh": "xhigh", "max": "max"},
}


def _levels(agent_dir: Path) -> list[str]:
    lines = [json.loads(line) for line in session_files(agent_dir)[-1].read_text().splitlines()]
    return [e["thinkingLevel"] for e in lines if e["type"] == "thinking_level_change"]


def test_thinking_max_is_sent_recorded_and_resumed(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url, api="anthropic-messages", **MAX_MODEL)
    llm_server.enqueue(text("one"))
    llm_server.enqueue(text("two"))

    first = run_pi("-p", "--thinking", "max", "hi", cwd=project)
    assert first.returncode == 0, first.stderr
    assert llm_server.requests[0].body["output_config"] == {"effort": "max"}
    assert _levels(agent_dir) == ["max"]

    again = run_pi("-p", "-c", "again", cwd=project)  # no --thinking: the session's level
    assert again.returncode == 0, again.stderr
    assert llm_server.requests[1].body["thinking"] == {"type": "adaptive"}
    assert llm_server.requests[1].body["output_config"] == {"effort": "max"}


def test_max_on_a_model_without_it_runs_at_its_highest_level(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url, api="anthropic-messages", reasoning=True)
    llm_server.enqueue(text("ok"))
    result = run_pi("-p", "--thinking", "max", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert _levels(agent_dir) == ["high"]


def test_default_and_per_model_thinking_levels(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url, api="anthropic-messages", **MAX_MODEL)
    settings = agent_dir / "settings.json"
    settings.write_text(json.dumps({"defaultThinkingLevel": "max"}))
    llm_server.enqueue(text("ok"))
    assert run_pi("-p", "hi", cwd=project).returncode == 0
    assert _levels(agent_dir) == ["max"]

    settings.write_text(
        json.dumps({"defaultThinkingLevel": "max", "modelThinkingLevels": {"fake/claude-opus-4-6": "low"}})
    )
    llm_server.enqueue(text("ok"))
    assert run_pi("-p", "hi", cwd=project).returncode == 0
    assert _levels(agent_dir) == ["low"]
    assert llm_server.requests[-1].body["output_config"] == {"effort": "low"}

    llm_server.enqueue(text("ok"))  # --thinking still wins over the per-model entry
    assert run_pi("-p", "--thinking", "xhigh", "hi", cwd=project).returncode == 0
    assert _levels(agent_dir) == ["xhigh"]
