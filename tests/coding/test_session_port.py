"""What a shell may show of a session: snapshots built on the session's loop, published with each
batch of events (issue 21, ``pi_app.coding.session_port``)."""

from __future__ import annotations

import asyncio

from pi_app.ai.testing import delay, text, usage
from pi_app.coding.session_port import EventBatch, EventBatcher, SessionSnapshot, TimedEvent
from tests.coding.test_agent_session import make


async def test_a_turn_is_published_in_order_with_a_fresh_snapshot_per_batch() -> None:
    reply = [
        text("hello there", chunks=3),
        delay(0.1),
        text(" how are you", chunks=3),
        usage(input=1200, output=34),
    ]
    session, _provider, events = make([reply])
    batches: list[EventBatch] = []
    session.subscribe_batches(batches.append)
    await session.prompt("hi")
    await asyncio.sleep(0.05)  # the last batch goes out on the next loop turn
    delivered = [timed.event for batch in batches for timed in batch.events]
    assert delivered == events  # every event, in order, none twice
    seqs = [batch.snapshot.seq for batch in batches]
    assert seqs == sorted(set(seqs))  # one fresh snapshot per batch
    final = batches[-1].snapshot
    assert (final.model_id, final.usage.input, final.usage.output) == ("fake-model", 1200, 34)
    assert not final.busy and not final.streaming
    assert final.context_tokens == 1234 and final.context_window == 100_000
    # while the reply streamed, the snapshot said so and counted no usage yet
    streaming = [b.snapshot for b in batches if all(t.event.type == "message_update" for t in b.events)]
    assert streaming and all(s.streaming and s.busy and s.usage.input == 0 for s in streaming)


async def test_queued_messages_are_in_the_snapshot() -> None:
    session, _provider, _events = make([])
    session.steer("look at b.txt")
    session.follow_up("then summarise")
    snapshot = session.snapshot()
    assert (snapshot.steering, snapshot.follow_up) == (("look at b.txt",), ("then summarise",))
    session.clear_queue()
    assert session.snapshot().steering == ()


async def test_streamed_deltas_are_coalesced_to_a_batch_per_interval_and_other_events_are_not() -> None:
    delivered: list[EventBatch] = []
    seq = iter(range(1, 1000))
    batcher = EventBatcher(delivered.append, lambda: SessionSnapshot(seq=next(seq)), delta_interval=0.05)

    class Delta:
        type = "message_update"

    class End:
        type = "message_end"

    batcher(Delta())  # the first delta after a quiet moment goes out at once
    await asyncio.sleep(0.01)
    for _ in range(20):
        batcher(Delta())
        await asyncio.sleep(0)
    assert len(delivered) == 1  # the next deltas wait for the interval
    batcher(End())  # anything else does not wait: it takes the waiting deltas with it
    await asyncio.sleep(0)
    assert len(delivered) == 2
    assert [type(t.event).__name__ for t in delivered[1].events] == ["Delta"] * 20 + ["End"]
    assert all(isinstance(t, TimedEvent) and t.at > 0 for t in delivered[1].events)
    batcher.close()
    batcher(End())
    await asyncio.sleep(0.06)
    assert len(delivered) == 2


async def test_a_snapshot_that_cannot_be_built_does_not_lose_the_events() -> None:
    delivered: list[EventBatch] = []
    results = [SessionSnapshot(seq=1, model_id="m"), RuntimeError("broken estimate")]

    def build() -> SessionSnapshot:
        result = results.pop(0)
        if isinstance(result, Exception):
            raise result
        return result

    batcher = EventBatcher(delivered.append, build)

    class End:
        type = "message_end"

    batcher(End())
    await asyncio.sleep(0)
    batcher(End())
    await asyncio.sleep(0)
    assert [len(b.events) for b in delivered] == [1, 1]
    assert delivered[1].snapshot == delivered[0].snapshot  # the last one that could be built
