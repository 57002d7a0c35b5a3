"""Start-up cost of the ``pi`` command: ``pi --version`` and ``pi -p`` against the loopback fake server.

Each command runs N times (default 5) as a child process with a throwaway HOME whose
``models.json`` points at ``tests/fakes/llm_server.py``; the figures are the median wall time and
the median peak resident memory (``ru_maxrss`` of that child, from ``os.wait4`` in a small helper). ``-p`` runs with
``--no-session`` so the runs do not read each other's session files. CPU time (user + system) is
printed next to wall time because it moves less when the machine is busy.

Bytecode: the children run without ``PYTHONDONTWRITEBYTECODE`` and one unmeasured warm-up run
comes first, so the figures are those of an installed pi (pip writes ``.pyc`` files at install
time), not of compiling every module from source on each start.

Targets (issue 8): ``--version`` under 0.15 s and ``-p`` under 0.5 s, both under 60 MiB. For
reference, the TypeScript pi 0.73.1 measured on this machine: ``--version`` 0.90 s / 135 MiB,
``-p`` 0.98 s / 169 MiB.

Figures (2-core VM, Python 3.11.7), issue 8 acceptance 4, against the revision before it in the
same run (``--baseline``), 11 runs: ``-p`` median 0.331 s wall / 0.316 s CPU / 41.7 MiB against
0.435 s / 0.416 s / 43.6 MiB (-24 %; on a busy machine -16 % wall, -26 % CPU); ``--version``
unchanged. Instructions of one ``-p`` run (``valgrind --tool=callgrind``, deterministic): 1.311 G
against 1.564 G (-16 %). What it took: httpcore on plain asyncio instead of anyio, the cyclic GC
off during start-up and the start-up objects frozen after it, pydantic's plugin loader not imported
while plugins are off, tool internals, tree navigation, session listing and theme files loaded on
first use, rarely needed regexes compiled on first use, the model catalogue read without
``importlib.resources``, and docstrings on the dataclasses a run builds (``dataclasses`` otherwise
renders ``inspect.signature`` into each ``__doc__``). Most of what remains is importing: building
~200 dataclasses (``exec`` of their generated methods, a third of all instructions), pydantic and
its models (settings, ``models.json``, tool parameters), httpx.

Issue 20 took pydantic off the start path (settings, ``models.json``, the built-in tools'
parameters and the RPC commands became msgspec Structs; ``tests/e2e/test_startup_imports.py`` pins
it). Against the revision before it in the same run, 11 runs on a busy 2-core VM (load ~1.5):
``-p`` median 0.416 s wall / 0.414 s CPU / 34.1 MiB against 0.511 s / 0.505 s / 42.7 MiB (-19 %;
a quieter run gave 0.339 s against 0.456 s, -26 %); ``--version`` unchanged. Instructions of one
``-p`` run: 1.021 G against 1.403 G (-27 %).

Comparing with another revision: ``--baseline DIR`` names a source tree of it (for example
``git archive main | tar -x -C DIR``); its runs take ``pi_app`` from there (``PYTHONPATH``) and
alternate with this tree's, so both sets of figures see the same machine load. Timings on a shared
machine are noisy: compare figures from one run, never across runs.

Usage: ``.venv/bin/python benchmarks/startup.py [runs] [--baseline DIR]``. Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai.testing import text  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402

PI = str(Path(sys.executable).with_name("pi"))
TARGETS = {"--version": (0.15, 60.0), "-p": (0.5, 60.0)}
TYPESCRIPT_PI = {"--version": (0.90, 135.0), "-p": (0.98, 169.0)}


# A small helper process starts each measured child with posix_spawn and reports wait4's figures.
# ru_maxrss counts the memory a child inherits before exec, so forking from this benchmark (which
# holds the fake server and pi_app) would report our size, not pi's; the helper is a bare
# interpreter, smaller than any pi run.
MEASURER = """
import os, sys, time
out = os.open(os.devnull, os.O_WRONLY)
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=[
    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, out, 1)])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
print(os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def run_once(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS in MiB of one child run."""
    proc = subprocess.run(
        [sys.executable, "-S", "-c", MEASURER, *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    code, wall, cpu, peak_kib = proc.stdout.split()
    if proc.returncode != 0 or code != "0":
        raise SystemExit(f"{' '.join(args)} failed ({code}): {proc.stderr[-500:]}")
    return float(wall), float(cpu), int(peak_kib) / 1024


def measure(
    name: str, args: list[str], envs: dict[str, dict[str, str]], cwd: str, runs: int, before=None
) -> None:
    """Run ``args`` ``runs`` times under each labelled environment, interleaved; print one row each."""
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in envs}
    for n in range(runs + 1):
        for label, env in envs.items():
            if before is not None:
                before()
            sample = run_once(args, env, cwd)
            if n > 0:  # the first round is a warm-up: it writes the bytecode caches
                samples[label].append(sample)
    target_wall, target_mem = TARGETS[name]
    ts_wall, ts_mem = TYPESCRIPT_PI[name]
    for label, rows in samples.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        peak = statistics.median(r[2] for r in rows)
        verdict = "ok" if wall < target_wall and peak < target_mem else "OVER TARGET"
        print(
            f"{label:<9} pi {name:<10} median {wall:6.3f} s  cpu {cpu:6.3f} s  peak {peak:6.1f} MiB   "
            f"(target < {target_wall} s, < {target_mem:.0f} MiB: {verdict}; "
            f"TypeScript pi {ts_wall} s / {ts_mem:.0f} MiB)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description="pi start-up: wall time, CPU time and peak memory")
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--baseline", help="source tree of a revision to compare with (its pi_app)")
    options = parser.parse_args()
    runs = options.runs
    with tempfile.TemporaryDirectory() as home, FakeLLMServer() as server:
        agent_dir = Path(home) / ".pi" / "agent"
        agent_dir.mkdir(parents=True)
        config = {
            "providers": {
                "fake": {
                    "baseUrl": server.base_url + "/v1",
                    "api": "openai-completions",
                    "apiKey": "fake-key",
                    "models": [{"id": "fake-model"}],
                }
            }
        }
        (agent_dir / "models.json").write_text(json.dumps(config))
        env = dict(os.environ, HOME=home, PI_CODING_AGENT_DIR=str(agent_dir), PI_OFFLINE="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("PYTHONPATH", None)
        envs = {"this": env}
        if options.baseline:
            envs["baseline"] = dict(env, PYTHONPATH=str(Path(options.baseline).resolve()))
        print(f"{runs} runs each, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
        measure("--version", [PI, "--version"], envs, home, runs)
        measure(
            "-p",
            [PI, "--no-session", "-p", "say hi"],
            envs,
            home,
            runs,
            before=lambda: server.enqueue(text("hi")),
        )


if __name__ == "__main__":
    main()
