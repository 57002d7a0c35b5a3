"""Speed of the built-in ``grep``, ``find`` and ``edit`` tools next to their floors, in one run.

Builds a temporary tree of 50,000 small files (nested directories, ``.gitignore`` files, a few hits
per directory) and a 20 MB text file, then prints median wall times of:

* ``grep``: ``rg --json`` run directly (the floor) vs the tool on the native back end vs the tool on
  the pure-Python fallback (``PI_SEARCH_BACKEND=python``);
* ``find``: ``rg --files`` run directly vs the tool (native, fallback) with pattern ``**/*.py``;
* ``edit``: read + ``str.replace`` + write (the floor) vs the tool (exact match, one edit in the
  middle, diff and patch included) vs a fuzzy match (trailing whitespace in the file).

Usage: ``.venv/bin/python benchmarks/tools_search_edit.py [files] [repeats]``. Prints figures only.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pi_app.coding.tools import create_edit_tool, create_find_tool, create_grep_tool
from pi_app.coding.tools.search_backend import RG_COMMON_FLAGS, find_rg


def build_tree(root: Path, files: int) -> None:
    per_dir = 100
    for i in range(files):
        directory = root / f"pkg{i // (per_dir * 20)}" / f"mod{(i // per_dir) % 20}"
        if i % per_dir == 0:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / ".gitignore").write_text("*.tmp\nbuild/\n")
        suffix = (".py", ".ts", ".md", ".tmp")[i % 4]
        body = "".join(f"line {n} of file {i}\n" for n in range(20))
        if i % 50 == 0:
            body += "def needle_function():\n    return 42\n"
        (directory / f"file{i}{suffix}").write_text(body)


def timed(fn: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def run_tool(definition, params) -> str:
    result = asyncio.run(definition.execute("bench", params, None, None, None))
    return result.content[0].text


def with_backend(backend: str, fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        os.environ["PI_SEARCH_BACKEND"] = backend
        try:
            return fn()
        finally:
            os.environ.pop("PI_SEARCH_BACKEND", None)

    return run


def report(label: str, seconds: float, baseline: float) -> None:
    print(f"  {label:<34} {seconds * 1000:9.1f} ms   {seconds / baseline:6.2f}x baseline")


def bench_search(root: Path, repeats: int) -> None:
    rg = find_rg()
    if rg is None:
        print("rg not found; skipping search benchmarks")
        return
    grep_limit = 100_000
    grep = create_grep_tool(str(root))
    find = create_find_tool(str(root))

    def rg_grep() -> object:
        args = [rg, "--json", "--line-number", "--color=never", *RG_COMMON_FLAGS, "--", "needle", str(root)]
        return subprocess.run(args, capture_output=True, check=False, cwd=root)

    def rg_files() -> object:
        args = [rg, "--files", *RG_COMMON_FLAGS, "--", str(root)]
        return subprocess.run(args, capture_output=True, check=False, cwd=root)

    hits = run_tool(grep, {"pattern": "needle", "limit": grep_limit}).count("needle_function")
    listed = sum(1 for p in root.rglob("*.py"))
    print(f"grep 'needle' ({hits} matching lines)")
    base = timed(rg_grep, repeats)
    report("rg --json (baseline)", base, base)
    grep_params = {"pattern": "needle", "limit": grep_limit}
    report(
        "grep tool, native", timed(with_backend("native", lambda: run_tool(grep, grep_params)), repeats), base
    )
    report(
        "grep tool, python fallback",
        timed(with_backend("python", lambda: run_tool(grep, grep_params)), 1),
        base,
    )

    print(f"find '**/*.py' ({listed} matching files; the tool's text stops at 50KB)")
    base = timed(rg_files, repeats)
    report("rg --files (baseline)", base, base)
    find_params = {"pattern": "**/*.py", "limit": grep_limit}
    report(
        "find tool, native", timed(with_backend("native", lambda: run_tool(find, find_params)), repeats), base
    )
    report(
        "find tool, python fallback",
        timed(with_backend("python", lambda: run_tool(find, find_params)), 1),
        base,
    )


def bench_edit(directory: Path, repeats: int) -> None:
    path = directory / "big.txt"
    line_count = 20 * 1024 * 1024 // 50
    lines = [f"{n:08d} some ordinary source text padding it out....\n" for n in range(line_count)]
    original = "".join(lines)
    middle = lines[line_count // 2]
    fuzzy_original = original.replace(middle, middle[:-1] + "   \n")
    edit = create_edit_tool(str(directory))
    print(f"edit one line of a {len(original.encode()) / 1e6:.1f} MB file ({line_count} lines)")

    def plain() -> None:
        text = path.read_text()
        path.write_text(text.replace(middle, "CHANGED\n", 1))

    def reset(content: str) -> Callable[[], None]:
        return lambda: path.write_text(content)

    def run_edit(old: str) -> Callable[[], object]:
        return lambda: run_tool(
            edit, {"path": "big.txt", "edits": [{"oldText": old, "newText": "CHANGED\n"}]}
        )

    def measure(setup: Callable[[], None], action: Callable[[], object]) -> float:
        samples = []
        for _ in range(repeats):
            setup()
            started = time.perf_counter()
            action()
            samples.append(time.perf_counter() - started)
        return statistics.median(samples)

    base = measure(reset(original), plain)
    report("read+replace+write (baseline)", base, base)
    report("edit tool, exact match", measure(reset(original), run_edit(middle)), base)
    report("edit tool, fuzzy match", measure(reset(fuzzy_original), run_edit(middle)), base)


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory(prefix="pi-bench-tools-") as tmp:
        root = Path(tmp) / "tree"
        started = time.perf_counter()
        build_tree(root, files)
        print(f"built {files} files in {time.perf_counter() - started:.1f} s\n")
        bench_search(root, repeats)
        print()
        bench_edit(Path(tmp), repeats)


if __name__ == "__main__":
    main()
