"""A signal during the first model request keeps the prompt (issue 19 item 7).

SIGTERM, SIGHUP or SIGINT while ``pi -p`` waited for its first answer used to lose the prompt: a new
session wrote nothing until the first assistant message. The user's message is now on disk before
the request starts.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from pi_app.ai.testing import stall
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_the_first_request_keeps_the_prompt(
    tmp_path, llm_server: FakeLLMServer, signum
) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    llm_server.enqueue(stall())
    proc = home.popen("-p", "please remember this prompt")
    try:
        deadline = time.monotonic() + 30
        while not llm_server.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert llm_server.requests, "pi never sent its request"
        proc.send_signal(signum)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()

    (session,) = home.sessions()
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    users = [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]
    assert [u["content"][0]["text"] if isinstance(u["content"], list) else u["content"] for u in users] == [
        "please remember this prompt"
    ]
