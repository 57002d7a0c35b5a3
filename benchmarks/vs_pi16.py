"""Issue 20's figures against pi 1.6.0, all in one run: every pi figure next to 1.6.0's.

Usage: ``.venv/bin/python benchmarks/vs_pi16.py [--runs N] [--heavy-runs N] [--only a,b,...]``
with sections ``print``, ``json``, ``write``, ``hi``, ``ready``, ``stream``, ``resume``, ``idle``
(default: all). pi 1.6.0 is ``/work/ref/pi16/pi16`` (or ``$PI16``); when it is missing its rows
say so and only this pi's figures are printed.

Both programs run as children with the same throwaway HOME, ``PI_OFFLINE=1`` and a ``models.json``
whose only model ``fake/fake-model`` is the loopback fake server (``tests/fakes/llm_server.py``,
OpenAI Chat Completions wire format). Rounds alternate (this pi, 1.6.0, this pi, ...) and medians
are printed, so a busy machine affects both alike; a shared 2-core machine still moves figures by
10-20 % between runs, so compare only figures of one run. As in ``startup.py`` the children may
write bytecode and one unmeasured warm-up round comes first. Wall time, CPU time (user + system)
and peak RSS of a ``-p`` child come from ``wait4`` in a bare helper process.

- ``print``: ``pi -p`` whose answer is 1 MB and 10 MB of text in 64-character deltas (time and
  peak memory; 10 MB should cost at most 12x of 1 MB: linear). The 1 MB answer has the ``hi``
  section's ``floor`` row: httpx reading the same stream and json decoding each event, no pi code.
- ``json``: bytes ``--mode json`` writes for answers of 4,000 and 16,000 characters in
  16-character deltas.
- ``write``: ``pi -p`` whose model calls ``write`` with 30 MB of content in 64-character deltas.
- ``hi``: ``pi -p hi`` (a two-letter answer): start-up, one request, exit. Its ``floor`` row is a
  script with no pi code that imports asyncio and httpx (as pi does) and streams the same request
  to the same server: the least any Python program on pi's libraries pays for it.
- ``ready``: the app on a 120x40 pseudo-terminal: launch until the footer names the model (ready),
  then a typed prompt until its answer is on the screen. Its ``floor`` row is a bare Textual app
  whose first frame shows the text ``ready`` waits for.
- ``stream``: in the app, a 200 KB answer in 64-character deltas, unpaced, into a new session and
  into a resumed session of 2,000 messages: CPU seconds of the app from Enter until the answer's
  last line is on the screen.
- ``resume``: ``/resume`` with 500 sessions of the project: Enter until the first session row is
  on the screen.
- ``idle``: the ready app left alone for 5 s: wake-ups per second (context switches of all its
  threads, voluntary and not, from ``/proc``).

Issue 20's closing run, 2026-12-06 (``--runs 5 --baseline`` the tree before issue 20, ea7ce6f; 2
cores, load 0.4-0.9), medians, this pi / before / 1.6.0 (floor where there is one):
1 MB answer 0.98 s 39 MiB / 3.96 s 52 MiB / 1.02 s 152 MiB (floor 0.91 s); 10 MB 11.50 s 67 MiB
/ - / 5.16 s 239 MiB; JSON bytes at 4,000 and 16,000 characters 0.093 and 0.329 MiB / 2.172 and
29.501 / 0.106 and 0.330; 30 MB write call 29.5 s 215 MiB / - / 13.8 s 666 MiB; ``-p hi`` 0.30 s /
0.48 / 0.52 (floor 0.25); ready 0.629 s / 1.003 / 0.522 (floor 0.300); typed prompt answered
1.152 s / 1.212 / 1.708; 200 KB into a new / a 2,000-message session 1.56 and 1.37 CPU s / 1.45
and 1.41 / 1.46 and 0.85; ``/resume`` first row 0.095 s / 0.631 / 0.299; idle 0.0 / 10.0 / 0.4
wake-ups a second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai import testing  # noqa: E402
from pi_app.ai.testing import Step, text, tool_call  # noqa: E402
from pi_app.coding.paths import encode_cwd  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402
from tests.reliability.helpers import PiHome  # noqa: E402
from tests.tui_term.pty_terminal import PtyTerminal  # noqa: E402

PI = str(Path(sys.executable).with_name("pi"))
PI16 = os.environ.get("PI16", "/work/ref/pi16/pi16")
SIZE = (120, 40)
MiB = 1024 * 1024

# Each measured -p child starts from a bare helper so that its peak RSS is its own (see startup.py);
# its stdout goes to a file whose size is reported.
MEASURER = """
import os, sys, time
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ, file_actions=[
    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, out, 1)])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
