"""``pi mom`` as a user runs it, against the fake Slack and the fake LLM server.

The ``mom`` fixture starts ``python -m pi_app mom <workspace> --model fake/m`` in a subprocess
with its own HOME, a ``models.json`` whose provider ``fake`` points at the loopback LLM server, the
Slack tokens in the environment and ``MOM_SLACK_API_URL`` at the fake Slack's Web API.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer

from .fake_slack import APP_TOKEN, BOT_TOKEN, FakeSlack


@dataclass
class MomRun:
    slack: FakeSlack
    llm: FakeLLMServer
    workspace: Path
    home: Path
    process: subprocess.Popen[str]

    def stderr(self) -> str:
        return (self.home / "mom.log").read_text()


def _models_json(home: Path, llm: FakeLLMServer) -> None:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    provider = {
        "baseUrl": f"{llm.base_url}/v1",
        "api": "openai-completions",
        "apiKey": "k",
        "models": [{"id": "m", "contextWindow": 100000, "maxTokens": 4096}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    try:
        yield server
    finally:
        server.stop()


def start_mom(tmp_path: Path, slack: FakeSlack, llm: FakeLLMServer, *extra: str) -> MomRun:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    _models_json(home, llm)
    workspace = tmp_path / "workspace"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "MOM_", "ANTHROPIC", "OPENAI"))}
    env.update(
        HOME=str(home),
        MOM_SLACK_APP_TOKEN=APP_TOKEN,
        MOM_SLACK_BOT_TOKEN=BOT_TOKEN,
        MOM_SLACK_API_URL=slack.base_url,
        PI_OFFLINE="1",
    )
    log = open(home / "mom.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_app", "mom", str(workspace), "--model", "fake/m", *extra],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
    )
    log.close()
    run = MomRun(slack, llm, workspace, home, process)
    slack.wait_for(lambda: slack.connected or process.poll() is not None, 30, "the Socket Mode connection")
    if process.poll() is not None:
        raise AssertionError(f"pi mom exited: {run.stderr()}")
    return run


@pytest.fixture
def mom(tmp_path: Path, slack: FakeSlack, llm_server: FakeLLMServer) -> Iterator[MomRun]:
    run = start_mom(tmp_path, slack, llm_server)
    try:
        yield run
    finally:
        run.process.terminate()
        try:
            run.process.wait(15)
        except subprocess.TimeoutExpired:
            run.process.kill()
            run.process.wait(5)
