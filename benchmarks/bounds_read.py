"""Peak memory of ``pi -p`` when the model reads a 100 MB file (issue 12 item 6).

The read tool returns at most 2000 lines / 50 KB (spec 50 R-READ), so pi should not hold the
whole file. Two shapes: many short lines, and one single 100 MB line. Printed: peak RSS of a
baseline (a tiny file) and of each big read.

Usage: ``.venv/bin/python benchmarks/bounds_read.py [bytes]``
"""

from __future__ import annotations

import sys
from pathlib import Path

from bounds_common import measure, report

from pi_app.ai.testing import text, tool_call

TURNS = [[tool_call("read", {"path": "big.txt"}, id="call_1")], [text("done")]]


def run(size: int) -> None:
    line = b"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n"

    def small(project: Path) -> None:
        (project / "big.txt").write_bytes(line * 10)

    def lines(project: Path) -> None:
        with open(project / "big.txt", "wb") as fh:
            chunk = line * (1_048_576 // len(line))
            for _ in range(size // len(chunk)):
                fh.write(chunk)

    def one_line(project: Path) -> None:
        with open(project / "big.txt", "wb") as fh:
            for _ in range(size // 1_048_576):
                fh.write(b"x" * 1_048_576)

    results = [
        measure("baseline (10-line file)", TURNS, ["-p", "go"], small),
        measure(f"read {size / 1e6:.0f} MB of short lines", TURNS, ["-p", "go"], lines),
        measure(f"read a {size / 1e6:.0f} MB single line", TURNS, ["-p", "go"], one_line),
    ]
    report("read tool", results)


if __name__ == "__main__":
    run(int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000_000)
