"""``pi serve`` over HTTP and SSE, against the real server on a free loopback port (issue 24,
acceptance 1).

One ``pi serve`` subprocess serves the module; its children are real ``pi --mode rpc`` processes
whose model is the loopback ``FakeLLMServer`` answering from what each session sent
(``echo_responder``). Checked: two sessions answer in parallel, the stream carries every event of a
tool turn in the order ``pi --mode rpc`` writes them, ``Last-Event-ID`` resumes without a gap,
abort, a killed child restarted with its history, extension dialogs over the stream, opening and
closing by id and by folder, 401 without the right token and 413 for an oversize body.
"""

from __future__ import annotations

import asyncio
import os
import signal
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pi_app.modes.rpc_client import RpcClient
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer

from .helpers import ServeProcess, SseReader, echo_responder, make_server

ASKER = """
def setup(pi):
    async def ask(args, ctx):
        ok = await ctx.ui.confirm("Proceed?", f"Run {args}?")
        ctx.ui.notify(f"answer: {ok}", "info")

    pi.register_command("ask", description="Ask first", handler=ask)
"""


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        server.respond_with(echo_responder)
        yield server


@pytest.fixture(scope="module")
def serve(llm: FakeLLMServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    root = tmp_path_factory.mktemp("serve")
    server = make_server(root, llm)
    extension = server.home.agent_dir / "extensions" / "asker.py"
    extension.parent.mkdir(parents=True, exist_ok=True)
    extension.write_text(textwrap.dedent(ASKER))
    try:
        yield server
    finally:
        assert server.stop() == 0


async def _open(client: httpx.AsyncClient, cwd: Path) -> str:
    response = await client.post("/api/sessions", json={"cwd": str(cwd)})
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def _prompt(client: httpx.AsyncClient, key: str, message: str, **extra: object) -> dict:
    response = await client.post(f"/api/sessions/{key}/prompt", json={"message": message, **extra})
    assert response.status_code == 200, response.text
    return response.json()


async def _last_text(client: httpx.AsyncClient, key: str) -> str | None:
    response = await client.post(f"/api/sessions/{key}/rpc", json={"type": "get_last_assistant_text"})
    return response.json()["data"]["text"]


def _user_texts(messages: list[dict]) -> list[str]:
    return [
        "".join(part.get("text", "") for part in m["content"])
        if isinstance(m["content"], list)
        else m["content"]
        for m in messages
        if m["role"] == "user"
    ]


async def test_two_sessions_answer_in_parallel(serve: ServeProcess) -> None:
    async with serve.client() as client:
        first, second = await asyncio.gather(
            _open(client, serve.home.project), _open(client, serve.home.project)
        )
        assert first != second
        async with SseReader(client, first) as a, SseReader(client, second) as b:
            await asyncio.gather(
                _prompt(client, first, "slow:1.5 first question"),
                _prompt(client, second, "slow:1.5 second question"),
            )
            await asyncio.gather(a.wait_for_type("agent_end"), b.wait_for_type("agent_end"))
            # both runs were going at once: each started before the other ended
            start_a, end_a = (
                a.arrived[a.types().index("agent_start")],
                a.arrived[a.types().index("agent_end")],
            )
            start_b, end_b = (
                b.arrived[b.types().index("agent_start")],
                b.arrived[b.types().index("agent_end")],
            )
            assert start_a < end_b and start_b < end_a
        listed = (await client.get("/api/sessions")).json()["sessions"]
        assert {first, second} <= {s["id"] for s in listed}
        for key, word in ((first, "first"), (second, "second")):
            assert await _last_text(client, key) == "Thinking about it for long."
            messages = (await client.get(f"/api/sessions/{key}/messages")).json()["data"]["messages"]
            assert _user_texts(messages) == [f"slow:1.5 {word} question"]


async def test_the_stream_carries_every_event_of_a_tool_turn_in_rpc_order(serve: ServeProcess) -> None:
    async with serve.client() as client:
        key = await _open(client, serve.home.project)
        async with SseReader(client, key) as sse:
            await _prompt(client, key, "tool: echo from-the-tool")
            await sse.wait_for_type("agent_settled")
        ids = [event_id for event_id, _ in sse.events]
        assert ids == list(range(ids[0], ids[0] + len(ids)))  # numbered one by one, none skipped
        streamed = [event for _, event in sse.events]

    # The same prompt straight to `pi --mode rpc`: the server passes the same lines through.
    direct = RpcClient(command=[PI], cwd=str(serve.home.project), env=serve.home.env())
    async with direct:
        expected = await direct.prompt_and_wait("tool: echo from-the-tool")
    expected = [e for e in expected if e["type"] != "response"]
    assert [e["type"] for e in streamed] == [e["type"] for e in expected]
    assert streamed[0]["type"] == "agent_start" and streamed[-1]["type"] == "agent_settled"
    tool_end = next(e for e in streamed if e["type"] == "tool_execution_end")
    assert tool_end["toolName"] == "bash" and "from-the-tool" in str(tool_end["result"])
    finals = [e["message"] for e in streamed if e["type"] == "message_end"]
    assert [m["role"] for m in finals] == ["system", "user", "assistant", "toolResult", "assistant"]
    assert finals[-1]["content"][0]["text"] == "done: from-the-tool"


async def test_reconnecting_with_last_event_id_misses_nothing(serve: ServeProcess) -> None:
    async with serve.client() as client:
        key = await _open(client, serve.home.project)
        async with SseReader(client, key) as whole:
            partial = SseReader(client, key)
            await partial.__aenter__()
            await _prompt(client, key, "tool: echo again")
            await partial.wait_for_type("message_start", 2)  # the user's message and the answer's start
            await partial.close()
            seen_before = list(partial.events)
            await whole.wait_for_type("agent_end")
            async with SseReader(client, key, last_event_id=seen_before[-1][0]) as resumed:
                await resumed.wait_for_type("agent_end")
        assert len(seen_before) < len(whole.events)
        assert seen_before + resumed.events == whole.events
        # `?after=` does the same for clients that cannot set headers
        first_id = whole.events[0][0]
        async with client.stream("GET", f"/api/sessions/{key}/events?after={first_id - 1}") as response:
            body = b""
            async for chunk in response.aiter_bytes():
                body += chunk
                if b'"agent_end"' in body:
                    break
        replayed = [line for line in body.split(b"\n") if line.startswith(b"id: ")]
        assert len(replayed) >= len(whole.events)


async def test_abort_stops_a_running_prompt(serve: ServeProcess) -> None:
    async with serve.client() as client:
        key = await _open(client, serve.home.project)
        async with SseReader(client, key) as sse:
            await _prompt(client, key, "slow:30 never finishes")
            await sse.wait_for(lambda e: e["type"] == "message_update")
            busy = await client.post(f"/api/sessions/{key}/prompt", json={"message": "while busy"})
            assert busy.status_code == 400 and "streamingBehavior" in busy.json()["error"]
            response = await client.post(f"/api/sessions/{key}/abort")
            assert response.status_code == 200 and response.json()["success"] is True
            end = await sse.wait_for(lambda e: e["type"] == "agent_end", timeout=15)
        assert end["messages"][-1]["stopReason"] == "aborted"
        assert (await client.get(f"/api/sessions/{key}")).json()["busy"] is False


async def test_a_killed_child_is_restarted_and_its_session_goes_on(
    serve: ServeProcess, llm: FakeLLMServer
) -> None:
    async with serve.client() as client:
        key = await _open(client, serve.home.project)
        async with SseReader(client, key) as sse:
            await _prompt(client, key, "remember alpha")
            await sse.wait_for_type("agent_end")
            before = (await client.get(f"/api/sessions/{key}")).json()
            os.kill(before["pid"], signal.SIGKILL)
            exited = await sse.wait_for(lambda e: e["type"] == "child_exited")
            assert exited["exitCode"] == -signal.SIGKILL
            assert (await client.get(f"/api/sessions/{key}")).json()["status"] == "exited"

            await _prompt(client, key, "what did I say?")
            await sse.wait_for_type("agent_end", 2)
            restarted = [e for _, e in sse.events if e["type"] == "child_started"]
            assert restarted and restarted[-1]["restart"] is True
        after = (await client.get(f"/api/sessions/{key}")).json()
        assert after["starts"] == 2 and after["pid"] != before["pid"]
        assert after["sessionFile"] == before["sessionFile"]
        messages = (await client.get(f"/api/sessions/{key}/messages")).json()["data"]["messages"]
        assert _user_texts(messages) == ["remember alpha", "what did I say?"]
        sent = llm.requests[-1].body["messages"]  # the model saw the history from before the crash
        assert any("remember alpha" in str(m.get("content")) for m in sent)


async def test_extension_dialogs_travel_over_the_stream(serve: ServeProcess) -> None:
    async with serve.client() as client:
        key = await _open(client, serve.home.project)
        async with SseReader(client, key) as sse:
            await _prompt(client, key, "/ask deploy")
            request = await sse.wait_for(lambda e: e.get("method") == "confirm")
            assert request["type"] == "extension_ui_request" and request["title"] == "Proceed?"
            state = await client.get(f"/api/sessions/{key}/state")  # the child keeps answering meanwhile
            assert state.status_code == 200
            answer = await client.post(
                f"/api/sessions/{key}/ui-response", json={"id": request["id"], "confirmed": True}
            )
            assert answer.status_code == 200
            notice = await sse.wait_for(lambda e: e.get("method") == "notify")
        assert notice["message"] == "answer: True"


async def test_sessions_open_by_id_and_folder_and_close(serve: ServeProcess, tmp_path: Path) -> None:
    project = tmp_path / "other project"
    project.mkdir()
    async with serve.client() as client:
        key = await _open(client, project)
        await _prompt(client, key, "keep this")
        async with SseReader(client, key, last_event_id=0) as sse:
            await sse.wait_for_type("agent_end")
        saved = (await client.get("/api/sessions/saved", params={"cwd": str(project)})).json()["sessions"]
        assert [s["sessionId"] for s in saved] == [key] and saved[0]["open"] == key
        again = await client.post("/api/sessions", json={"cwd": str(project), "sessionId": key[:8]})
        assert again.status_code == 200 and again.json()["id"] == key  # already hosted: the same one

        closed = await client.delete(f"/api/sessions/{key}")
        assert closed.status_code == 200
        assert (await client.get(f"/api/sessions/{key}")).status_code == 404
        assert key not in {s["id"] for s in (await client.get("/api/sessions")).json()["sessions"]}

        by_id = await client.post("/api/sessions", json={"sessionId": key})
        assert by_id.status_code == 201 and by_id.json()["cwd"] == str(project)
        messages = (await client.get(f"/api/sessions/{key}/messages")).json()["data"]["messages"]
        assert _user_texts(messages) == ["keep this"]
        await client.delete(f"/api/sessions/{key}")
        recent = await client.post("/api/sessions", json={"cwd": str(project), "continue": True})
        assert recent.status_code == 201 and recent.json()["sessionId"] == key
        tree = await client.get(f"/api/sessions/{key}/tree")
        assert tree.status_code == 200 and tree.json()["success"] is True

        missing = await client.post("/api/sessions", json={"sessionId": "no-such-session"})
        assert missing.status_code == 404
        nowhere = await client.post("/api/sessions", json={"cwd": str(tmp_path / "absent")})
        assert nowhere.status_code == 400 and "Not a folder" in nowhere.json()["error"]
        assert (await client.post("/api/sessions/nope/prompt", json={"message": "x"})).status_code == 404


async def test_wrong_or_missing_token_is_401(serve: ServeProcess) -> None:
    async with httpx.AsyncClient(base_url=serve.url) as anonymous:
        missing = await anonymous.get("/api/sessions")
        assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
        wrong = await anonymous.get("/api/sessions", headers={"authorization": "Bearer not-the-token"})
        assert wrong.status_code == 401
        stream = await anonymous.get("/api/sessions/x/events")
        assert stream.status_code == 401
        assert (await anonymous.post("/api/sessions", json={"cwd": "/"})).status_code == 401
        assert (await anonymous.get("/api/health")).status_code == 200  # the health check needs no token
    async with serve.client() as client:
        assert (await client.get("/api/sessions")).status_code == 200


async def test_oversize_body_is_413(serve: ServeProcess) -> None:
    big = "x" * (8 * 1024 * 1024 + 1)
    async with serve.client() as client:
        declared = await client.post(
            "/api/sessions", content=big, headers={"content-type": "application/json"}
        )
        assert declared.status_code == 413 and "8388608" in declared.json()["error"]

        async def chunks():  # no content-length: counted while it arrives
            for _ in range(9):
                yield b"y" * (1024 * 1024)

        chunked = await client.post("/api/sessions", content=chunks())
        assert chunked.status_code == 413
        assert (await client.get("/api/sessions")).status_code == 200  # and the server is fine


async def test_the_server_describes_itself_with_openapi(serve: ServeProcess) -> None:
    from pi_app.shells.server.http_app import routes

    async with httpx.AsyncClient(base_url=serve.url) as anonymous:
        document = (await anonymous.get("/api/openapi.json")).json()
    assert document["openapi"].startswith("3.") and document["components"]["securitySchemes"]["bearer"]
    described = {(path, method.upper()) for path, item in document["paths"].items() for method in item}
    served = {
        (route.path, method) for route in routes() for method in route.methods or () if method != "HEAD"
    }
    assert described == served


async def test_idle_children_are_stopped_and_start_again_on_the_next_request(
    tmp_path: Path, llm: FakeLLMServer
) -> None:
    server = make_server(tmp_path, llm, "--idle-timeout", "1")
    try:
        async with server.client() as client:
            key = await _open(client, server.home.project)
            async with SseReader(client, key, last_event_id=0) as sse:
                stopped = await sse.wait_for(lambda e: e["type"] == "child_stopped", timeout=20)
                assert stopped["reason"] == "idle"
                assert (await client.get(f"/api/sessions/{key}")).json()["status"] == "stopped"
                await _prompt(client, key, "still there?")
                await sse.wait_for_type("agent_end")
            assert await _last_text(client, key) == "echo: still there?"
    finally:
        assert server.stop() == 0
