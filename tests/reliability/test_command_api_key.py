"""A ``!command`` API key that fails is reported with the command (issue 19 item 11).

It used to say only "No API key for provider: p", leaving the user to guess that the configured
command had failed; pi 1.6.0 names the command.
"""

from __future__ import annotations

import json

from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome


def test_a_failing_key_command_is_named(tmp_path, llm_server: FakeLLMServer) -> None:
    home = PiHome.make(tmp_path)
    config = {
        "providers": {
            "corp": {
                "baseUrl": llm_server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "!pass show corp/key-that-is-not-there",
                "models": [{"id": "corp-model"}],
            }
        }
    }
    (home.agent_dir / "models.json").write_text(json.dumps(config))

    result = home.run("--model", "corp/corp-model", "-p", "hi", PATH="/usr/bin:/bin")

    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert "corp" in line and "pass show corp/key-that-is-not-there" in line
    assert llm_server.requests == []
