"""``/resume`` listing and session open over many sessions: JSONL files versus the SQLite store.

Generates N sessions (default 10,000; each a header, a model change and a few user/assistant/tool
turns of realistic size, some named) as JSONL files in one project folder, imports them into a
SQLite store with ``pi sessions import``'s code, then measures in the same run:

1. the ``/resume`` listing of the project (``SessionManager.list``), both backends;
2. the listing of every project (``SessionManager.list_all``, what Tab shows), both backends;
3. opening a session and building its context (``SessionManager.open`` +
   ``build_session_context``), median over a sample, both backends;
4. a full-text search of message text (SQLite's FTS5; JSONL has no index: the picker's fuzzy
   match over every listed session's text is the comparison).

Usage: ``.venv/bin/python benchmarks/session_store.py [sessions] [repeats]``. Prints figures only
(the issue's target: the SQLite listing under 100 ms for 10,000 sessions).
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pi_app.coding import paths
from pi_app.coding.session import SessionManager
from pi_app.coding.session.sqlite_store import SqliteSessionStorage
from pi_app.coding.session.storage import JsonlSessionStorage, SessionStorage
from pi_app.coding.session.transfer import import_jsonl

CWD = "/bench/project"
WORDS = "grep the tree fix a failing test refactor parser module edit file read config run tests".split()


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


def _line(obj: dict[str, object]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def session_text(i: int, rng: random.Random) -> tuple[str, str]:
    """(file name, text) of generated session ``i``."""
    ms = 1_700_000_000_000 + i * 60_000
    sid = f"0190{i:08x}-0000-7000-8000-{i:012x}"
    lines = [_line({"type": "session", "version": 3, "id": sid, "timestamp": _iso(ms), "cwd": CWD})]
    parent = None
    n = 0

    def add(body: dict[str, object]) -> None:
        nonlocal parent, n, ms
        n += 1
        ms += 1000
        entry_id = f"{i % 65536:04x}{n:04x}"
        lines.append(
            _line(
                {"type": body.pop("type"), "id": entry_id, "parentId": parent, "timestamp": _iso(ms), **body}
            )
        )
        parent = entry_id

    add({"type": "model_change", "provider": "bench", "modelId": "bench-model"})
    for turn in range(rng.randint(2, 5)):
        words = " ".join(rng.choice(WORDS) for _ in range(40))
        add(
            {
                "type": "message",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": f"task {i}.{turn}: {words}"}],
                    "timestamp": ms,
                },
            }
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Looking. " + words[:200]},
                        {
                            "type": "toolCall",
                            "id": f"c{turn}",
                            "name": "read",
                            "arguments": {"path": f"src/m{turn}.py"},
                        },
                    ],
                    "api": "openai-completions",
                    "provider": "bench",
                    "model": "bench-model",
                    "usage": {
                        "input": 900,
                        "output": 120,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "totalTokens": 1020,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.002},
                    },
                    "stopReason": "toolUse",
                    "timestamp": ms,
                },
            }
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"c{turn}",
                    "toolName": "read",
                    "content": [{"type": "text", "text": "x = 1\n" * 60}],
                    "isError": False,
                    "timestamp": ms,
                },
            }
        )
    if i % 7 == 0:
        add({"type": "session_info", "name": f"named session {i}"})
    name = _iso(1_700_000_000_000 + i * 60_000).replace(":", "-").replace(".", "-") + f"_{sid}.jsonl"
    return name, "\n".join(lines) + "\n"


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, result


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = random.Random(25)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PI_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")
        session_dir = paths.default_session_dir(CWD)
        session_dir.mkdir(parents=True)
        start = time.perf_counter()
        total_bytes = 0
        for i in range(count):
            name, text = session_text(i, rng)
            (session_dir / name).write_text(text)
            total_bytes += len(text)
        print(
            f"generated {count} sessions ({total_bytes / 1e6:.1f} MB JSONL) in {time.perf_counter() - start:.1f} s"
        )

        store = SqliteSessionStorage(Path(tmp) / "sessions.sqlite")
        start = time.perf_counter()
        report = import_jsonl(store, [session_dir])
        size = os.path.getsize(store.database) + os.path.getsize(store.database + "-wal")
        print(
            f"imported {len(report.written)} into SQLite in {time.perf_counter() - start:.1f} s ({size / 1e6:.1f} MB with WAL)"
        )
        store.close()

        jsonl: SessionStorage = JsonlSessionStorage()
        # a fresh connection, as a new pi process would open it
        sqlite = SqliteSessionStorage(Path(tmp) / "sessions.sqlite")
        rows: list[tuple[str, float, float]] = []

        def both(label: str, run: Callable[[SessionStorage], object], reps: int) -> None:
            j, jr = timed(lambda: run(jsonl), reps)
            s, sr = timed(lambda: run(sqlite), reps)
            rows.append((label, j, s))
            if isinstance(jr, list) and isinstance(sr, list):
                assert len(jr) == len(sr), (label, len(jr), len(sr))

        both(
            "/resume listing (project)", lambda st: SessionManager.list(CWD, session_dir, storage=st), repeats
        )
        both("/resume listing (all, Tab)", lambda st: SessionManager.list_all(storage=st), repeats)
        sample = [
            session_dir / session_text(i, random.Random(25))[0] for i in range(0, count, max(1, count // 50))
        ]

        def open_sample(st: SessionStorage) -> None:
            for path in sample:
                SessionManager.open(path, storage=st).build_session_context()

        j, _ = timed(lambda: open_sample(jsonl), repeats)
        s, _ = timed(lambda: open_sample(sqlite), repeats)
        rows.append(
            (f"open + context (per session, {len(sample)} sampled)", j / len(sample), s / len(sample))
        )

        infos = SessionManager.list(CWD, session_dir, storage=jsonl)
        from pi_app.tui.selectors.session_model import SessionPickerModel

        def fuzzy() -> int:
            model = SessionPickerModel(infos)
            model.set_query("refactor parser")
            return len(model.rows)

        j, _ = timed(fuzzy, 1)
        s, _ = timed(lambda: sqlite.search("refactor parser"), repeats)
        rows.append(("search message text (JSONL fuzzy vs FTS5)", j, s))

        print(f"\n{'operation':<48} {'JSONL ms':>10} {'SQLite ms':>10} {'ratio':>8}")
        for label, j, s in rows:
            print(f"{label:<48} {j:>10.1f} {s:>10.1f} {j / s if s else float('inf'):>7.1f}x")
        listing = rows[0][2]
        print(
            f"\nSQLite /resume listing of {count} sessions: {listing:.1f} ms (target < 100 ms: {'met' if listing < 100 else 'NOT met'})"
        )
        sqlite.close()


if __name__ == "__main__":
    main()
