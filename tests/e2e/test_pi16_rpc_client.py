"""pi 1.6.0's own ``RpcClient`` (its dist/modes/rpc/rpc-client.js, run with Node 22) drives this pi's
``pi --mode rpc`` through every command of 1.6.0's docs/rpc-commands.md against the loopback fake
LLM server (issue 18 acceptance 1): dispositions, ``promptAndWait``/``waitForIdle``/``collectEvents``
waiting for ``agent_settled``, queueing, abort, and each command's response. Skipped when the
reference install (or its Node) is not on this machine."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from pi_app.ai.testing import Step, delay, hang, text, tool_call
from tests.e2e.helpers import PI, write_models_json
from tests.fakes.llm_server import RecordedRequest

PI16 = Path("/work/ref/pi16/node_modules")
NODE_BIN = PI16 / ".bin"
CLIENT_JS = PI16 / "@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js"
DRIVER = Path(__file__).parent / "pi16_client" / "drive.mjs"

pytestmark = pytest.mark.skipif(
    not (CLIENT_JS.exists() and (NODE_BIN / "node").exists()), reason="pi 1.6.0 and Node 22 not installed"
)


def _last_user_text(request: RecordedRequest) -> tuple[str, str]:
    messages = (request.body or {}).get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(last.get("role")), str(content or "")


def _responder(request: RecordedRequest) -> Sequence[Step | str]:
    role, said = _last_user_text(request)
    if role == "tool":
        return [text(f"done: {said.strip()}")]
    if said == "hello":
        return [text("Hi there.")]
    if said == "run echo":
        return [text("Running it."), tool_call("bash", {"command": "echo from-the-tool"}, id="call_e")]
    if said == "slow":
        return [text("slow "), delay(1.5), text("answer")]
    if said == "hang":
        return [text("hanging"), hang()]
    return [text(f"echo: {said[:40]}")]


def test_pi_16s_rpc_client_drives_every_command(llm_server, project: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, llm_server.base_url, reasoning=True)
    llm_server.respond_with(_responder)
    (agent_dir / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 1}}))
    env = dict(os.environ)
    env.update(
        PATH=f"{NODE_BIN}:{env.get('PATH', '')}",
        PI_UNDER_TEST=PI,
        RPC_CLIENT_JS=str(CLIENT_JS),
        PROJECT_DIR=str(project),
    )
    run = subprocess.run(
        [str(NODE_BIN / "node"), str(DRIVER)], env=env, capture_output=True, text=True, timeout=240
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    failed = {k: v["error"] for k, v in out.items() if not v["ok"] and k != "setModelUnknown"}
    assert not failed, failed
    value = {k: v.get("value") for k, v in out.items()}

    assert value["getState"]["model"]["id"] == "fake-model" and value["getState"]["isStreaming"] is False
    assert value["promptAndWait"][0] == "agent_start" and value["promptAndWait"][-2:] == [
        "agent_end",
        "agent_settled",
    ]
    tool = value["toolTurn"]
    assert tool["toolEnd"]["toolName"] == "bash" and isinstance(tool["toolEnd"]["durationMs"], int)
    assert tool["updateKeys"] == ["type", "usage", "assistantMessageEvent"]
    queue = value["queueing"]
    assert queue["dispositions"] == ["started", "queued", "queued", "queued"]
    assert queue["busy"].startswith("Agent is already processing")
    assert queue["users"][0] == "slow" and set(queue["users"][1:]) == {
        "steer-now",
        "follow-later",
        "as-follow-up",
    }
    assert queue["last"] == {"type": "agent_settled", "aborted": False}
    assert value["abort"] == {"type": "agent_settled", "aborted": True}
    assert value["clearQueue"] == {"steering": [], "followUp": []}
    assert value["collectEvents"] == ["agent_end", "agent_settled"]
    assert value["getMessages"][:2] == ["user", "assistant"]
    assert value["getLastAssistantText"] == "echo: collect"
    assert "fake/fake-model" in value["getAvailableModels"]
    assert value["setModel"] == "fake-model"
    assert out["setModelUnknown"]["ok"] is False and "nope/missing" in out["setModelUnknown"]["error"]
    assert value["getAvailableThinkingLevels"] == ["off", "minimal", "low", "medium", "high"]
    assert value["setThinkingLevel"] == "high"
    assert value["cycleThinkingLevel"] == {"level": "off"}
    assert value["modes"] == ["all", "all", False]
    assert value["bash"]["output"] == "from-bash\n" and value["bash"]["exitCode"] == 0
    assert {"summary", "firstKeptEntryId", "tokensBefore"} <= set(value["compact"])
    assert {"sessionFile", "sessionId", "tokens", "cost"} <= set(value["getSessionStats"])
    assert Path(value["exportHtml"]).is_file()
    assert [m["text"] for m in value["getForkMessages"]][:2] == ["hello", "run echo"]
    assert value["getEntries"] > 5 and value["getTree"] == "string"
    assert value["setSessionName"] == "contract run"
    assert value["getCommands"] is True
    assert value["fork"] == {"text": "run echo", "cancelled": False}
    assert value["clone"] == {"cancelled": False}
    assert value["newSession"] == {"result": {"cancelled": False}, "messageCount": 0}
    assert value["switchSession"] == {"result": {"cancelled": False}, "sessionFile": True}
