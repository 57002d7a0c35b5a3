"""One retry budget (issue 19 item 9).

A failing request used to be sent 12 times: the transport's two retries under each of the session's
four attempts. As in pi 1.6.0 (``retry.provider.maxRetries`` defaults to 0) it is now sent 4 times:
the first try and ``retry.maxRetries`` (3) session retries, each one shown with its backoff.
"""

from __future__ import annotations

import json

from pi_app.ai.testing import http_error
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback

BOOM = {"error": {"type": "server_error", "message": "boom"}}


def test_a_request_that_always_fails_is_sent_four_times(tmp_path, llm_server: FakeLLMServer) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    home.write_settings({"retry": {"baseDelayMs": 10}})
    for _ in range(12):
        llm_server.enqueue(http_error(500, BOOM))

    result = home.run("--mode", "json", "hello")

    assert_no_traceback(result.stderr)
    assert len(llm_server.requests) == 4
    events = [json.loads(line) for line in result.stdout.splitlines()]
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [(e["attempt"], e["maxAttempts"]) for e in starts] == [(1, 3), (2, 3), (3, 3)]
    assert [e["delayMs"] for e in starts] == [10, 20, 40]  # the backoff the user is shown is all there is


def test_provider_retries_still_apply_when_asked_for(tmp_path, llm_server: FakeLLMServer) -> None:
    home = PiHome.make(tmp_path)
    home.point_at(llm_server.base_url)
    home.write_settings({"retry": {"enabled": False, "provider": {"maxRetries": 1}}})
    for _ in range(4):
        llm_server.enqueue(http_error(500, BOOM))

    home.run("-p", "hello")

    assert len(llm_server.requests) == 2
