"""Streaming 200 KB of markdown into the transcript: empty vs 2,000 earlier messages.

Usage: ``python benchmarks/tui_stream.py [kilobytes] [earlier_messages]``

A headless Textual app holds only the transcript (80×30). A reply of ``kilobytes`` KB of mixed
markdown (paragraphs, lists, fenced code) arrives as 40-byte deltas; like the real app, deltas
only update the message, and the screen is refreshed once per "frame" of 25 deltas (the
coalescing of R-TUI-05), each frame painted in full by Textual's compositor.

Printed: CPU seconds for the whole stream into an empty transcript, the same stream after
``earlier_messages`` finished messages (the issue's target: within 1.2×), their ratio, and how many
finished blocks were rendered during the stream (must be 0). Runs alternate (empty, full, empty,
full, …) and the median of each is reported, so a busy machine affects both alike.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from textual.app import App, ComposeResult

from pi_app.ai.types import AssistantMessage, TextContent
from pi_app.tui.transcript.view import Transcript

DELTA_BYTES = 40
DELTAS_PER_FRAME = 25


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def reply_text(kilobytes: int) -> str:
    parts: list[str] = []
    i = 0
    while sum(map(len, parts)) < kilobytes * 1024:
        parts.append(
            f"## Step {i}\n\nThe function `handle_{i}` reads the input, checks it and writes the result; "
            f"it is called from **module {i % 7}**.\n\n- first point {i}\n- second point {i}\n\n"
            f"```python\ndef handle_{i}(value):\n    return value * {i}\n```\n\n"
        )
        i += 1
    return "".join(parts)[: kilobytes * 1024]


async def stream_once(text: str, earlier: int) -> tuple[float, int]:
    app = BenchApp()
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.query_one(Transcript)
        for i in range(earlier // 2):
            transcript.add_user(f"question {i}")
            transcript.end_assistant(
                AssistantMessage(
                    content=[TextContent(text=f"Answer {i}.\n\n- a\n- b\n\n```py\nx = {i}\n```")]
                )
            )
        await pilot.pause()
        finished = list(transcript.blocks)
        before = sum(block.render_count for block in finished)
        message = AssistantMessage(content=[TextContent(text="")])
        transcript.start_assistant(message)
        started = time.process_time()
        for index in range(0, len(text), DELTA_BYTES):
            message.content[0].text = text[: index + DELTA_BYTES]
            transcript.update_assistant(message)
            if (index // DELTA_BYTES) % DELTAS_PER_FRAME == 0:
                transcript.flush()
                await pilot.pause()
        transcript.end_assistant(message)
        await pilot.pause()
        elapsed = time.process_time() - started
        rerendered = sum(block.render_count for block in finished) - before
    return elapsed, rerendered


async def main(kilobytes: int, earlier: int, rounds: int = 3) -> None:
    text = reply_text(kilobytes)
    empty: list[float] = []
    full: list[float] = []
    rerendered = 0
    for _ in range(rounds):
        empty.append((await stream_once(text, 0))[0])
        seconds, count = await stream_once(text, earlier)
        full.append(seconds)
        rerendered += count
    e, f = statistics.median(empty), statistics.median(full)
    print(f"stream of {kilobytes} KB in {DELTA_BYTES}-byte deltas, {DELTAS_PER_FRAME} deltas per frame")
    print(f"  empty transcript:          {e:7.3f} s CPU (median of {rounds})")
    print(f"  after {earlier:>5} messages:     {f:7.3f} s CPU")
    print(f"  ratio:                     {f / e:7.2f}x  (target <= 1.20x)")
    print(f"  finished blocks re-rendered during the stream: {rerendered} (target 0)")


if __name__ == "__main__":
    kb = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    earlier_messages = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    asyncio.run(main(kb, earlier_messages))
