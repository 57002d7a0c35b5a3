"""How long opening a big session and building its context takes, next to a bare ``json.loads``.

Writes a 20,000-entry session (user/assistant/tool-result turns with realistic sizes, plus labels,
custom entries and a branch), then measures in the same run:

1. ``json.loads`` of every line (the floor any loader pays),
2. ``SessionManager.open`` (parse + index + leaf),
3. ``build_session_context()`` on the opened session,
4. ``get_tree()``.

Usage: ``.venv/bin/python benchmarks/session_load.py [entries] [repeats]``. Prints figures only.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_app.coding.session import SessionManager


def build_session(directory: Path, entries: int) -> Path:
    sm = SessionManager.create("/bench/project", directory)
    sm.append_model_change("bench", "bench-model")
    sm.append_thinking_level_change("medium")
    ts = 1_700_000_000_000
    fork_point = None
    while len(sm.get_entries()) < entries:
        n = len(sm.get_entries())
        uid = sm.append_message(
            UserMessage(content=[TextContent(text=f"question {n} " + "x" * 200)], timestamp=ts)
        )
        call = ToolCall(id=f"c{n}", name="read", arguments={"path": f"src/file_{n}.py"})
        sm.append_message(
            AssistantMessage(
                content=[TextContent(text="Let me look. " + "y" * 100), call],
                api="openai-completions",
                provider="bench",
                model="bench-model",
                usage=Usage(input=1000 + n, output=50, total_tokens=1050 + n),
                stop_reason="toolUse",
                timestamp=ts + 1,
            )
        )
        sm.append_message(
            ToolResultMessage(
                tool_call_id=f"c{n}",
                tool_name="read",
                content=[TextContent(text="line\n" * 150)],
                timestamp=ts + 2,
            )
        )
        sm.append_message(
            AssistantMessage(
                content=[TextContent(text="Here is what I found. " + "z" * 300)],
                api="openai-completions",
                provider="bench",
                model="bench-model",
                usage=Usage(input=2000 + n, output=80, total_tokens=2080 + n),
                stop_reason="stop",
                timestamp=ts + 3,
            )
        )
        if n % 50 == 0:
            sm.append_label_change(uid, f"mark {n}")
            sm.append_custom_entry("bench-state", {"n": n})
        if fork_point is None and n > entries // 2:
            fork_point = uid
        ts += 10
    if fork_point is not None:
        sm.branch(fork_point)
        sm.append_message(UserMessage(content=[TextContent(text="a different direction")], timestamp=ts))
    return Path(sm.get_session_file())


def timed(fn, repeats: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(repeats):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        path = build_session(Path(tmp), entries)
        size_mb = path.stat().st_size / 1e6

        def plain() -> int:
            with open(path, encoding="utf-8") as fh:
                return len([json.loads(line) for line in fh if line.strip()])

        t_json, lines = timed(plain, repeats)
        t_open, sm = timed(lambda: SessionManager.open(path), repeats)
        t_ctx, ctx = timed(sm.build_session_context, repeats)  # type: ignore[union-attr]
        t_tree, _ = timed(sm.get_tree, repeats)  # type: ignore[union-attr]
        print(f"session file: {lines} lines, {size_mb:.1f} MB, median of {repeats} runs")
        print(f"json.loads of every line     {t_json * 1000:8.1f} ms   (1.00x)")
        print(f"SessionManager.open          {t_open * 1000:8.1f} ms   ({t_open / t_json:.2f}x)")
        print(f"build_session_context()      {t_ctx * 1000:8.1f} ms   ({len(ctx.messages)} messages)")  # type: ignore[union-attr]
        print(
            f"open + context               {(t_open + t_ctx) * 1000:8.1f} ms   ({(t_open + t_ctx) / t_json:.2f}x)"
        )
        print(f"get_tree()                   {t_tree * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
