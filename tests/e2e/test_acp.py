"""``pi --mode acp`` driven as an editor drives it: the installed ``pi`` in a subprocess, spoken to by
an ACP client built on the protocol's own SDK (``agent-client-protocol``, the schema's pydantic
models), against the loopback fake LLM server. Every message in both directions is checked against
the schema's model for its method."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp import schema as s
from acp.connection import StreamEvent

from pi_app.ai.testing import delay, hang, text, tool_call
from tests.e2e.helpers import PI, session_files, write_models_json
from tests.fakes.fixtures import llm_server  # noqa: F401  (fixture)

REQUESTS: dict[str, type[s.BaseModel]] = {
    "initialize": s.InitializeRequest,
    "session/new": s.NewSessionRequest,
    "session/load": s.LoadSessionRequest,
    "session/list": s.ListSessionsRequest,
    "session/prompt": s.PromptRequest,
    "session/cancel": s.CancelNotification,
    "session/update": s.SessionNotification,
    "session/request_permission": s.RequestPermissionRequest,
    "fs/read_text_file": s.ReadTextFileRequest,
    "fs/write_text_file": s.WriteTextFileRequest,
}
RESPONSES: dict[str, type[s.BaseModel] | None] = {
    "initialize": s.InitializeResponse,
    "session/new": s.NewSessionResponse,
    "session/load": s.LoadSessionResponse,
    "session/list": s.ListSessionsResponse,
    "session/prompt": s.PromptResponse,
    "session/request_permission": s.RequestPermissionResponse,
    "fs/read_text_file": s.ReadTextFileResponse,
    "fs/write_text_file": None,  # an empty result
}


class Editor:
    """The client side: records updates, answers permission requests with ``decision``, and serves
    file reads and writes from ``buffers`` (its unsaved editor buffers) when it offers ``fs``."""

    def __init__(self, decision: str = "allow_once") -> None:
        self.decision = decision
        self.updates: list[Any] = []
        self.permission_requests: list[s.RequestPermissionRequest] = []
        self.buffers: dict[str, str] = {}
        self.writes: list[tuple[str, str]] = []
        self.permission_asked = asyncio.Event()
        self.release_permission: asyncio.Event | None = None

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.permission_requests.append(
            s.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        )
        self.permission_asked.set()
        if self.release_permission is not None:
            await self.release_permission.wait()
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        if self.decision == "cancel":
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        return s.RequestPermissionResponse(
            outcome=s.AllowedOutcome(outcome="selected", option_id=self.decision)
        )

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> s.ReadTextFileResponse:
        if path in self.buffers:
            return s.ReadTextFileResponse(content=self.buffers[path])
        return s.ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> None:
        self.writes.append((path, content))
        self.buffers[path] = content  # an editor writes its buffer and saves it
        Path(path).write_text(content)

    def on_connect(self, conn: Any) -> None:
        pass

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def message_text(self) -> str:
        return "".join(u.content.text for u in self.of_kind("agent_message_chunk"))


class SchemaCheck:
    """Validates every frame against the schema model of its method; remembers request methods so a
    response is checked against the model of the request it answers."""

    def __init__(self) -> None:
        self.methods: dict[tuple[str, Any], str] = {}
        self.checked: list[str] = []
        self.problems: list[str] = []

    def __call__(self, event: StreamEvent) -> None:
        message = event.message
        direction = str(event.direction)
        try:
            if "method" in message:
                method = message["method"]
                if "id" in message:
                    self.methods[(direction, message["id"])] = method
                model = REQUESTS.get(method)
                if model is None:
                    self.problems.append(f"unexpected method {method}")
                    return
                model.model_validate(message.get("params", {}))
                self.checked.append(method)
            elif "result" in message or "error" in message:
                other = next((k for k in self.methods if k[1] == message["id"] and k[0] != direction), None)
                method = self.methods.pop(other) if other else "?"
                if "error" in message:
                    self.checked.append(f"{method} error")
                    return
                response_model = RESPONSES.get(method)
                if response_model is not None:
                    response_model.model_validate(message["result"])
                self.checked.append(f"{method} result")
        except Exception as exc:
            self.problems.append(f"{message}: {exc}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "gone.txt").write_text("to delete\n")
    return root


def _env(agent_dir: Path, base_url: str) -> dict[str, str]:
    write_models_json(agent_dir, base_url)
    env = dict(os.environ)
    env.update({"PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(agent_dir)})
    return env


async def _connect(editor: Editor, project: Path, env: dict[str, str], checks: SchemaCheck, fs: bool = True):
    spawn = spawn_agent_process(
        editor, PI, "--mode", "acp", "--model", "fake/fake-model", env=env, cwd=project, observers=[checks]
    )
    conn, process = await spawn.__aenter__()
    init = await conn.initialize(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=s.ClientCapabilities(
            fs=s.FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
        ),
    )
    assert init.agent_capabilities.load_session is True
    assert init.agent_info.name == "pi"
    return spawn, conn, process


async def test_a_prompt_with_an_edit_asks_permission_shows_the_diff_and_edits_through_the_editor(
    project: Path,
    isolated_home: Path,
    llm_server,  # noqa: F811
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    llm_server.enqueue(
        text("I will edit it.", chunks=3),
        tool_call("edit", {"path": "a.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}, id="call_e"),
    )
    llm_server.enqueue(tool_call("read", {"path": "a.txt"}, id="call_r"))
    llm_server.enqueue(text("Done: beta is now gamma."))
    editor = Editor("allow_once")
    a_path = str(project / "a.txt")
    editor.buffers[a_path] = "alpha\nbeta\nunsaved line\n"  # the editor's buffer, not yet on disk
    checks = SchemaCheck()
    spawn, conn, _ = await _connect(editor, project, _env(agent_dir, llm_server.base_url), checks)
    try:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("change beta to gamma")]
        )
    finally:
        await spawn.__aexit__(None, None, None)

    assert response.stop_reason == "end_turn"
    assert editor.message_text() == "I will edit it.Done: beta is now gamma."
    # the editor was asked once, for the edit (the read needs no permission), and shown the diff
    assert len(editor.permission_requests) == 1
    asked = editor.permission_requests[0].tool_call
    assert asked.tool_call_id == "call_e" and asked.kind == "edit" and asked.title == "Edit a.txt"
    (diff,) = [c for c in asked.content if c.type == "diff"]
    assert diff.path == a_path and diff.old_text.endswith("unsaved line\n") and "gamma" in diff.new_text
    assert {o.kind for o in editor.permission_requests[0].options} >= {
        "allow_once",
        "allow_always",
        "reject_once",
    }
    # the edit went through the editor's buffer (so the unsaved line survived) and was written back
    assert editor.writes == [(a_path, "alpha\ngamma\nunsaved line\n")]
    # tool calls: announced, then in progress, then completed with their output
    starts = editor.of_kind("tool_call")
    assert [(u.tool_call_id, u.kind) for u in starts] == [("call_e", "edit"), ("call_r", "read")]
    assert starts[1].locations[0].path == a_path
    ends = [u for u in editor.of_kind("tool_call_update") if u.status in ("completed", "failed")]
    assert [(u.tool_call_id, u.status) for u in ends] == [("call_e", "completed"), ("call_r", "completed")]
    read_output = "".join(c.content.text for c in ends[1].content if c.type == "content")
    assert "gamma" in read_output and "unsaved line" in read_output
    # the model saw the read through the editor too
    assert "unsaved line" in str(llm_server.requests[-1].body["messages"][-1])
    assert checks.problems == []
    assert {"session/update", "session/request_permission result", "session/prompt result"} <= set(
        checks.checked
    )


async def test_a_rejected_tool_call_is_not_run_and_the_model_is_told(
    project: Path,
    isolated_home: Path,
    llm_server,  # noqa: F811
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    llm_server.enqueue(tool_call("bash", {"command": "rm gone.txt"}, id="call_rm"))
    llm_server.enqueue(text("Understood, I left it."))
    editor = Editor("reject_once")
    checks = SchemaCheck()
    spawn, conn, _ = await _connect(editor, project, _env(agent_dir, llm_server.base_url), checks)
    try:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("delete gone.txt")])
    finally:
        await spawn.__aexit__(None, None, None)
    assert response.stop_reason == "end_turn"
    assert (project / "gone.txt").exists()
    asked = editor.permission_requests[0].tool_call
    assert asked.kind == "execute" and asked.title == "Run `rm gone.txt`"
    (end,) = [u for u in editor.of_kind("tool_call_update") if u.status in ("completed", "failed")]
    assert end.status == "failed"
    assert "declined" in str(llm_server.requests[-1].body["messages"][-1]).lower()
    assert checks.problems == []


async def test_cancel_ends_the_prompt_with_cancelled_and_the_session_loads_with_its_history(
    project: Path,
    isolated_home: Path,
    llm_server,  # noqa: F811
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    env = _env(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("First answer."))
    llm_server.enqueue(text("Working on it", chunks=2), delay(0.05), hang())
    editor = Editor("allow_always")
    checks = SchemaCheck()
    spawn, conn, _ = await _connect(editor, project, env, checks)
    try:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        first = await conn.prompt(session_id=sid, prompt=[text_block("hello")])
        assert first.stop_reason == "end_turn"
        running = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("a long task")]))
        for _ in range(200):
            if "Working on it" in editor.message_text():
                break
            await asyncio.sleep(0.025)
        await conn.cancel(session_id=sid)
        second = await asyncio.wait_for(running, 10)
        listed = await conn.list_sessions(cwd=str(project))
    finally:
        await spawn.__aexit__(None, None, None)
    assert second.stop_reason == "cancelled"
    assert [info.session_id for info in listed.sessions] == [sid]
    assert len(session_files(agent_dir)) == 1

    # a new connection (the editor restarted) loads the session: its conversation is replayed
    later = Editor()
    checks_later = SchemaCheck()
    spawn, conn, _ = await _connect(later, project, env, checks_later)
    try:
        await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        llm_server.enqueue(text("Third answer."))
        third = await conn.prompt(session_id=sid, prompt=[text_block("go on")])
    finally:
        await spawn.__aexit__(None, None, None)
    users = [u.content.text for u in later.of_kind("user_message_chunk")]
    assert users == ["hello", "a long task"]
    assert later.message_text().startswith("First answer.Working on it")
    assert third.stop_reason == "end_turn"
    sent = [m for m in llm_server.requests[-1].body["messages"] if m["role"] == "user"]
    assert [str(m["content"]) for m in sent][0].find("hello") >= 0 and len(sent) == 3
    assert checks.problems == [] and checks_later.problems == []
    assert "session/load result" in checks_later.checked and "session/list result" in checks.checked


async def test_without_fs_capability_files_are_read_and_written_on_disk(
    project: Path,
    isolated_home: Path,
    llm_server,  # noqa: F811
) -> None:
    agent_dir = isolated_home / ".pi" / "agent"
    llm_server.enqueue(tool_call("write", {"path": "new.txt", "content": "fresh\n"}, id="call_w"))
    llm_server.enqueue(text("Wrote it."))
    editor = Editor("allow_once")
    checks = SchemaCheck()
    spawn, conn, _ = await _connect(editor, project, _env(agent_dir, llm_server.base_url), checks, fs=False)
    try:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write new.txt")])
    finally:
        await spawn.__aexit__(None, None, None)
    assert (project / "new.txt").read_text() == "fresh\n"
    assert editor.writes == []
    (diff,) = [c for c in editor.permission_requests[0].tool_call.content if c.type == "diff"]
    assert diff.old_text is None and diff.new_text == "fresh\n"
    assert checks.problems == []
