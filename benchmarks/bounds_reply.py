"""Peak memory of pi while the model streams a 10 MB reply (issue 12 item 6).

The fake server streams N bytes (default 10 MB) of text in 1000 deltas. Print mode keeps the
message; JSON mode also writes every ``message_update`` (pi 0.73.1's full form, decision D-4) to
stdout (here /dev/null), so its output grows with the reply but its memory should not grow with
the number of events. Printed: peak RSS of a baseline (a short reply) and of each big run.

Last figures (2 cores, 10 MB): print mode +34 MB over the baseline, JSON mode +44 MB. JSON mode was
+92 MB while every update encoded the streaming message twice (``partial`` and ``message``) into one
string and then copied that into bytes; ``pi_app.modes.serialize`` now encodes it once and the
writer sends it in 1 MB slices (same bytes on the wire).

Usage: ``.venv/bin/python benchmarks/bounds_reply.py [bytes] [deltas]``
"""

from __future__ import annotations

import sys

from bounds_common import measure, report

from pi_app.ai.testing import text


def run(size: int, deltas: int) -> None:
    body = ("lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]
    results = [
        measure("baseline (short reply)", [[text("hi")]], ["-p", "go"]),
        measure(f"print mode, {size / 1e6:.0f} MB reply", [[text(body, chunks=deltas)]], ["-p", "go"]),
        measure(
            f"JSON mode, {size / 1e6:.0f} MB in {deltas // 10} deltas",
            [[text(body, chunks=deltas // 10)]],
            ["--mode", "json", "go"],
        ),
    ]
    report("model reply", results)


if __name__ == "__main__":
    args = sys.argv[1:]
    run(int(float(args[0])) if args else 10_000_000, int(args[1]) if len(args) > 1 else 1000)
