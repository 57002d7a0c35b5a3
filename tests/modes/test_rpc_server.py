"""The RPC server in process, over the scripted provider: errors, busy prompts, queueing, state,
models, thinking levels, bash, names, EOF and interruption."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.testing import delay, fake_model, text
from tests.modes.rpc_harness import make_harness

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference"


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    (tmp_path / "a.txt").write_text("A\n")
    return str(tmp_path)


async def test_errors_echo_the_id_and_the_server_keeps_serving(cwd: str) -> None:
    h = await make_harness(cwd, [[delay(0.3), text("slow answer")]])
    h.send_raw(b"{not json\n")
    h.send({"id": "u1", "type": "frobnicate"})
    h.send({"id": "m1", "type": "set_model", "provider": "fake"})
    h.send({"id": "p1", "type": "prompt", "message": "first"})
    h.send({"id": "p2", "type": "prompt", "message": "second while busy"})
    assert (await h.response("u1"))["error"] == "Unknown command: frobnicate"
    missing = await h.response("m1")
    assert missing["success"] is False and "modelId" in missing["error"]
    assert (await h.response("p1"))["success"] is True
    busy = await h.response("p2")
    assert busy["success"] is False and "streamingBehavior" in busy["error"]
    parse = [r for r in h.responses() if r["command"] == "parse"]
    assert len(parse) == 1 and "id" not in parse[0]
    # one response per request, and the server still answers afterwards
    assert [len(h.responses(i)) for i in ("u1", "m1", "p1", "p2")] == [1, 1, 1, 1]
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    state = await h.request({"id": "s", "type": "get_state"})
    assert state["success"] and state["data"]["messageCount"] == 2
    assert await h.close() == 0


async def test_prompt_response_precedes_the_run_and_events_follow_pi_order(cwd: str) -> None:
    h = await make_harness(cwd, [[text("hello")]])
    h.send({"id": "p", "type": "prompt", "message": "hi\u2028there"})
    await h.wait_for(lambda x: x.get("type") == "agent_settled")
    lines = h.lines()
    assert lines[0] == {
        "id": "p",
        "type": "response",
        "command": "prompt",
        "success": True,
        "data": {"disposition": "started"},
    }
    types = [x["type"] for x in lines[1:]]
    assert types[:6] == ["agent_start", "turn_start", *["message_start", "message_end"] * 2]
    assert lines[3]["message"]["role"] == "system" and lines[5]["message"]["role"] == "user"
    assert types[-3:] == ["turn_end", "agent_end", "agent_settled"]
    assert lines[-2]["willRetry"] is False and lines[-1] == {"type": "agent_settled", "aborted": False}
    assert lines[5]["message"]["content"][0]["text"] == "hi\u2028there"
    await h.close()


async def test_steer_while_streaming_is_accepted_and_reported_in_a_queue_update(cwd: str) -> None:
    h = await make_harness(cwd, [[delay(0.3), text("one")], [text("two")]])
    h.send({"id": "p", "type": "prompt", "message": "go"})
    await h.wait_for(lambda x: x.get("type") == "agent_start")
    h.send({"id": "s", "type": "prompt", "message": "m", "streamingBehavior": "steer"})
    assert (await h.response("s"))["success"] is True
    update = await h.wait_for(lambda x: x.get("type") == "queue_update" and x["steering"])
    assert update["steering"] == ["m"] and update["followUp"] == []
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    users = [x for x in h.lines() if x.get("type") == "message_start" and x["message"]["role"] == "user"]
    assert [u["message"]["content"][0]["text"] for u in users] == ["go", "m"]
    await h.close()


async def test_the_queue_draining_is_reported_before_the_queued_message_starts(cwd: str) -> None:
    """Issue 19 item 11: pi 1.6.0 sends queue_update (now empty) right before the queued message."""
    h = await make_harness(cwd, [[delay(0.3), text("one")], [text("two")], [text("three")]])
    h.send({"id": "p", "type": "prompt", "message": "go"})
    await h.wait_for(lambda x: x.get("type") == "agent_start")
    h.send({"id": "s", "type": "steer", "message": "m"})
    h.send({"id": "f", "type": "follow_up", "message": "later"})
    await h.response("f")
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    shown = [
        (x["steering"], x["followUp"]) if x["type"] == "queue_update" else x["message"]["content"][0]["text"]
        for x in h.lines()
        if x.get("type") == "queue_update"
        or (x.get("type") == "message_start" and x["message"]["role"] == "user")
    ]
    assert shown == [
        "go",
        (["m"], []),
        (["m"], ["later"]),
        ([], ["later"]),
        "m",
        ([], []),
        "later",
    ]
    await h.close()


async def test_clear_queue_returns_both_queues(cwd: str) -> None:
    h = await make_harness(cwd, [[delay(0.5), text("one")], [text("x")], [text("y")]])
    h.send({"id": "p", "type": "prompt", "message": "go"})
    await h.wait_for(lambda x: x.get("type") == "agent_start")
    h.send({"id": "a", "type": "steer", "message": "s1"})
    h.send({"id": "b", "type": "follow_up", "message": "f1"})
    await h.response("b")
    cleared = await h.request({"id": "c", "type": "clear_queue"})
    assert cleared["data"] == {"steering": ["s1"], "followUp": ["f1"]}
    state = await h.request({"id": "st", "type": "get_state"})
    assert state["data"]["pendingMessageCount"] == 0
    abort = await h.request({"id": "ab", "type": "abort"})
    assert abort["success"] and "data" not in abort
    assert (await h.request({"id": "st2", "type": "get_state"}))["data"]["isStreaming"] is False
    await h.close()


async def test_state_models_and_thinking_levels(cwd: str) -> None:
    models = [fake_model("m1", reasoning=True), fake_model("m2")]
    h = await make_harness(cwd, models=models)
    state = (await h.request({"id": "1", "type": "get_state"}))["data"]
    assert state["model"]["id"] == "m1" and "sessionFile" not in state  # in-memory session
    assert set(state) >= {"thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode"}
    reference = FIXTURES / "rpc-bash_ls-0.73.1.jsonl"
    pi_state = next(json.loads(x) for x in reference.read_text().splitlines() if '"get_state"' in x)
    assert set(state["model"]) == set(pi_state["data"]["model"])
    available = (await h.request({"id": "2", "type": "get_available_models"}))["data"]["models"]
    assert [m["id"] for m in available] == ["m1", "m2"]
    levels = (await h.request({"id": "3", "type": "get_available_thinking_levels"}))["data"]["levels"]
    assert levels[0] == "off" and "high" in levels
    await h.request({"id": "4", "type": "set_thinking_level", "level": "high"})
    changed = await h.wait_for(lambda x: x.get("type") == "thinking_level_changed")
    assert changed == {"type": "thinking_level_changed", "level": "high"}
    switched = await h.request({"id": "5", "type": "set_model", "provider": "fake", "modelId": "m2"})
    assert switched["data"]["id"] == "m2"
    assert (await h.request({"id": "6", "type": "cycle_thinking_level"}))["data"] is None  # no reasoning
    levels = (await h.request({"id": "7", "type": "get_available_thinking_levels"}))["data"]["levels"]
    assert levels == ["off"]
    missing = await h.request({"id": "8", "type": "set_model", "provider": "fake", "modelId": "nope"})
    assert missing["error"] == "Model not found: fake/nope"
    await h.request({"id": "9", "type": "set_steering_mode", "mode": "all"})
    assert (await h.request({"id": "10", "type": "get_state"}))["data"]["steeringMode"] == "all"
    await h.close()


async def test_session_name_messages_and_last_text(cwd: str) -> None:
    h = await make_harness(cwd, [[text("the answer")]])
    empty = await h.request({"id": "n0", "type": "set_session_name", "name": "   "})
    assert empty["error"] == "Session name cannot be empty"
    await h.request({"id": "n1", "type": "set_session_name", "name": "  my work  "})
    info = await h.wait_for(lambda x: x.get("type") == "session_info_changed")
    assert info["name"] == "my work"
    assert (await h.request({"id": "t0", "type": "get_last_assistant_text"}))["data"] == {"text": None}
    h.send({"id": "p", "type": "prompt", "message": "q"})
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    assert (await h.request({"id": "t1", "type": "get_last_assistant_text"}))["data"] == {
        "text": "the answer"
    }
    messages = (await h.request({"id": "g", "type": "get_messages"}))["data"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    stats = (await h.request({"id": "st", "type": "get_session_stats"}))["data"]
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1 and stats["totalMessages"] == 2
    assert stats["tokens"]["total"] == stats["tokens"]["input"] + stats["tokens"]["output"]
    entries = (await h.request({"id": "e", "type": "get_entries"}))["data"]
    assert entries["leafId"] == entries["entries"][-1]["id"]
    since = (await h.request({"id": "e2", "type": "get_entries", "since": entries["entries"][-2]["id"]}))[
        "data"
    ]
    assert [e["id"] for e in since["entries"]] == [entries["entries"][-1]["id"]]
    bad = await h.request({"id": "e3", "type": "get_entries", "since": "zzzz"})
    assert bad["success"] is False
    tree = (await h.request({"id": "tr", "type": "get_tree"}))["data"]
    assert len(tree["tree"]) == 1 and tree["leafId"] == entries["leafId"]
    await h.close()


async def test_eof_lets_an_accepted_prompt_settle(cwd: str) -> None:
    h = await make_harness(cwd, [[delay(0.2), text("done")]])
    h.send({"id": "p", "type": "prompt", "message": "go"})
    h.send({"id": "s", "type": "get_state"})
    assert await h.close() == 0
    types = [x["type"] for x in h.lines()]
    assert "agent_end" in types and len(h.responses("s")) == 1
    assert h.session.get_last_assistant_text() == "done"


async def test_stop_signal_aborts_the_run(cwd: str) -> None:
    h = await make_harness(cwd, [[delay(30), text("never")]])
    h.send({"id": "p", "type": "prompt", "message": "go"})
    await h.wait_for(lambda x: x.get("type") == "message_start" and x["message"]["role"] == "assistant")
    h.stop.set()
    assert await asyncio.wait_for(h.task, 10) == 0
    end = [x for x in h.lines() if x.get("type") == "message_end"][-1]
    assert end["message"]["stopReason"] == "aborted"


async def test_every_line_is_one_json_object(cwd: str) -> None:
    h = await make_harness(cwd, [[text("a\u2028b\nc")]])
    h.send({"id": "p", "type": "prompt", "message": "x"})
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    await h.close()
    for record in h.stream.getvalue().split(b"\n")[:-1]:
        assert isinstance(json.loads(record), dict)


async def test_rpc_events_equal_sdk_events_for_the_same_scripted_run(cwd: str) -> None:
    """R-SDK-04: RPC adds no behaviour; the event stream is the SDK session's stream."""
    from pi_app.ai.testing import tool_call
    from pi_app.coding.session_events import session_event_to_dict

    def script() -> list:
        return [[text("Let me look."), tool_call("read", {"path": "a.txt"}, id="c1")], [text("It says A.")]]

    sdk = await make_harness(cwd, script())
    seen: list[dict] = []
    sdk.session.subscribe(lambda event: seen.append(session_event_to_dict(event)))
    await sdk.session.prompt("what is in a.txt?")
    await sdk.close()

    h = await make_harness(cwd, script())
    h.send({"id": "p", "type": "prompt", "message": "what is in a.txt?"})
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    await h.close()
    rpc = [x for x in h.lines() if x["type"] != "response"]

    def shape(events: list[dict]) -> list[tuple]:
        return [(e["type"], e.get("message", {}).get("role"), sorted(e)) for e in events]

    assert shape(rpc) == shape(seen)
    assert [e.get("toolName") for e in rpc] == [e.get("toolName") for e in seen]