print(os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def _cache_transcripts() -> None:
    """Render each scripted turn's SSE body once: the server would otherwise rebuild 160,000
    chunks per request inside this process, on the machine both programs share."""
    build = testing.transcript
    cache: dict[Any, Any] = {}

    def cached(api: str, steps: Sequence[Step | str], model: str = "fake-model") -> Any:
        key = (api, tuple(map(id, steps)), model)
        if key not in cache:  # the steps are kept with their body, so their ids stay theirs
            cache[key] = (list(steps), build(api, steps, model=model))
        return cache[key][1]

    testing.transcript = cached  # type: ignore[assignment]


class Bench:
    def __init__(
        self,
        root: Path,
        server: FakeLLMServer,
        runs: int,
        heavy_runs: int,
        baseline: str | None = None,
        baseline_heavy: bool = False,
    ) -> None:
        self.server = server
        self.runs = runs
        self.heavy_runs = heavy_runs
        self.home = PiHome.make(root)
        self.home.point_at(server.base_url)
        self.env = self.home.env()
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        self.out = root / "stdout"
        self.have16 = Path(PI16).exists()
        self.programs = {"pi": PI}
        self.envs = {"pi": self.env}
        self.baseline_heavy = baseline_heavy
        if baseline:
            self.programs["before"] = PI
            self.envs["before"] = dict(self.env, PYTHONPATH=str(Path(baseline).resolve()))
        if self.have16:
            self.programs["pi 1.6.0"] = PI16
            self.envs["pi 1.6.0"] = self.env

    def note_missing(self) -> None:
        if not self.have16:
            print(f"  (pi 1.6.0 not found at {PI16}: its figures are skipped)")

    # -- -p children ---------------------------------------------------------------------------

    def child(self, name: str, args: list[str]) -> tuple[float, float, float, int]:
        """(wall s, CPU s, peak MiB, stdout bytes) of one run."""
        program = self.programs[name]
        proc = subprocess.run(
            [sys.executable, "-S", "-c", MEASURER, str(self.out), program, *args],
            cwd=self.home.project,
            env=self.envs[name],
            capture_output=True,
            text=True,
        )
        code, wall, cpu, peak_kib = proc.stdout.split()
        if proc.returncode != 0 or code != "0":
            raise SystemExit(f"{program} {' '.join(args)} failed ({code}): {proc.stderr[-500:]}")
        return float(wall), float(cpu), int(peak_kib) / 1024, self.out.stat().st_size

    def interleaved(
        self, args: list[str], turns: list[list[Step]], runs: int, heavy: bool = False
    ) -> dict[str, tuple[float, float, float, int]]:
        """Median (wall, CPU, peak, bytes) per program over ``runs`` alternating rounds.

        ``heavy``: no warm-up round (earlier sections wrote the bytecode), and the ``--baseline``
        revision only with ``--baseline-heavy`` (before issue 20 a 10 MB answer took minutes)."""
        programs = [n for n in self.programs if n != "before" or not heavy or self.baseline_heavy]
        samples: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in programs}
        for n in range(1 if heavy else 0, runs + 1):
            for name in programs:
                for turn in turns:
                    self.server.enqueue(*turn)
                sample = self.child(name, args)
                if self.server.pending_turns:
                    raise SystemExit(f"{name} left {self.server.pending_turns} turns unused")
                if n > 0 or runs == 0:
                    samples[name].append(sample)
        return {
            name: tuple(statistics.median(s[i] for s in rows) for i in range(4))  # type: ignore[misc]
            for name, rows in samples.items()
        }

    def row(
        self, label: str, figures: dict[str, tuple[float, float, float, int]], memory: bool = True
    ) -> None:
        """One line per program: wall, CPU (and peak memory), with the ratio to pi 1.6.0."""
        print(f"  {label}:")
        other = figures.get("pi 1.6.0")
        for name, f in figures.items():
            line = f"    {name:<9} {f[0]:6.2f} s wall {f[1]:6.2f} s CPU"
            if memory:
                line += f" {f[2]:6.0f} MiB peak"
            if other is not None and name != "pi 1.6.0":
                line += f"   = {f[0] / other[0]:4.2f}x time"
                if memory:
                    line += f", {f[2] / other[2]:4.2f}x memory of 1.6.0"
            print(line)

    def scalar(self, label: str, values: dict[str, float], unit: str, fmt: str = "6.3f") -> None:
        """One line per program of a single figure, with the ratio to pi 1.6.0."""
        print(f"  {label}:")
        other = values.get("pi 1.6.0")
        for name, value in values.items():
            line = f"    {name:<9} {value:{fmt}} {unit}"
            if other and name != "pi 1.6.0":
                line += f"   = {value / other:4.2f}x of 1.6.0"
            print(line)

    # -- sections --------------------------------------------------------------------------------

    def print_answers(self) -> None:
        print(
            f"pi -p, answers in 64-character deltas (1 MB: median of {self.runs}, 10 MB: of {self.heavy_runs}):"
        )
        self.note_missing()
        results = {}
        for megabytes in (1, 10):
            size = megabytes * 1_000_000
            body = answer_text(size)
            turn = [text(body, chunks=size // 64)]
            runs = self.runs if megabytes == 1 else self.heavy_runs
            if megabytes == 1:  # the floor of the 1 MB stream: httpx and json without pi
                self.programs["floor"] = self.floor_program("request", REQUEST_FLOOR)
            try:
                results[megabytes] = figures = self.interleaved(
                    ["--no-session", "-p", "go"], [turn], runs, heavy=megabytes > 1
                )
            finally:
                self.programs.pop("floor", None)
            for name, f in figures.items():
                if f[3] != size + 1:
                    raise SystemExit(f"{name} printed {f[3]} bytes, expected {size + 1}")
            self.row(f"{megabytes} MB answer", figures)
        for name in results[10]:
            if name not in results[1]:
                continue
            one, ten = results[1][name], results[10][name]
            print(
                f"  {name}: 10 MB / 1 MB = {ten[0] / one[0]:4.1f}x time, {ten[2] / one[2]:4.1f}x peak memory"
                " (linear: <= 12x)"
            )

    def json_bytes(self) -> None:
        print(f"pi --mode json, bytes written per answer size (16-character deltas; median of {self.runs}):")
        self.note_missing()
        for chars in (4_000, 16_000):
            body = answer_text(chars)
            figures = self.interleaved(
                ["--no-session", "--mode", "json", "go"], [[text(body, chunks=chars // 16)]], self.runs
            )
            self.scalar(
                f"{chars}-character answer",
                {name: f[3] / MiB for name, f in figures.items()},
                "MiB",
                "8.3f",
            )

    def write_call(self) -> None:
        print(f"pi -p, the model writes a 30 MB file in 64-character deltas (median of {self.heavy_runs}):")
        self.note_missing()
        size = 30_000_000
        body = answer_text(size)
        raw = json.dumps({"path": "out.txt", "content": body})
        turns = [[tool_call("write", raw, chunks=len(raw) // 64)], [text("done")]]
        figures = self.interleaved(["--no-session", "-p", "write it"], turns, self.heavy_runs, heavy=True)
        written = (self.home.project / "out.txt").stat().st_size
        if written != size:
            raise SystemExit(f"out.txt has {written} bytes, expected {size}")
        self.row("30 MB write call", figures)

    def hello(self) -> None:
        print(f"pi -p hi (median of {self.runs}; floor: asyncio + httpx, one streamed request, no pi code):")
        self.note_missing()
        self.programs["floor"] = self.floor_program("request", REQUEST_FLOOR)
        try:
            figures = self.interleaved(["--no-session", "-p", "hi"], [[text("hi")]], self.runs)
        finally:
            del self.programs["floor"]
        self.row("-p hi", figures)

    # -- the app on a pseudo-terminal --------------------------------------------------------------

    def floor_program(self, name: str, source: str) -> str:
        """An executable script (this interpreter, arguments ignored) measured beside pi as the
        floor of the libraries pi is built on: what a target below it would have to beat."""
        path = self.home.home / f"floor-{name}.py"
        url = self.server.base_url + "/v1/chat/completions"
        path.write_text(f"#!{sys.executable}\n" + source.replace("BASE_URL", url), encoding="utf-8")
        path.chmod(0o755)
        self.envs["floor"] = self.env
        return str(path)

    def app(self, name: str, *args: str) -> Any:
        return PtyTerminal(
            [self.programs[name], *args], size=SIZE, env=self.envs[name], cwd=str(self.home.project)
        )

    def ready(self) -> None:
        print(
            f"the app on a {SIZE[0]}x{SIZE[1]} pty: launch to model in the footer, then a prompt answered"
            f" (median of {self.runs}):"
        )
        self.note_missing()
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in self.programs}
        floor = self.floor_program("textual", TEXTUAL_FLOOR)
        floor_samples: list[float] = []
        for n in range(self.runs + 1):
            for name in self.programs:
                self.server.reset()
                self.server.respond_with(lambda _request: [text("the answer is READY-MARK")])
                started = time.perf_counter()
                term = self.app(name, "--no-session")
                try:
                    wait_screen(term, "fake-model")
                    ready = time.perf_counter() - started
                    submit(term, "hi")
                    wait_screen(term, "READY-MARK")
                    answered = time.perf_counter() - started
                finally:
                    term.close()
                if n > 0:
                    samples[name].append((ready, answered))
            started = time.perf_counter()
            term = PtyTerminal([floor], size=SIZE, env=self.env, cwd=str(self.home.project))
            try:
                wait_screen(term, "fake-model")
                if n > 0:
                    floor_samples.append(time.perf_counter() - started)
            finally:
                term.close()
        ready_figures = {n: median(s, 0) for n, s in samples.items()}
        ready_figures["floor"] = statistics.median(floor_samples)
        self.scalar(
            "ready (model in the footer; floor: a bare Textual app's first frame)", ready_figures, "s"
        )
        self.scalar("a typed prompt answered", {n: median(s, 1) for n, s in samples.items()}, "s")

    def streaming(self) -> None:
        print(
            f"the app: a 200 KB answer in 64-character deltas into a new and into a 2,000-message session"
            f" (CPU s from Enter to the last line on screen; median of {self.runs}):"
        )
        self.note_missing()
        big = write_long_session(self.home, 2000)
        body = answer_text(200_000) + "\nSTREAM-END-MARK\n"
        step = text(body, chunks=len(body) // 64)
        samples: dict[tuple[str, str], list[float]] = {}
        for n in range(self.runs + 1):
            for name in self.programs:
                copy = self.home.home / "resumed.jsonl"  # each run resumes the same 2,000 messages
                copy.write_bytes(big.read_bytes())
                for kind, args in (("new", ["--no-session"]), ("2,000 messages", ["--session", str(copy)])):
                    # every request gets the answer: a run that asks once more (a retry, another
                    # program's extra request) must not leave the next one without its turn
                    self.server.reset()
                    self.server.respond_with(lambda _request: [step])
                    term = self.app(name, *args)
                    try:
                        wait_screen(term, "fake-model")
                        term.settle(quiet=0.3, timeout=20)
                        before = tree_cpu(term.pid)
                        submit(term, "go")
                        wait_screen(term, "STREAM-END-MARK", timeout=300)
                        spent = tree_cpu(term.pid) - before
                    finally:
                        term.close()
                    if n > 0:
                        samples.setdefault((name, kind), []).append(spent)
        new = {name: statistics.median(samples[(name, "new")]) for name in self.programs}
        full = {name: statistics.median(samples[(name, "2,000 messages")]) for name in self.programs}
        self.scalar("into a new session", new, "s CPU", "6.2f")
        self.scalar("into 2,000 messages", full, "s CPU", "6.2f")
        for name in self.programs:
            print(f"    {name:<9} 2,000 messages / new = {full[name] / new[name]:4.2f}x (target <= 1.1x)")

    def resume(self) -> None:
        print(
            f"/resume over 500 sessions: Enter until the first row is on the screen (median of {self.runs}):"
        )
        self.note_missing()
        write_many_sessions(self.home, 500)
        samples: dict[str, list[float]] = {name: [] for name in self.programs}
        for n in range(self.runs + 1):
            for name in self.programs:
                term = self.app(name, "--no-session")
                try:
                    wait_screen(term, "fake-model")
                    term.settle(quiet=0.3, timeout=20)
                    term.type("/resume")
                    time.sleep(0.3)
                    started = time.perf_counter()
                    term.type("\r")
                    wait_screen(term, "resume task ", interval=0.001)
                    first = time.perf_counter() - started
                finally:
                    term.close()
                if n > 0:
                    samples[name].append(first)
        self.scalar("first row (target <= 0.1 s)", {n: statistics.median(v) for n, v in samples.items()}, "s")

    def idle(self) -> None:
        print(f"the idle app: wake-ups per second over 5 s (median of {self.runs}):")
        self.note_missing()
        samples: dict[str, list[float]] = {name: [] for name in self.programs}
        for n in range(self.runs + 1):
            for name in self.programs:
                term = self.app(name, "--no-session")
                try:
                    wait_screen(term, "fake-model")
                    time.sleep(3)  # start-up work that outlives the first frames is not idling
                    before = tree_switches(term.pid)
                    time.sleep(5)
                    rate = (tree_switches(term.pid) - before) / 5
                finally:
                    term.close()
                if n > 0:
                    samples[name].append(rate)
        self.scalar("wake-ups", {n: statistics.median(v) for n, v in samples.items()}, "/s", "6.1f")


# -- floors: the libraries pi is built on, without pi ------------------------------------------------

# asyncio and httpx (as pi imports it: without httpx's command-line client) send one streamed chat
# request to the fake server and print the answer: all of ``pi -p hi`` but pi's own code
REQUEST_FLOOR = """
import pi_app  # only its guard that keeps httpx's CLI (click, rich) out, as in pi
import asyncio, json, sys
import httpx

async def main():
    body = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient() as client:
        async with client.stream("POST", "BASE_URL", json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    for choice in json.loads(line[6:]).get("choices", []):
                        sys.stdout.write((choice.get("delta") or {}).get("content") or "")
    print()

asyncio.run(main())
"""

# a Textual app whose first frame shows the text the ready measurement waits for
TEXTUAL_FLOOR = """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("fake-model")

Bare().run()
"""


# -- helpers ---------------------------------------------------------------------------------------


def answer_text(size: int) -> str:
    line = "the quick brown fox jumps over the lazy dog, again and again and\n"
    return (line * (size // len(line) + 1))[:size]


def median(samples: list[tuple[float, float]], i: int) -> float:
    return statistics.median(s[i] for s in samples)


def submit(term: Any, prompt: str) -> None:
    """Type ``prompt``, wait until the editor shows it, then press Enter (a key pressed while the
    app still settles can otherwise be taken by a notice instead of the editor)."""
    term.type(prompt)
    term.wait_for(lambda: any(line.strip() == prompt for line in term.text().splitlines()), timeout=30)
    term.type("\r")


def wait_screen(term: Any, marker: str, timeout: float = 60, interval: float = 0.003) -> None:
    term.wait_for(lambda: marker in term.text(), timeout=timeout, interval=interval)


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its descendants."""
    total = 0
    for p in _descendants(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def tree_switches(pid: int) -> int:
    """Context switches so far of every thread of ``pid`` and its descendants."""
    total = 0
    for p in _descendants(pid):
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                status = (task / "status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total


def _session_dir(home: PiHome) -> Path:
    folder = home.agent_dir / "sessions" / encode_cwd(str(home.project))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_many_sessions(home: PiHome, count: int) -> None:
    import random

    import benchmarks.session_store as store

    store.CWD = str(home.project)
    rng = random.Random(20)
    folder = _session_dir(home)
    for i in range(count):
        name, body = store.session_text(i, rng)
        (folder / name).write_text(body.replace(f"task {i}.", f"resume task {i}."), encoding="utf-8")


def write_long_session(home: PiHome, messages: int) -> Path:
    """A 1.6.0 session file of ``messages`` user/assistant messages (markdown answers)."""
    stamp = 1_700_000_000_000
    sid = "01900000-0000-7000-8000-00000000beef"
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": sid,
            "timestamp": "2023-11-14T22:13:20.000Z",
            "cwd": str(home.project),
        }
    ]
    parent = None
    for i in range(messages):
        entry = f"{i:08x}"
        if i % 2 == 0:
            message: dict[str, Any] = {
                "role": "user",
                "content": [{"type": "text", "text": f"question {i}"}],
                "timestamp": stamp + i,
            }
        else:
            message = {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": f"## Answer {i}\n\nSome `code` and **bold** text.\n"
                        "- a point\n- another point\n",
                    }
                ],
                "api": "openai-completions",
                "provider": "fake",
                "model": "fake-model",
                "usage": {
                    "input": 10,
                    "output": 10,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 20,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": stamp + i,
            }
        lines.append(
            {
                "type": "message",
                "id": entry,
                "parentId": parent,
                "timestamp": "2023-11-14T22:13:20.000Z",
                "message": message,
            }
        )
        parent = entry
    path = home.home / "long-session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


SECTIONS: dict[str, Callable[[Bench], None]] = {
    "print": Bench.print_answers,
    "json": Bench.json_bytes,
    "write": Bench.write_call,
    "hi": Bench.hello,
    "ready": Bench.ready,
    "stream": Bench.streaming,
    "resume": Bench.resume,
    "idle": Bench.idle,
}


def main() -> None:
    parser = argparse.ArgumentParser(description="issue 20's figures against pi 1.6.0")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--heavy-runs", type=int, default=1, help="rounds of the 10 MB and 30 MB runs")
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--baseline", help="source tree of another revision, measured too (its pi_app)")
    parser.add_argument("--baseline-heavy", action="store_true", help="the baseline also for 10 MB / 30 MB")
    options = parser.parse_args()
    _cache_transcripts()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="vs-pi16-") as tmp, FakeLLMServer() as server:
        bench = Bench(
            Path(tmp), server, options.runs, options.heavy_runs, options.baseline, options.baseline_heavy
        )
        for name in options.only.split(","):
            server.respond_with(None)
            try:
                SECTIONS[name](bench)
            except (AssertionError, SystemExit, OSError) as exc:  # one broken section, not the run
                print(f"  {name}: FAILED: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            sys.stdout.flush()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
