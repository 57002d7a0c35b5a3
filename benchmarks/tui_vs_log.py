"""The full-screen app against a bare Textual ``Log``: first paint, and a 200 KB streamed answer.

Usage: ``.venv/bin/python benchmarks/tui_vs_log.py [rounds] [kilobytes] [paint|stream]`` (defaults
5, 200 and both parts).
Prints figures only. Issue 9, acceptance 4: first paint under 0.5 s; streaming within 2x of the
bare widget. Every pi figure is taken in the same run as its ``Log`` baseline, rounds alternating
(pi, Log, pi, Log, ...), medians reported, so a busy machine affects both alike.

**First paint.** The installed ``pi`` command is started on a pseudo-terminal of 120x40 (the
emulator of ``tests/tui_term/pty_terminal.py``, which answers the start-up probe the way a terminal
does) with a throwaway HOME whose ``models.json`` points at the loopback fake server; as in
``startup.py`` the children may write bytecode and one unmeasured warm-up run comes first. Timed from
just before the fork to the first moment the emulated screen shows pi's header (``pi vX``: the
first frame), and to the moment the footer names the model (the session is ready). The baseline
is a minimal Textual app, started the same way by the same interpreter, whose ``Log`` shows one
line on mount.

**Streaming.** A ``kilobytes`` KB Markdown answer (headings, paragraphs with inline code and bold,
lists, fenced Python) arrives in 5-character chunks, as fast as they can be delivered, into a
headless app of 120x40. Timed from the first chunk (for pi: from pressing Enter on the prompt)
until the last one is in the widget and the frame is painted; printed as wall seconds and as CPU
seconds of the whole benchmark process (all threads), the steadier figure on a shared machine:

* ``Log``: a thread posts each chunk to a bare app that ``write``s it into a ``Log``.
* ``transcript``: the same thread and chunks, each applied to the assistant message and passed to
  ``Transcript.update_assistant`` (what the app does for a ``message_update`` event).
* ``pi app``: the real ``PiApp`` and ``AgentSession`` over the scripted provider: a prompt is
  submitted, the provider streams the answer in 5-character text deltas, the agent turns each
  into a ``message_update`` event, the bridge posts it across threads and the app's event
  handler updates the transcript. This is the figure the target applies to.

The streamed text is checked: the run only ends when the transcript holds exactly the answer.

Measured 2026-11-30 on the shared 2-core machine (load average about 2), each part in one run:
first paint (9 rounds), pi's first frame 0.34 s wall / 0.30 s CPU against 0.31 s / 0.29 s for the
bare Log app (1.11x wall; the session is ready, model in the footer, at 0.95 s). Before the first
frame stopped waiting for the message types, pydantic_core, the regex module, the dialog widgets,
the slash commands and argparse, a same-run comparison gave 0.50 s against 0.37 s (1.35x; 1.9x on
the busier machine of an earlier run). Streaming 200 KB (3 rounds): pi app 6.8 s CPU /
7.3 s wall against the bare Log's 7.9 s / 8.3 s (0.87x; the transcript alone 0.55x); before the
per-frame fixes it was 1.93x.

Issue 21 (the app split, the typed boundary), 2026-12-06, the tree before it (0ccc5d3, run with
``PYTHONPATH``) then main, one run each of 5 rounds: first frame 0.445 s = 1.45x of the Log app
before, 0.459 s = 1.40x after; ready 1.172 s before, 0.680 s after; streaming 200 KB, pi app CPU
0.89x of the Log before, 1.06x after. On this shared machine the bare Log's own CPU moved from
13.3 s to 19.7 s between rounds of one afternoon, so three more alternating single rounds were
taken: pi app 0.98x / 1.05x / 1.22x before, 1.15x / 0.83x / 0.78x after. The medians of the
four figures of each side (before 1.02x, after 0.95x) show no slowdown; the noise is larger than
the 5 % bound.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult
from textual.message import Message
from textual.widgets import Log

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app import __version__  # noqa: E402
from pi_app.ai.testing import text  # noqa: E402
from pi_app.ai.types import AssistantMessage, TextContent  # noqa: E402
from pi_app.tui.app import PiApp  # noqa: E402
from pi_app.tui.transcript.blocks import AssistantBlock  # noqa: E402
from pi_app.tui.transcript.view import Transcript  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402
from tests.reliability.helpers import PiHome  # noqa: E402
from tests.tui.fakes import fake_session_factory  # noqa: E402
from tests.tui_term.pty_terminal import PtyTerminal  # noqa: E402

PI = str(Path(sys.executable).with_name("pi"))
SIZE = (120, 40)
CHUNK = 5
FIRST_PAINT_TARGET = 0.5
STREAM_TARGET = 2.0

BARE_LOG_APP = """
from textual.app import App
from textual.widgets import Log

