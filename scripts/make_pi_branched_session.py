"""Have the TypeScript pi write a *branched* session file, for ``tests/fixtures/pi-reference``.

    python scripts/make_pi_branched_session.py <pi-package-dir> <out.jsonl>

``<pi-package-dir>`` holds ``node_modules/@mariozechner/pi-coding-agent`` (``npm install
@mariozechner/pi-coding-agent@0.73.1`` there). The script starts the loopback fake LLM server,
writes a throwaway HOME with ``models.json`` and a small extension whose commands move the leaf
(``ctx.navigateTree``) and label entries (``pi.setLabel``), then drives ``pi --mode rpc``:

    hello → plan the refactor (bash ls, then an answer)
    /mark hello|start                          a label on the first message
    /goto Hi!|summary                          back to the first answer, summarising the plan branch
    write the tests instead → an answer        a second branch, after the branch summary
    /goto Here is the plan                     back to the first branch, no summary
    continue the plan → an answer              the leaf

The session file is copied to ``<out.jsonl>`` with the temp paths rewritten to ``/home/user`` and
``/home/user/project`` like the other reference files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai.testing import text, tool_call  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402

EXTENSION = """
function textOf(message: any): string {
  const c = message?.content;
  if (typeof c === "string") return c;
  return (c ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("");
}

function find(ctx: any, start: string): any {
  return ctx.sessionManager.getEntries().find(
    (e: any) => e.type === "message" && textOf(e.message).startsWith(start),
  );
}

export default function (pi: any) {
  pi.registerCommand("goto", {
    description: "move the leaf to the message starting with the argument",
    handler: async (args: string, ctx: any) => {
      const [start, mode] = args.split("|");
      const target = find(ctx, start);
      await ctx.navigateTree(target.id, mode === "summary" ? { summarize: true, label: "explored" } : {});
    },
  });
  pi.registerCommand("mark", {
    description: "label the message starting with the argument",
    handler: async (args: string, ctx: any) => {
      const [start, label] = args.split("|");
      pi.setLabel(find(ctx, start).id, label);
    },
  });
}
"""

SCRIPT = [
    ("hello", 1),
    ("plan the refactor", 1),
    ("/mark hello|start", 0),
    ("/goto Hi!|summary", 0),
    ("write the tests instead", 1),
    ("/goto Here is the plan", 0),
    ("continue the plan", 1),
]


def turns() -> list[list[object]]:
    return [
        [text("Hi! How can I help?")],
        [text("Let me look first."), tool_call("bash", {"command": "ls"}, id="call_ls")],
        [text("Here is the plan: split the parser.")],
        [text("## Goal\nRefactor the parser.\n\n## Progress\nListed the files; planned the split.")],
        [text("The tests are written.")],
        [text("Step one of the plan is done.")],
    ]


def main() -> None:
    package_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    pi = package_dir / "node_modules" / "@mariozechner" / "pi-coding-agent" / "dist" / "cli.js"
    work = Path(tempfile.mkdtemp(prefix="tui-nav-piref-"))
    home, project = work / "home", work / "project"
    agent_dir = home / ".pi" / "agent"
    (agent_dir / "extensions").mkdir(parents=True)
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    (agent_dir / "extensions" / "branching.ts").write_text(EXTENSION)
    server = FakeLLMServer().start()
    server.enqueue_turns(turns())
    models = {
        "providers": {
            "fake": {
                "baseUrl": server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [{"id": "fake-model", "contextWindow": 128000}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    (agent_dir / "settings.json").write_text(
        json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"})
    )
    env = {**os.environ, "HOME": str(home), "PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(agent_dir)}
    proc = subprocess.Popen(
        ["node", str(pi), "--mode", "rpc"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message, runs in SCRIPT:
            proc.stdin.write(json.dumps({"type": "prompt", "message": message}) + "\n")
            proc.stdin.flush()
            if runs:
                for line in proc.stdout:
                    if json.loads(line).get("type") == "agent_end":
                        break
            else:
                for line in proc.stdout:
                    event = json.loads(line)
                    if event.get("type") == "response":
                        if not event.get("success"):
                            raise SystemExit(f"{message}: {event}")
                        break
                time.sleep(1.5)  # the command runs after the response
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
        server.stop()
    files = sorted((agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 1, files
    body = files[0].read_text()
    body = body.replace(str(project), "/home/user/project").replace(str(home), "/home/user")
    out.write_text(body)
    print(f"wrote {out} ({len(body.splitlines())} lines)")


if __name__ == "__main__":
    main()
