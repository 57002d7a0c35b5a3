"""A stand-in ``vllm`` for the pods tests: ``vllm serve <model> --port N ...`` serves the project's
fake LLM server on that port, as the real vLLM serves its OpenAI-compatible API.

The test installs it on the "pod" (the local machine behind a test sshd) as an executable named
``vllm``. It records each call (argv and the environment vLLM reads) in ``$HOME/vllm-calls.jsonl``
and each HTTP request (path, Authorization header, model) in ``$HOME/vllm-requests.jsonl``, takes
its scripted turns from ``$HOME/fake-turns.json`` (a list of turns, each a list of step strings),
checks the bearer key against ``VLLM_API_KEY`` as vLLM does, and prints vLLM's start-up line (or,
when ``$HOME/vllm-fail`` exists, a CUDA out-of-memory error and exit status 1).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

HOME = Path(os.environ["HOME"])


def record(name: str, entry: dict[str, Any]) -> None:
    with open(HOME / name, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--version"]:
        print("0.0.0+stand-in")
        return 0
    env = {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "VLLM_API_KEY", "HF_TOKEN", "HF_HOME")}
    record("vllm-calls.jsonl", {"argv": argv, "env": env, "pid": os.getpid()})
    if argv[:1] != ["serve"] or "--port" not in argv:
        print(f"stand-in vllm: unsupported arguments {argv}", file=sys.stderr)
        return 2
    port = int(argv[argv.index("--port") + 1])
    if (HOME / "vllm-fail").exists():  # the test asks for a start-up failure
        print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB", flush=True)
        return 1

    from tests.fakes.llm_server import FakeLLMServer

    key = os.environ.get("VLLM_API_KEY")

    class RecordingServer(FakeLLMServer):
        async def _respond(self, request, reader, writer):  # type: ignore[no-untyped-def]
            record(
                "vllm-requests.jsonl",
                {
                    "path": request.path,
                    "authorization": request.headers.get("authorization"),
                    "model": (request.body or {}).get("model") if isinstance(request.body, dict) else None,
                },
            )
            if key and request.path != "/health" and request.headers.get("authorization") != f"Bearer {key}":
                await self._send_plain(writer, 401, {"error": {"message": "Unauthorized"}})
                return
            await super()._respond(request, reader, writer)

    server = RecordingServer(host="127.0.0.1", port=port)
    turns_file = HOME / "fake-turns.json"
    if turns_file.exists():
        server.enqueue_turns(json.loads(turns_file.read_text()))
    server.start()
    print(f"INFO:     Started server process [{os.getpid()}]", flush=True)
    print("INFO:     Waiting for application startup.", flush=True)
    print("INFO:     Application startup complete.", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    while not done.wait(0.5):
        pass
    server.stop()
    print("INFO:     Shutting down", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