class BareLog(App):
    def compose(self):
        yield Log()

    def on_mount(self):
        self.query_one(Log).write_line("bare log ready")

BareLog().run()
"""


# -- first paint ---------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process ``pid`` has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_screen(
    argv: list[str], env: dict[str, str], cwd: Path, markers: list[str]
) -> list[tuple[float, float]]:
    """(wall, CPU) seconds from launch until each marker is on the emulated screen (in order)."""
    started = time.perf_counter()
    term = PtyTerminal(argv, size=SIZE, env=env, cwd=str(cwd))
    times: list[tuple[float, float]] = []
    try:
        for marker in markers:
            term.wait_for(lambda m=marker: m in term.text(), timeout=60, interval=0.002)
            times.append((time.perf_counter() - started, cpu_seconds(term.pid)))
    finally:
        term.close()
    return times


def first_paint(rounds: int) -> None:
    server = FakeLLMServer().start()
    with tempfile.TemporaryDirectory(prefix="tui-vs-log-") as tmp:
        home = PiHome.make(Path(tmp))
        home.point_at(server.base_url)
        env = home.env()
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed pi has its .pyc files (see startup.py);
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the pty child starts from os.environ plus env
        header: list[tuple[float, float]] = []
        ready: list[tuple[float, float]] = []
        bare: list[tuple[float, float]] = []
        time_to_screen([PI], env, home.project, [f"pi v{__version__}"])  # warm-up: bytecode, disk cache
        for _ in range(rounds):
            first, footer = time_to_screen([PI], env, home.project, [f"pi v{__version__}", "fake-model"])
            header.append(first)
            ready.append(footer)
            bare.append(time_to_screen([sys.executable, "-c", BARE_LOG_APP], env, home.project, ["ready"])[0])
    server.stop()

    def median(samples: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)

    (h, hc), (r, rc), (b, bc) = median(header), median(ready), median(bare)
    print(
        f"first paint, launch to frame on a {SIZE[0]}x{SIZE[1]} pty (median of {rounds}; wall / child CPU):"
    )
    print(f"  pi, first frame (header):      {h:6.3f} s / {hc:5.2f} s   (target < {FIRST_PAINT_TARGET} s)")
    print(f"  pi, model in footer (ready):   {r:6.3f} s / {rc:5.2f} s")
    print(f"  bare Textual Log app:          {b:6.3f} s / {bc:5.2f} s   (pi first frame = {h / b:4.2f}x)")


# -- streaming -----------------------------------------------------------------------------------


def markdown_answer(kilobytes: int) -> str:
    parts: list[str] = []
    size, i = 0, 0
    while size < kilobytes * 1024:
        part = (
            f"## Step {i}\n\nThe function `handle_{i}` reads the input, checks it and writes the result; "
            f"it is called from **module {i % 7}** whenever a request arrives.\n\n"
            f"- first point {i}\n- second point with `code {i}`\n\n"
            f"```python\ndef handle_{i}(value):\n    return value * {i}\n```\n\n"
        )
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts)[: kilobytes * 1024]


def chunks_of(answer: str) -> list[str]:
    return [answer[i : i + CHUNK] for i in range(0, len(answer), CHUNK)]


@dataclass
class Chunk(Message):
    text: str


class Done(Message):
    pass


class Feeder:
    """A thread posting every chunk, then ``Done``, to an app (like the agent thread does)."""

    def __init__(self, app: App[None], chunks: list[str]) -> None:
        self.app, self.chunks = app, chunks
        self.finished = asyncio.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        for chunk in self.chunks:
            self.app.post_message(Chunk(chunk))
        self.app.post_message(Done())


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Log()

    def on_chunk(self, message: Chunk) -> None:
        self.query_one(Log).write(message.text)

    def on_done(self, message: Done) -> None:
        self.feeder.finished.set()


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()

    def on_mount(self) -> None:
        self.message = AssistantMessage(content=[TextContent(text="")])
        self.query_one(Transcript).start_assistant(self.message)

    def on_chunk(self, message: Chunk) -> None:
        self.message.content[0].text += message.text
        self.query_one(Transcript).update_assistant(self.message)

    def on_done(self, message: Done) -> None:
        self.query_one(Transcript).end_assistant(self.message)
        self.feeder.finished.set()


async def stream_fed(app_class: type[LogApp] | type[TranscriptApp], chunks: list[str]) -> tuple[float, float]:
    app = app_class()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.feeder = Feeder(app, chunks)  # type: ignore[attr-defined]
        started, cpu = time.perf_counter(), time.process_time()
        app.feeder.start()  # type: ignore[attr-defined]
        await app.feeder.finished.wait()  # type: ignore[attr-defined]
        await pilot.pause()  # the last frame is painted
        return time.perf_counter() - started, time.process_time() - cpu


async def stream_pi_app(answer: str, cwd: str) -> tuple[float, float]:
    factory, _ = fake_session_factory(cwd, [[text(answer, chunks=len(answer) // CHUNK)]])
    app = PiApp(session_factory=factory, cwd=cwd, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        while app.session is None:
            await pilot.pause(0.01)
        await pilot.pause()
        transcript = app.transcript
        started, cpu = time.perf_counter(), time.process_time()
        app.router.submit("go")

        def done() -> bool:
            blocks = transcript.blocks_of(AssistantBlock)
            return bool(blocks) and transcript.streaming is None and blocks[-1].plain_text() == answer

        while not done():
            await pilot.pause(0.005)
        await pilot.pause()
        elapsed = time.perf_counter() - started, time.process_time() - cpu
    return elapsed


async def streaming(rounds: int, kilobytes: int) -> None:
    answer = markdown_answer(kilobytes)
    chunks = chunks_of(answer)
    log: list[tuple[float, float]] = []
    transcript: list[tuple[float, float]] = []
    pi: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="tui-vs-log-") as cwd:
        for _ in range(rounds):
            log.append(await stream_fed(LogApp, chunks))
            transcript.append(await stream_fed(TranscriptApp, chunks))
            pi.append(await stream_pi_app(answer, cwd))

    def median(samples: list[tuple[float, float]], i: int) -> float:
        return statistics.median(s[i] for s in samples)

    print(f"streaming {len(answer) // 1024} KB of Markdown in {len(chunks)} chunks of {CHUNK} characters")
    print(f"(seconds from the first chunk to the last one painted, median of {rounds}):")
    print("                                  wall      CPU   (CPU ratio to Log)")
    for label, samples, note in (
        ("bare Textual Log", log, ""),
        ("transcript widget alone", transcript, ""),
        ("pi app (agent -> transcript)", pi, f", target <= {STREAM_TARGET:.1f}x"),
    ):
        wall, cpu = median(samples, 0), median(samples, 1)
        print(f"  {label:<30} {wall:6.3f} s {cpu:6.3f} s   ({cpu / median(log, 1):4.2f}x{note})")


if __name__ == "__main__":
    rounds_arg = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    kilobytes_arg = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    part = sys.argv[3] if len(sys.argv) > 3 else "both"
    if part in ("paint", "both"):
        first_paint(rounds_arg)
    if part in ("stream", "both"):
        asyncio.run(streaming(rounds_arg, kilobytes_arg))
