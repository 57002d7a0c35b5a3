"""Rebuilding the transcript (R-TR-10): clear, add N finished messages, paint once.

Usage: ``python benchmarks/tui_stream_rebuild.py [messages ...]`` (default 200 and 2000)

What a user waits for after ``/tree``, ``/resume`` or a compaction: the transcript is cleared and
refilled from the session context, then the screen is painted. Blocks are laid out lazily, so only
what is on screen is rendered. Printed per size: wall milliseconds from clear to painted frame
(target for 200 messages: < 200 ms), blocks rendered, and the same-run baseline: one paint of a
transcript holding a single message.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from textual.app import App, ComposeResult

from pi_app.ai.types import AssistantMessage, TextContent
from pi_app.tui.transcript.view import Transcript


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def fill(transcript: Transcript, messages: int) -> None:
    for i in range(messages // 2):
        transcript.add_user(f"question {i}: what about part {i}?")
        answer = (
            f"Part **{i}** works like this.\n\n- one\n- two\n\n```python\nvalue = {i}\n```\n\nThat is all."
        )
        transcript.end_assistant(AssistantMessage(content=[TextContent(text=answer)]))


async def rebuild_ms(messages: int, rounds: int = 5) -> tuple[float, int]:
    app = BenchApp()
    timings: list[float] = []
    rendered = 0
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        for _ in range(rounds):
            fill(transcript, messages)
            await pilot.pause()
            started = time.perf_counter()
            transcript.clear_blocks()
            fill(transcript, messages)
            await pilot.pause()  # waits for the frame to be composed and painted
            timings.append((time.perf_counter() - started) * 1000)
            rendered = sum(1 for block in transcript.blocks if block.render_count)
    return statistics.median(timings), rendered


async def main(sizes: list[int]) -> None:
    baseline, _ = await rebuild_ms(1)
    print(f"baseline (clear + 1 message + paint): {baseline:7.1f} ms")
    for size in sizes:
        ms, rendered = await rebuild_ms(size)
        print(
            f"rebuild of {size:>5} messages:        {ms:7.1f} ms  ({rendered} blocks rendered; target < 200 ms for 200)"
        )


if __name__ == "__main__":
    asyncio.run(main([int(a) for a in sys.argv[1:]] or [200, 2000]))
