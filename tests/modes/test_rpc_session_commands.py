"""RPC commands that change or inspect the session's identity and history: bash, compact, new,
fork, clone, switch, fork messages, and images reaching the provider."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from tests.modes.rpc_harness import make_harness


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    return str(tmp_path)


async def _prompt(h, request_id: str, message: str) -> None:
    """Send a prompt and wait for the run it starts to end."""
    ends = sum(1 for x in h.lines() if x.get("type") == "agent_end")
    h.send({"id": request_id, "type": "prompt", "message": message})
    assert (await h.response(request_id))["success"] is True
    await h.wait_for(lambda _: sum(1 for x in h.lines() if x.get("type") == "agent_end") > ends)


def _texts(message) -> str:
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content)


async def test_bash_streams_chunks_with_the_command_id_and_joins_the_context(cwd: str) -> None:
    h = await make_harness(cwd, [[text("seen")]])
    response = await h.request({"id": "b1", "type": "bash", "command": "printf 'a\\nb'"})
    assert response["success"] is True
    assert response["data"]["exitCode"] == 0 and response["data"]["cancelled"] is False
    updates = [x for x in h.lines() if x.get("type") == "bash_execution_update"]
    assert updates and all(u["id"] == "b1" for u in updates)
    assert "".join(u["delta"] for u in updates) == "a\nb"
    messages = (await h.request({"id": "m", "type": "get_messages"}))["data"]["messages"]
    assert messages[-1]["role"] == "bashExecution" and messages[-1]["output"] == "a\nb"
    await _prompt(h, "p", "what did it print?")
    sent = h.provider.calls[0].context.messages
    assert any("a\nb" in _texts(m) for m in sent)
    await h.close()


async def test_bash_excluded_from_context_and_abort_bash(cwd: str) -> None:
    h = await make_harness(cwd)
    await h.request({"id": "b", "type": "bash", "command": "echo hidden", "excludeFromContext": True})
    messages = (await h.request({"id": "m", "type": "get_messages"}))["data"]["messages"]
    assert messages[-1]["excludeFromContext"] is True
    h.send({"id": "long", "type": "bash", "command": "sleep 30"})
    await asyncio.sleep(0.3)
    assert (await h.request({"id": "ab", "type": "abort_bash"}))["success"] is True
    result = await h.response("long")
    assert result["data"]["cancelled"] is True
    await h.close()


async def test_new_session_fork_clone_and_fork_messages(cwd: str) -> None:
    h = await make_harness(cwd, [[text("one")], [text("two")]])
    await _prompt(h, "p1", "first question")
    await _prompt(h, "p2", "second question")
    first_id = (await h.request({"id": "s0", "type": "get_state"}))["data"]["sessionId"]
    forks = (await h.request({"id": "fm", "type": "get_fork_messages"}))["data"]["messages"]
    assert [m["text"] for m in forks] == ["first question", "second question"]
    forked = await h.request({"id": "f", "type": "fork", "entryId": forks[1]["entryId"]})
    assert forked["data"] == {"text": "second question", "cancelled": False}
    state = (await h.request({"id": "s1", "type": "get_state"}))["data"]
    assert state["sessionId"] != first_id and state["messageCount"] == 2
    cloned = await h.request({"id": "c", "type": "clone"})
    assert cloned["data"] == {"cancelled": False}
    bad = await h.request({"id": "f2", "type": "fork", "entryId": "nope"})
    assert bad["success"] is False and bad["id"] == "f2"
    new = await h.request({"id": "n", "type": "new_session"})
    assert new["data"] == {"cancelled": False}
    state = (await h.request({"id": "s2", "type": "get_state"}))["data"]
    assert state["messageCount"] == 0
    await h.close()


async def test_compact_returns_the_result_and_emits_the_bracket(cwd: str) -> None:
    small = {"compaction": {"keepRecentTokens": 50}}
    summaries = [[text("## Goal\nsummary text")], [text("## Prefix\nturn prefix")]]
    answers = [[text("answer " * 100)] for _ in range(3)] + summaries
    h = await make_harness(cwd, answers, settings=small)
    for n in range(3):
        await _prompt(h, f"p{n}", f"question {n} " + "words " * 100)
    result = await h.request({"id": "c", "type": "compact", "customInstructions": "be brief"}, timeout=20)
    assert result["success"] is True, result
    assert "summary text" in result["data"]["summary"]
    assert {"summary", "firstKeptEntryId", "tokensBefore"} <= set(result["data"])
    start = await h.wait_for(lambda x: x.get("type") == "compaction_start")
    end = await h.wait_for(lambda x: x.get("type") == "compaction_end")
    assert start["reason"] == "manual" and end["reason"] == "manual" and end["aborted"] is False
    again = await h.request({"id": "c2", "type": "compact"})
    assert again["success"] is False and again["id"] == "c2"
    await h.close()


async def test_switch_session_to_a_saved_file(cwd: str, tmp_path: Path) -> None:
    from pi_app.coding.session.manager import SessionManager

    saved = SessionManager.create(cwd, str(tmp_path / "sessions"))
    from pi_app.ai.types import AssistantMessage, TextContent, UserMessage

    saved.append_message(UserMessage(content=[TextContent(text="from the file")], timestamp=1))
    saved.append_message(AssistantMessage(content=[TextContent(text="noted")], timestamp=2))
    path = saved.get_session_file()
    assert path is not None
    h = await make_harness(cwd, session_dir=str(tmp_path / "sessions"))
    switched = await h.request({"id": "sw", "type": "switch_session", "sessionPath": path})
    assert switched["data"] == {"cancelled": False}
    state = (await h.request({"id": "s", "type": "get_state"}))["data"]
    assert state["sessionFile"] == path and state["messageCount"] == 2
    await h.close()


async def test_prompt_images_reach_the_provider(cwd: str) -> None:
    h = await make_harness(cwd, [[text("a cat")]])
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    h.send({"id": "p", "type": "prompt", "message": "what is this?", "images": [image]})
    await h.wait_for(lambda x: x.get("type") == "agent_end")
    user = h.provider.calls[0].context.messages[-1]
    assert any(getattr(b, "type", None) == "image" and b.data == "iVBORw0KGgo=" for b in user.content)
    await h.close()


async def test_export_html_writes_the_current_session(cwd: str, tmp_path: Path) -> None:
    h = await make_harness(cwd, [[text("exported **answer**")]])
    await _prompt(h, "p", "question")
    target = tmp_path / "out" / "session.html"
    response = await h.request({"id": "x", "type": "export_html", "outputPath": str(target)})
    assert response["data"] == {"path": str(target)}
    page = target.read_text(encoding="utf-8")
    assert "<strong>answer</strong>" in page and "question" in page
    await h.close()
