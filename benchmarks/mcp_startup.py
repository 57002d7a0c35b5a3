"""Start-up with three configured MCP servers versus none (issue 22 acceptance 5), in one run.

Each round runs ``pi -p hi --no-session`` against the loopback fake LLM server twice, with
throwaway HOMEs that differ only in ``~/.pi/agent/mcp.json``: none, and three servers (the reference
``@modelcontextprotocol/server-everything`` over stdio, ``mcp-server-time``, and a script that never
answers ``initialize``; none with ``direct`` tools, so no prompt needs to wait for them). The two
variants alternate, so both see the same machine load. Figures per variant (medians):

- ``first request``: from spawning pi to the fake server receiving the model request (what a
  user waits for: the servers connect in the background and must not hold it up);
- ``total``: until pi exited (includes stopping the servers);
- ``cpu``: user + system time of pi and its children; ``until the request``: pi's own CPU time
  (every thread, from /proc) when its request reached the fake server, the figure a busy machine
  disturbs least;
- ``first frame``: plain ``pi`` (the app) on a pseudo-terminal, from spawning it to the first
  frame that shows pi's version (a small wrapper notes the moment and ends the process).

In print mode the servers connect once the model's answer has started (``session_tools``), so the
first request does not share the CPU with the SDK import (1-2 s of pydantic models) and the
servers' own start-up; the app starts connecting on its agent thread after its first frame.

Figures (2-core VM shared with other sessions, load 5-7, 7 rounds, 2026-12-04): none — first
request 1.443 s (fastest 1.321 s), pi's CPU until it 0.630 s, first frame 1.138 s; three servers —
first request 1.469 s (fastest 1.259 s), CPU until it 0.580 s, first frame 1.044 s: +26 ms, -50 ms
and -95 ms, inside the noise. Before print mode deferred connecting, the same run showed +180 to
+310 ms of CPU before the request (the SDK import competing in its worker thread).

Usage: ``.venv/bin/python benchmarks/mcp_startup.py [rounds]`` (default 5). Prints figures only.
The machine this was written on was shared by several busy sessions (load 5-7 on 2 cores): the
medians there moved by ±300 ms between identical runs, so compare within one run, and the
fastest run as well as the median.
Skips a server that is not installed (say which).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai.testing import text  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402

PI = str(Path(sys.executable).with_name("pi"))
EVERYTHING = ROOT / "tests" / "_deps" / "node_modules" / ".bin" / "mcp-server-everything"
HANG = "import sys, time\nsys.stdin.readline()\ntime.sleep(3600)\n"
FRAME_WRAPPER = """
import os, sys, time
from textual.drivers import linux_driver

out, marker = sys.argv[1], sys.argv[2]
write = linux_driver.LinuxDriver.write

def first_frame(self, data):
    write(self, data)
    if marker in data:
        with open(out, "w") as f:
            f.write(repr(time.time()))
        os._exit(0)

linux_driver.LinuxDriver.write = first_frame
sys.argv = ["pi"]
from pi_app.cli import main
sys.exit(main())
"""


def _first_frame(home: Path, cwd: Path, wrapper: Path) -> float:
    from pi_app import __version__
    from tests.tui_term.pty_terminal import PtyTerminal

    out = wrapper.with_suffix(".out")
    out.unlink(missing_ok=True)
    env = {"HOME": str(home), "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"), "PI_OFFLINE": "1"}
    started = time.time()
    term = PtyTerminal(
        [sys.executable, str(wrapper), str(out), f"v{__version__}"], size=(120, 40), cwd=str(cwd), env=env
    )
    try:
        term.wait_for(lambda: out.exists() and out.stat().st_size > 0, timeout=60)
    finally:
        term.close()
    return float(out.read_text()) - started


def _home(root: Path, name: str, base_url: str, servers: dict[str, object] | None) -> Path:
    home = root / name
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "fake-model"}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    if servers is not None:
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return home


def _cpu_seconds(pid: int) -> float | None:
    """utime + stime of a running process (all its threads), from /proc (10 ms ticks)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(home: Path, cwd: Path, server: FakeLLMServer) -> tuple[float, float, float, float]:
    server.enqueue(text("ok"))
    before = len(server.requests)
    usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {
        **os.environ,
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
        "PI_OFFLINE": "1",
    }
    started = time.monotonic()
    proc = subprocess.Popen(
        [PI, "--provider", "fake", "--model", "fake-model", "--no-session", "-p", "hi"],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    cpu_at_request = 0.0
    while proc.poll() is None and len(server.requests) <= before:  # pi's own CPU until its request
        cpu_at_request = _cpu_seconds(proc.pid) or cpu_at_request
        time.sleep(0.002)
    _out, err = proc.communicate(timeout=120)
    total = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or len(server.requests) <= before:
        raise SystemExit(f"pi failed: {err.strip()}")
    first = server.requests[before].received_at - started
    cpu = (usage.ru_utime - usage_before.ru_utime) + (usage.ru_stime - usage_before.ru_stime)
    return first, total, cpu, cpu_at_request


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        root = Path(tmp)
        hang = root / "hang.py"
        hang.write_text(HANG)
        servers: dict[str, object] = {"hangs": {"command": sys.executable, "args": [str(hang)]}}
        try:
            import mcp_server_time  # noqa: F401

            servers["time"] = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
        except ImportError:
            print("mcp-server-time not installed: left out")
        if EVERYTHING.exists():
            servers["everything"] = {"command": str(EVERYTHING), "args": ["stdio"]}
        else:
            print("server-everything not installed (cd tests/_deps && npm install): left out")
        cwd = root / "project"
        cwd.mkdir()
        homes = {
            "none": _home(root, "none", server.base_url, None),
            f"{len(servers)} servers": _home(root, "three", server.base_url, servers),
        }
        for home in homes.values():  # warm-up (bytecode, npm's first start)
            _run(home, cwd, server)
        wrapper = root / "first_frame.py"
        wrapper.write_text(FRAME_WRAPPER)
        figures: dict[str, list[tuple[float, ...]]] = {name: [] for name in homes}
        for _ in range(rounds):
            for name, home in homes.items():
                figures[name].append((*_run(home, cwd, server), _first_frame(home, cwd, wrapper)))
        print(f"pi -p with MCP servers configured vs none, {rounds} rounds (medians)")
        base: tuple[float, float, float] | None = None
        for name, runs in figures.items():
            first, total, cpu, cpu_first, frame = (statistics.median(r[i] for r in runs) for i in range(5))
            fastest = min(r[0] for r in runs)
            extra = ""
            if base is not None:
                extra = (
                    f"  (first request {1000 * (first - base[0]):+.0f} ms, its CPU {1000 * (cpu_first - base[2]):+.0f} ms,"
                    f" first frame {1000 * (frame - base[1]):+.0f} ms)"
                )
            else:
                base = (first, frame, cpu_first)
            print(
                f"  {name:>10}: first request {first:.3f} s (fastest {fastest:.3f} s)  total {total:.3f} s"
                f"  cpu {cpu:.3f} s (until the request {cpu_first:.3f} s)  first frame {frame:.3f} s{extra}"
            )


if __name__ == "__main__":
    main()