async def test_an_internal_error_ends_with_one_error_line_and_status_1(cwd: str) -> None:
    h = await make_harness(cwd)

    def broken(record: bytes) -> None:
        raise RuntimeError("dispatch exploded")

    h.server.dispatch = broken  # type: ignore[method-assign]
    h.send({"id": "x", "type": "get_state"})
    assert await asyncio.wait_for(h.task, 10) == 1
    last = h.lines()[-1]
    assert last["success"] is False and last["error"] == "Internal error: dispatch exploded"


async def test_a_bug_while_handling_a_command_answers_that_command_and_serving_goes_on(
    cwd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = await make_harness(cwd, [[text("still answering")]])

    def broken_images(images: object) -> None:
        raise RuntimeError("images exploded")

    monkeypatch.setattr("pi_app.modes.rpc.server._images", broken_images)
    h.server._handlers["get_session_stats"] = _returns_unencodable  # type: ignore[assignment]
    failed_prompt = await h.request({"id": "p1", "type": "prompt", "message": "hi"})
    assert failed_prompt == {
        "type": "response",
        "id": "p1",
        "command": "prompt",
        "success": False,
        "error": "images exploded",
    }
    failed_stats = await h.request({"id": "s1", "type": "get_session_stats"})
    assert failed_stats["success"] is False and failed_stats["command"] == "get_session_stats"
    assert len(h.responses("s1")) == 1

    monkeypatch.undo()
    assert (await h.request({"id": "p2", "type": "prompt", "message": "again"}))["success"] is True
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    assert (await h.request({"id": "st", "type": "get_state"}))["success"] is True
    assert await h.close() == 0


async def _returns_unencodable(command: object) -> object:
    return {"stats": object()}


async def test_an_accepted_prompt_that_fails_is_one_stderr_line_and_serving_goes_on(
    cwd: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    h = await make_harness(cwd)

    async def broken_prompt(*args: object, on_accepted: Any = None, **kwargs: object) -> None:
        on_accepted("started")  # accepted, then it fails: the one response was already sent
        raise RuntimeError("prompt exploded")

    monkeypatch.setattr(h.session, "prompt", broken_prompt)
    assert (await h.request({"id": "p", "type": "prompt", "message": "hi"}))["success"] is True
    assert (await h.request({"id": "s", "type": "get_state"}))["success"] is True
    assert len(h.responses("p")) == 1
    assert await h.close() == 0
    assert capsys.readouterr().err == "Error: prompt exploded\n"
