"""Many sessions at once through ``pi serve`` (issue 24, acceptance 2), shared by the load test and
``benchmarks/serve_load.py``.

``run_load`` opens ``sessions`` sessions at once, follows each one's event stream, sends each
``prompts`` prompts one after the other (the next when the stream has shown the run's
``agent_end``) and returns every event each stream carried. ``check_streams`` then asserts that no
event was lost or repeated: the ids of each stream are consecutive, each prompt has exactly one
``agent_start``/``agent_end`` and one user and one assistant ``message_end`` with that prompt's own
text, the streamed text deltas add up to each final answer, and a replay of the whole log from the
first id equals what was streamed live.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx

from .helpers import Event, ServeProcess, SseReader


@dataclass
class SessionRun:
    key: str
    prompts: list[str]
    events: list[tuple[int, Event]] = field(default_factory=list)
    pid: int | None = None


@dataclass
class LoadResult:
    runs: list[SessionRun]
    seconds: float
    requests: int  # HTTP requests answered (opening, prompts, reads)
    peak_kib: dict[int, int] = field(default_factory=dict)  # child pid -> VmHWM


def peak_rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


async def _one_session(client: httpx.AsyncClient, index: int, prompts: int, counter: list[int]) -> SessionRun:
    opened = await client.post("/api/sessions", json={"cwd": "."})
    assert opened.status_code == 201, opened.text
    counter[0] += 1
    run = SessionRun(opened.json()["id"], [f"session {index} prompt {n} 你好 🙂" for n in range(prompts)])
    run.pid = opened.json()["pid"]
    async with SseReader(client, run.key) as sse:
        counter[0] += 1
        for number, text in enumerate(run.prompts, start=1):
            answer = await client.post(f"/api/sessions/{run.key}/prompt", json={"message": text})
            assert answer.status_code == 200 and answer.json()["success"], answer.text
            counter[0] += 1
            await sse.wait_for_type("agent_end", number, timeout=120)
    run.events = list(sse.events)
    return run


async def run_load(server: ServeProcess, sessions: int, prompts: int) -> LoadResult:
    counter = [0]
    limits = httpx.Limits(max_connections=4 * sessions + 10, max_keepalive_connections=4 * sessions)
    async with server.client(limits=limits) as client:
        started = time.monotonic()
        runs = await asyncio.gather(*(_one_session(client, i, prompts, counter) for i in range(sessions)))
        seconds = time.monotonic() - started
        result = LoadResult(list(runs), seconds, counter[0])
        for run in runs:
            peak = peak_rss_kib(run.pid) if run.pid else None
            if peak is not None and run.pid is not None:
                result.peak_kib[run.pid] = peak
        return result


def _text(message: Event) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if part.get("type") == "text")


def check_streams(result: LoadResult) -> None:
    for run in result.runs:
        ids = [event_id for event_id, _ in run.events]
        assert ids == list(range(ids[0], ids[0] + len(ids))), f"{run.key}: ids not consecutive"
        events = [event for _, event in run.events]
        types = [event["type"] for event in events]
        assert types.count("agent_start") == types.count("agent_end") == len(run.prompts), run.key
        finals = [e["message"] for e in events if e["type"] == "message_end"]
        assert finals[0]["role"] == "system", run.key  # pi 1.6.0 announces the prompt and tools once
        finals = finals[1:]
        assert [m["role"] for m in finals] == ["user", "assistant"] * len(run.prompts), run.key
        assert [_text(m) for m in finals[0::2]] == run.prompts
        assert [_text(m) for m in finals[1::2]] == [f"echo: {p}" for p in run.prompts]
        streamed = "".join(
            e["assistantMessageEvent"].get("delta", "")
            for e in events
            if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
        )
        assert streamed == "".join(f"echo: {p}" for p in run.prompts), run.key


async def replay_matches(server: ServeProcess, run: SessionRun) -> bool:
    """The stream replayed from before the first event equals what was streamed live."""
    async with server.client() as client:
        async with SseReader(client, run.key, last_event_id=run.events[0][0] - 1) as replay:
            await replay.wait_for_type("agent_end", len(run.prompts))
            for _ in range(100):
                if len(replay.events) >= len(run.events):
                    break
                await asyncio.sleep(0.05)
    return replay.events[: len(run.events)] == run.events
