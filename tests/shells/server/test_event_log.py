"""The numbered event history behind the SSE stream (issue 24): replay after an id, the gap notice
when the asked-for events are no longer kept, and waking every waiting reader."""

from __future__ import annotations

import asyncio
import json

from pi_app.shells.server.event_log import EventLog


def test_replays_after_an_id_as_compact_rpc_lines() -> None:
    log = EventLog()
    for n in range(5):
        log.append({"type": "message_update", "n": n, "text": "你好"})
    assert [e.id for e in log.after(2)] == [3, 4, 5]
    assert log.after(5) == []
    assert log.after(2)[0].data == '{"type":"message_update","n":2,"text":"你好"}'
    assert (
        log.after(4)[0].sse()
        == b'id: 5\ndata: {"type":"message_update","n":4,"text":"\xe4\xbd\xa0\xe5\xa5\xbd"}\n\n'
    )


def test_an_id_older_than_the_kept_events_gets_a_gap_notice_first() -> None:
    log = EventLog(capacity=3)
    for n in range(10):
        log.append({"type": "e", "n": n})
    events = log.after(2)
    assert json.loads(events[0].data) == {"type": "stream_gap", "missed": [3, 7]}
    assert [e.id for e in events[1:]] == [8, 9, 10]
    assert events[0].id == 7  # resuming from the notice asks for what follows it


async def test_every_waiting_reader_wakes_on_a_new_event() -> None:
    log = EventLog()
    readers = [asyncio.ensure_future(log.wait_after(0, timeout=5)) for _ in range(3)]
    await asyncio.sleep(0)
    log.append({"type": "agent_start"})
    results = await asyncio.gather(*readers)
    assert [[e.id for e in r] for r in results] == [[1], [1], [1]]
    assert await log.wait_after(1, timeout=0.05) == []
