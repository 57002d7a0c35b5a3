"""Peak memory of ``pi -p`` while the bash tool prints a huge output (issue 12 item 6).

The model asks for one bash command that writes N bytes (default 1 GB) of short lines; pi keeps
only a bounded tail in memory (spills the rest to a temp file, spec 50 R-BASH) and sends a
truncated result back. Printed: peak RSS of a baseline run (a few bytes of output) and of the
big one, and the difference.

Usage: ``.venv/bin/python benchmarks/bounds_tool_output.py [bytes]``
"""

from __future__ import annotations

import sys

from bounds_common import measure, report

from pi_app.ai.testing import text, tool_call


def run(size: int) -> None:
    def turns(command: str) -> list[list]:
        return [[tool_call("bash", {"command": command}, id="call_1")], [text("done")]]

    baseline = measure("baseline (echo)", turns("echo small"), ["-p", "go"])
    big = measure(
        f"bash prints {size / 1e9:.2f} GB",
        turns(f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {size}"),
        ["-p", "go"],
    )
    report("bash tool output", [baseline, big])


if __name__ == "__main__":
    run(int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000_000)
