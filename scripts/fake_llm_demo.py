"""Start the loopback fake LLM server with a scripted conversation, for trying ``pi`` by hand.

    python scripts/fake_llm_demo.py /tmp/pi-demo-home

writes ``<home>/.pi/agent/models.json`` pointing a ``fake`` provider at the server and keeps
serving until interrupted. Then, in another terminal::

    HOME=/tmp/pi-demo-home PI_OFFLINE=1 pi

Each prompt takes the next scripted turn: a markdown answer with code, a ``bash`` tool call
(``ls``) followed by a summary, an ``edit``-free plain answer, then the script starts over. Used
for the tmux acceptance runs and for comparing with the TypeScript pi against the same server.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai.testing import text, tool_call  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402

MARKDOWN = "Hello! I am the fake model.\n\n- item one\n- item two\n\n```python\nprint('hi')\n```\n"


def turns() -> list[list[object]]:
    return [
        [text(MARKDOWN, chunks=8)],
        [text("Let me list the files.", chunks=3), tool_call("bash", {"command": "ls"}, id="call_ls")],
        [text("The directory listing is above.", chunks=3)],
        [text("A follow-up answer, streamed in a few pieces.", chunks=5)],
    ]


def main() -> None:
    home = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/pi-demo-home")
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    server = FakeLLMServer().start()
    config = {
        "providers": {
            "fake": {
                "baseUrl": server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [{"id": "fake-model", "contextWindow": 128000}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config), encoding="utf-8")
    print(f"fake server at {server.base_url}; HOME={home}", flush=True)
    try:
        while True:
            if server.pending_turns < 2:
                server.enqueue_turns(turns())
            time.sleep(0.2)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
