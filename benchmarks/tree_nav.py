"""``/tree`` on a 20,000-entry session: time to open the navigator and time per selection move.

Builds (in memory) a session of user → assistant-with-tool-call → tool result → assistant turns
with a side branch every 200 entries and a label every 500, then in a headless Textual app:

1. opening: ``get_tree()`` plus building the ``TreeNavigator`` (flatten, filter, layout) until
   its first paint;
2. 100 moves up and 100 down through real key presses (``Pilot.press``: key event, handler,
   repaint, screen update), next to the same number of presses on a widget that ignores them
   (the same-run baseline of what the test harness and Textual cost by themselves), both as wall
   time and as this process's CPU time. On a shared machine the CPU difference is the honest
   cost of a move: wall time also holds the wait for Textual's next screen-update tick and
   whatever the other processes on the cores are doing;
3. the same moves without Textual's event plumbing (model move + painting every visible row):
   our share of each move, the figure to hold under one frame (16 ms);
4. a filter switch and a one-letter search (each rebuilds the visible list); by then the
   navigator has built every row's search text while idle, as it does after each open;
5. the model alone, outside Textual: its build, then a first letter with nothing warmed (the
   worst case: typing before the idle warm-up got anywhere).

Figures at 20,005 entries (2 cores, load ≈1.5 from other work; both versions in the same run,
before → after the flat-list model, cached filter passes and idle search warm-up):
open 419–420 → 268–269 ms; filter switch 187–281 → 7 ms; first search letter 124–163 → 5–6 ms
(cold, model alone: 188–322 → 86–116 ms); model build alone 341–428 → 98–106 ms (CPU, best of
five: ``get_tree`` 80 → 41 ms, model 150 → 83 ms); our part of a move stays ≈0.5 ms.

Usage: ``.venv/bin/python benchmarks/tree_nav.py [entries]``. Prints figures only.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_app.coding.session import SessionManager
from pi_app.tui.selectors.tree import TreeNavigator
from pi_app.tui.selectors.tree_model import TreeNavModel

FRAME_MS = 1000 / 60


def build(entries: int) -> SessionManager:
    clock = iter(range(1_700_000_000_000, 1_800_000_000_000, 1000))
    sm = SessionManager("/bench/project", None, persist=False, clock=lambda: next(clock))
    sm.append_model_change("bench", "bench-model")
    ts = 1_700_000_000_000
    n = 0
    while len(sm.get_entries()) < entries:
        n += 1
        uid = sm.append_message(
            UserMessage(content=[TextContent(text=f"question {n} " + "x" * 120)], timestamp=ts)
        )
        call = ToolCall(id=f"c{n}", name="read", arguments={"path": f"src/file_{n}.py"})
        usage = Usage(input=100, output=20, total_tokens=120)
        kwargs = dict(api="bench", provider="bench", model="bench-model", usage=usage, timestamp=ts)
        sm.append_message(AssistantMessage(content=[call], stop_reason="toolUse", **kwargs))
        sm.append_message(
            ToolResultMessage(
                tool_call_id=call.id, tool_name="read", content=[TextContent(text="y" * 300)], timestamp=ts
            )
        )
        sm.append_message(AssistantMessage(content=[TextContent(text=f"answer {n} " + "z" * 150)], **kwargs))
        count = len(sm.get_entries())
        if count % 500 < 4:
            sm.append_label_change(uid, f"mark {n}")
        if count % 200 < 4:  # a short side branch off this turn's question, then back
            leaf = sm.get_leaf_id()
            sm.branch(uid)
            sm.append_message(UserMessage(content=[TextContent(text=f"side {n}")], timestamp=ts))
            sm.branch(leaf)
    return sm


class Idle(Static, can_focus=True):
    """A focused widget that ignores keys: the baseline for a key press."""


class Host(App[None]):
    def __init__(self, sm: SessionManager) -> None:
        super().__init__()
        self.sm = sm
        self.navigator: TreeNavigator | None = None

    def compose(self) -> ComposeResult:
        yield Static("transcript", id="above")

    def open_tree(self) -> TreeNavigator:
        self.navigator = TreeNavigator(self.sm.get_tree(), self.sm.get_leaf_id(), page_size=20)
        self.mount(self.navigator)
        self.navigator.focus()
        return self.navigator


def paint(navigator: TreeNavigator) -> None:
    """What a move costs us: repaint the rows and hand every visible strip to the compositor."""
    navigator.rows.repaint()
    for y in range(navigator.rows.size.height):
        navigator.rows.render_line(y)


async def first_rows_on_screen(navigator: TreeNavigator) -> float:
    """When the compositor first asks for a line of the tree rows (``perf_counter`` time)."""
    seen: list[float] = []
    render_line = navigator.rows.render_line

    def spy(y: int) -> Any:
        if not seen:
            seen.append(time.perf_counter())
        return render_line(y)

    navigator.rows.render_line = spy  # type: ignore[method-assign]
    while not seen:
        await asyncio.sleep(0.001)
    return seen[0]


async def timed_presses(pilot: Any) -> tuple[list[float], list[float]]:
    """100 ups then 100 downs: wall and CPU (this process, every thread) milliseconds per press."""
    wall: list[float] = []
    cpu: list[float] = []
    for key in ["up"] * 100 + ["down"] * 100:
        t, c = time.perf_counter(), time.process_time()
        await pilot.press(key)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


async def run(entries: int) -> None:
    started = time.perf_counter()
    sm = build(entries)
    print(f"session: {len(sm.get_entries())} entries (built in {time.perf_counter() - started:.1f} s)")
    app = Host(sm)
    async with app.run_test(size=(120, 44)) as pilot:
        t0 = time.perf_counter()
        navigator = app.open_tree()
        opened = (await first_rows_on_screen(navigator) - t0) * 1000
        print(f"open /tree (get_tree + flatten + filter + first paint): {opened:.0f} ms")
        await pilot.pause()  # the navigator builds search texts while idle: let it finish
        print(f"visible rows: {navigator.model.visible_count}")

        presses, presses_cpu = await timed_presses(pilot)
        idle = Idle("baseline")
        await app.mount(idle)
        idle.focus()
        await pilot.pause()
        baseline, baseline_cpu = await timed_presses(pilot)
        ours: list[float] = []
        for step in [navigator.model.move_up] * 100 + [navigator.model.move_down] * 100:
            t = time.perf_counter()
            step()
            paint(navigator)
            ours.append((time.perf_counter() - t) * 1000)

        def report(name: str, values: list[float], judge: bool = False) -> None:
            p95 = sorted(values)[int(len(values) * 0.95) - 1]
            verdict = ""
            if judge:
                verdict = (
                    " (under one frame)" if p95 < FRAME_MS else f" (OVER one frame of {FRAME_MS:.1f} ms)"
                )
            print(
                f"{name}: median {statistics.median(values):.2f} ms, p95 {p95:.2f} ms, "
                f"max {max(values):.2f} ms{verdict}"
            )

        report("key press on an idle widget (baseline), wall", baseline)
        report("move via key press (Textual event + repaint + screen update), wall", presses)
        extra = statistics.median(presses) - statistics.median(baseline)
        print(f"  -> a move takes {extra:.2f} ms more wall time than the baseline press (median)")
        print("     (wall time includes waiting for Textual's next screen-update tick and other processes)")
        report("key press on an idle widget (baseline), CPU", baseline_cpu)
        report("move via key press, CPU", presses_cpu)
        extra_cpu = statistics.median(presses_cpu) - statistics.median(baseline_cpu)
        verdict = "under" if extra_cpu < FRAME_MS else "OVER"
        print(
            f"  -> a move costs {extra_cpu:.2f} ms more CPU than the baseline press (median): {verdict} one frame"
        )
        report("move, our part (model + paint visible rows)", ours, judge=True)

        for label, action in (
            ("filter switch (ctrl+o)", lambda: navigator.model.cycle_filter()),
            ("search one letter (search texts warmed while idle)", lambda: navigator.model.type_text("q")),
        ):
            t = time.perf_counter()
            action()
            paint(navigator)
            print(f"{label}: {(time.perf_counter() - t) * 1000:.0f} ms")

    tree, leaf = sm.get_tree(), sm.get_leaf_id()
    t = time.perf_counter()
    model = TreeNavModel(tree, leaf, page_size=20)
    built = time.perf_counter()
    model.type_text("q")
    model.rows()
    done = time.perf_counter()
    print(
        f"model alone: build {(built - t) * 1000:.0f} ms, then a cold first letter {(done - built) * 1000:.0f} ms"
    )


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    asyncio.run(run(entries))


if __name__ == "__main__":
    main()
