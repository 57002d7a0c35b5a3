"""Bytes ``pi --mode json`` writes for answers of growing length, beside pi 1.6.0 (issue 18).

Usage: ``.venv/bin/python benchmarks/json_stream_size.py [--sizes 1000,2000,...] [--delta 16]``.

Each answer streams in ``--delta``-character deltas from the loopback fake server (OpenAI Chat
Completions wire, ``tests/fakes/llm_server.py``) to ``pi --mode json --no-session``, through the
child runner of ``vs_pi16.py`` (same throwaway HOME and ``PI_OFFLINE=1`` for both programs). For
each size it prints the bytes written and the bytes per answer character: a constant figure is
linear growth (1.6.0's delta-only ``message_update``). The last line compares the growth from the
smallest to the largest answer with the growth of the answer itself; the cumulative 0.73.1 form
grew with its square. pi 1.6.0 is ``/work/ref/pi16/pi16`` (or ``$PI16``); without it only this
pi's figures are printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vs_pi16 import Bench, _cache_transcripts, answer_text

from pi_app.ai.testing import text
from tests.fakes.llm_server import FakeLLMServer


def main() -> None:
    parser = argparse.ArgumentParser(description="JSON-mode output bytes per answer length")
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000,32000")
    parser.add_argument("--delta", type=int, default=16, help="characters per streamed delta")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    _cache_transcripts()
    print(f"pi --mode json, bytes written per answer ({options.delta}-character deltas)")
    with tempfile.TemporaryDirectory(prefix="json-size-") as tmp, FakeLLMServer() as server:
        bench = Bench(Path(tmp), server, runs=1, heavy_runs=1)
        bench.note_missing()
        table: dict[str, dict[int, int]] = {name: {} for name in bench.programs}
        for chars in sizes:
            turn = [text(answer_text(chars), chunks=max(1, chars // options.delta))]
            figures = bench.interleaved(["--no-session", "--mode", "json", "go"], [turn], 1)
            for name, figure in figures.items():
                table[name][chars] = int(figure[3])
        header = "  answer chars " + "".join(f"{name:>26}" for name in table)
        print(header)
        for chars in sizes:
            cells = "".join(
                f"{table[name][chars]:>14,} B {table[name][chars] / chars:6.1f} B/ch" for name in table
            )
            print(f"  {chars:>12,} {cells}")
        first, last = sizes[0], sizes[-1]
        for name, row in table.items():
            print(
                f"  {name}: answer x{last / first:.0f} -> output x{row[last] / row[first]:.1f}"
                " (linear: about the same factor; quadratic: its square)"
            )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
