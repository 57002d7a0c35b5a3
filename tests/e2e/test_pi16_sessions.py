"""Black-box: a session file pi 1.6.0 wrote (system prompt checkpoint, then context edits, a usage
entry, thinking ``max``, a compaction and an abandoned branch with its summary) continues in
``pi -p --session`` with the messages pi 1.6.0 itself sends for the same file (observed with 1.6.0
against the same fake server), and the file gains the new turn without losing a line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from tests.e2e.helpers import PI, run_pi

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "pi-reference-1.6"
    / "session-edits-compaction-branch-1.6.0.jsonl"
)


def _content(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""


def test_a_1_6_session_continues_with_the_context_1_6_sends(llm_server, project, agent_dir) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": llm_server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [
                    {"id": "m", "reasoning": True, "thinkingLevelMap": {"max": "max", "xhigh": "xhigh"}}
                ],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    session = project / "s.jsonl"
    shutil.copy(FIXTURE, session)
    before = session.read_text().splitlines()
    llm_server.enqueue(text("answer to four"))

    result = run_pi("--session", str(session), "-p", "four", cwd=project)

    assert result.returncode == 0, result.stderr
    body = llm_server.requests[0].body
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "user", "assistant", "user", "user"]
    assert "SUMMARY of one" in _content(messages[1])  # the compaction summary
    assert [_content(m) for m in messages[2:4]] == ["two, edited", "answer to two, edited"]  # context_edit
    assert "BRANCH tried three" in _content(messages[4])  # the branch summary
    assert _content(messages[5]) == "four"
    assert body["reasoning_effort"] == "max"  # the session's thinking level
    after = session.read_text().splitlines()
    assert after[: len(before)] == before
    added = [json.loads(line) for line in after[len(before) :]]
    assert [e["message"]["role"] for e in added if e["type"] == "message"][-2:] == ["user", "assistant"]


PI16 = Path(os.environ.get("PI16_BIN", "/work/ref/pi16/pi16"))


@pytest.mark.skipif(not PI16.exists(), reason="pi 1.6.0 is not installed here (PI16_BIN)")
def test_pi_1_6_continues_a_session_this_pi_wrote_with_the_same_messages(
    llm_server, project, agent_dir
) -> None:
    """The other way round: a session written here (two turns) loads in pi 1.6.0, which continues
    it with the messages this pi sends for the same continuation."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": llm_server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [
                    {"id": "m", "reasoning": True, "thinkingLevelMap": {"max": "max", "xhigh": "xhigh"}}
                ],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    session = project / "ours.jsonl"
    for prompt in ("alpha", "beta"):
        llm_server.enqueue(text(f"answer to {prompt}"))
        result = run_pi(
            "--provider", "fake", "--model", "m", "--session", str(session), "-p", prompt, cwd=project
        )
        assert result.returncode == 0, result.stderr
    shutil.copy(session, project / "theirs.jsonl")

    def sent(command: list[str], path: Path) -> list[tuple[str, str]]:
        llm_server.enqueue(text("answer to gamma"))
        env = {"HOME": os.environ["HOME"], "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
        done = subprocess.run(
            [*command, "--provider", "fake", "--model", "m", "--session", str(path), "-p", "gamma"],
            cwd=project,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return [(m["role"], _content(m)) for m in llm_server.requests[-1].body["messages"][1:]]

    ours = sent([PI], session)
    theirs = sent([str(PI16)], project / "theirs.jsonl")
    assert (
        ours
        == theirs
        == [
            ("user", "alpha"),
            ("assistant", "answer to alpha"),
            ("user", "beta"),
            ("assistant", "answer to beta"),
            ("user", "gamma"),
        ]
    )
