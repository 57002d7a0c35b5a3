"""Load through ``pi serve`` (issue 24, acceptance 2): 20 sessions at once, 5 prompts each, against
the loopback fake LLM server; no event lost or repeated on any stream (``load.check_streams``), and
a replay of the log equals the live stream. Speed and memory are measured by
``benchmarks/serve_load.py``, not here."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.llm_server import FakeLLMServer

from .helpers import make_server
from .load import check_streams, replay_matches, run_load

SESSIONS = 20
PROMPTS = 5


async def test_twenty_sessions_five_prompts_each_lose_and_repeat_no_event(tmp_path: Path) -> None:
    with FakeLLMServer() as llm:
        server = make_server(tmp_path, llm)
        try:
            result = await run_load(server, SESSIONS, PROMPTS)
            assert len({run.key for run in result.runs}) == SESSIONS
            assert len({run.pid for run in result.runs}) == SESSIONS  # one child each
            check_streams(result)
            for run in result.runs[:3]:
                assert await replay_matches(server, run)
            assert len(llm.requests) == SESSIONS * PROMPTS
        finally:
            assert server.stop() == 0
