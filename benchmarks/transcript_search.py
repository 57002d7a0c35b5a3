"""Transcript search in a long session (issue 17): how long until every match is known, how long
the app is ever blocked on the way, and what a keystroke costs once the transcript is measured.

Usage: ``python benchmarks/transcript_search.py [messages ...]`` (default 200 and 2000)

A search needs the true height of every block, so the first query renders all of them; past
``SYNC_MEASURE_LIMIT`` unmeasured blocks that happens in slices of ``MEASURE_SLICE_S`` between
keys and paints (the bar says ``searching…``). Printed per size: wall ms from the first query to
the complete result, the longest single slice (the most a key or a paint waits), the cost of one
more keystroke, and the same-run baseline: one paint of the visible page of that transcript.
"""

from __future__ import annotations

import asyncio
import sys
import time

from benchmarks.tui_stream_rebuild import BenchApp, fill
from pi_app.tui.transcript.view import Transcript


async def measure(messages: int) -> tuple[float, float, float, float]:
    app = BenchApp()
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        fill(transcript, messages)
        await pilot.pause()
        started = time.perf_counter()
        transcript.refresh()
        await pilot.pause()
        paint_ms = (time.perf_counter() - started) * 1000
        slices: list[float] = []
        original = transcript._measure_slice

        def timed() -> None:
            begun = time.perf_counter()
            original()
            slices.append((time.perf_counter() - begun) * 1000)

        transcript._measure_slice = timed  # type: ignore[method-assign]
        started = time.perf_counter()
        state = transcript.set_search("part")
        assert state is not None
        while state.pending:
            await pilot.pause(0.001)
        full_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        transcript.set_search("part 1")
        key_ms = (time.perf_counter() - started) * 1000
        return full_ms, max(slices, default=full_ms), key_ms, paint_ms


async def main(sizes: list[int]) -> None:
    for size in sizes:
        full, longest, key, paint = await measure(size)
        print(
            f"{size:6d} messages: all matches after {full:8.1f} ms, longest block {longest:6.1f} ms, "
            f"next keystroke {key:6.1f} ms; baseline one page paint {paint:6.1f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main([int(a) for a in sys.argv[1:]] or [200, 2000]))
