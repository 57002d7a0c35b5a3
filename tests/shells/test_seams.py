"""The seams an alternative shell needs (spec 70 §2.3, R-SEAM-01…11 and 13).

Each test builds its session only from public names (``pi_app.ext`` plus the L1 pieces a host
assembles itself) and checks one property a non-TUI host relies on.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pi_app.agent.testing import FakeTool
from pi_app.ai.testing import fake_model, hang, text, tool_call
from pi_app.coding.messages import message_to_dict
from pi_app.ext import (
    AgentToolResult,
    ImageContent,
    ModelRegistry,
    SessionManager,
    SettingsManager,
    TextContent,
    UserMessage,
    create_agent_session,
    create_bash_tool,
    create_edit_tool,
    create_find_tool,
    create_grep_tool,
    create_ls_tool,
    create_read_tool,
    create_write_tool,
)

from .fake_workspace import FakeWorkspace
from .helpers import Recorder, message_lines, scripted_session, text_of

REPO = Path(__file__).resolve().parents[2]


def _all_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


class EmptyResources:
    """A resource loader that returns nothing and a fixed system prompt (mom's loader)."""

    def __init__(self, prompt: str) -> None:
        self.prompt = prompt

    def get_extensions(self):
        return SimpleNamespace(extensions=[], errors=[], runtime=None)

    def get_skills(self):
        return SimpleNamespace(items=[], diagnostics=[])

    def get_prompts(self):
        return SimpleNamespace(items=[], diagnostics=[])

    def get_themes(self):
        return SimpleNamespace(items=[], diagnostics=[])

    def get_agents_files(self):
        return []

    def get_system_prompt(self):
        return self.prompt

    def get_append_system_prompt(self):
        return []

    def extend_resources(self, paths) -> None:
        return None

    async def reload(self) -> None:
        return None


# -- R-SEAM-01 / R-SEAM-02 ----------------------------------------------------------------------


async def test_everything_injected_runs_without_touching_home(isolated_home: Path, tmp_path: Path) -> None:
    (isolated_home / ".pi" / "agent").mkdir(parents=True)
    (isolated_home / ".pi" / "agent" / "AGENTS.md").write_text("GLOBAL CONTEXT MUST NOT APPEAR")
    (tmp_path / "AGENTS.md").write_text("PROJECT CONTEXT MUST NOT APPEAR")
    before = _all_files(isolated_home)
    session, provider = await scripted_session(
        str(tmp_path),
        [[tool_call("bash", {"command": "echo hi"})], [text("done")]],
        resource_loader=EmptyResources("You are the channel bot."),
        no_context_files=False,
    )
    await session.prompt("hello")
    assert session.get_last_assistant_text() == "done"
    assert _all_files(isolated_home) == before  # no settings, session, auth or cache file appeared
    assert session.system_prompt == f"You are the channel bot.\nCurrent working directory: {tmp_path}"
    assert provider.calls[0].context.system_prompt == session.system_prompt


# -- R-SEAM-03 --------------------------------------------------------------------------------------


async def test_a_fixed_session_file_is_created_at_that_path_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "C1" / "context.jsonl"
    manager = SessionManager.open(path, tmp_path / "C1")
    session, _ = await scripted_session(
        str(tmp_path), [[text("first")], [text("second")]], session_manager=manager
    )
    await session.prompt("one")
    assert _all_files(tmp_path / "C1") == ["context.jsonl"]
    assert manager.get_session_file() == str(path)
    again = SessionManager.open(path, tmp_path / "C1")
    assert [message_to_dict(m) for m in again.build_session_context().messages] == [
        message_to_dict(m) for m in session.messages
    ]
    # a second session on the reopened file continues the conversation in the same file
    session2, provider2 = await scripted_session(str(tmp_path), [[text("second")]], session_manager=again)
    await session2.prompt("two")
    assert [m.role for m in provider2.calls[0].context.messages] == ["user", "assistant", "user"]
    assert len(message_lines(str(path))) == 4 and _all_files(tmp_path / "C1") == ["context.jsonl"]


# -- R-SEAM-04 --------------------------------------------------------------------------------------


class WorkspaceSettings:
    """One settings text for the whole workspace; the project scope is ignored."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scopes: list[str] = []

    def with_lock(self, scope, fn) -> None:
        self.scopes.append(scope)
        if scope != "global":
            fn(None)
            return
        new = fn(self.text)
        if new is not None:
            self.text = new


async def test_settings_from_a_host_storage(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text('{"defaultThinkingLevel": "high"}')
    storage = WorkspaceSettings('{"defaultThinkingLevel": "low", "compaction": {"keepRecentTokens": 123}}')
    settings = SettingsManager.from_storage(storage)
    assert settings.get_compaction_settings().keep_recent_tokens == 123
    assert settings.get_default_thinking_level() == "low"  # the project file was not consulted
    before_home, before_cwd = _all_files(isolated_home), (tmp_path / ".pi" / "settings.json").read_bytes()

    provider_model = fake_model(reasoning=True)
    session, _ = await scripted_session(str(tmp_path), [], model=provider_model)
    created = await create_agent_session(
        str(tmp_path),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=settings,
        model_registry=session.model_registry,
        model=provider_model,
        no_context_files=True,
    )
    assert created.session.thinking_level == "low"
    created.session.set_thinking_level("high")  # saved as the new default
    assert json.loads(storage.text)["defaultThinkingLevel"] == "high"
    assert json.loads(storage.text)["compaction"] == {"keepRecentTokens": 123}
    assert _all_files(isolated_home) == before_home
    assert (tmp_path / ".pi" / "settings.json").read_bytes() == before_cwd


def test_unreadable_host_settings_are_reported_and_never_overwritten() -> None:
    storage = WorkspaceSettings("{broken")
    settings = SettingsManager.from_storage(storage)
    assert any("global settings" in e and "using defaults" in e for e in settings.errors)
    settings.set("theme", "light")
    assert storage.text == "{broken"
    assert settings.get_theme() == "light"  # the change still applies to this process


# -- R-SEAM-05 --------------------------------------------------------------------------------------


async def test_host_replaces_system_prompt_and_messages_between_runs(tmp_path: Path) -> None:
    session, provider = await scripted_session(str(tmp_path), [[text("one")], [text("two")]])
    await session.prompt("first")
    session.agent.state.system_prompt = "Memory: the user likes tea."
    replacement = [UserMessage(content=[TextContent(text="synced from the chat log")], timestamp=1)]
    session.agent.state.messages = replacement
    replacement.append("not part of the agent's copy")  # assignment copied the list
    await session.prompt("second")
    request = provider.calls[1].context
    assert request.system_prompt == "Memory: the user likes tea."
    assert [text_of(m) for m in request.messages] == ["synced from the chat log", "second"]


# -- R-SEAM-06 --------------------------------------------------------------------------------------


async def test_builtin_tools_run_on_injected_operations(tmp_path: Path) -> None:
    root = "/nonexistent-workspace"
    assert not os.path.exists(root)
    ws = FakeWorkspace(files={f"{root}/notes.txt": "alpha\nbeta\n"}, commands={"uname": "FakeOS\n"})
    ops = ws.operations()
    factories = {
        "read": create_read_tool,
        "write": create_write_tool,
        "edit": create_edit_tool,
        "bash": create_bash_tool,
        "grep": create_grep_tool,
        "find": create_find_tool,
        "ls": create_ls_tool,
    }
    override = {name: make(root, ops[name]) for name, make in factories.items()}
    calls = [
        tool_call("read", {"path": "notes.txt"}),
        tool_call("write", {"path": "new/out.txt", "content": "written"}),
        tool_call("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}),
        tool_call("bash", {"command": "uname"}),
        tool_call("grep", {"pattern": "alpha"}),
        tool_call("find", {"pattern": "*.txt"}),
        tool_call("ls", {}),
    ]
    session, _ = await scripted_session(
        str(tmp_path), [[c] for c in calls] + [[text("done")]], base_tools_override=override
    )
    session.agent.tool_execution = "sequential"
    recorder = Recorder()
    session.subscribe(recorder)
    await session.prompt("use every tool")
    ends = [e for e in recorder.events if e.type == "tool_execution_end"]
    assert [e.tool_name for e in ends] == list(factories)
    assert not [e for e in ends if e.is_error], [text_of(e.result) for e in ends if e.is_error]
    results = {e.tool_name: text_of(e.result) for e in ends}
    assert "alpha" in results["read"] and "FakeOS" in results["bash"]
    assert "notes.txt:1: alpha" in results["grep"] and "notes.txt" in results["find"]
    assert "notes.txt" in results["ls"] and "new/" in results["ls"]
    assert ws.files[f"{root}/new/out.txt"] == "written"
    assert ws.files[f"{root}/notes.txt"] == "alpha\ngamma\n"
    assert {tool for tool, _, _ in ws.calls} == set(factories)
    assert not os.path.exists(root)


# -- R-SEAM-07 --------------------------------------------------------------------------------------


async def test_unsubscribe_and_a_failing_listener(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "s.jsonl"
    session, _ = await scripted_session(
        str(tmp_path), [[text("one")], [text("two")]], session_manager=SessionManager.open(path)
    )
    failing_calls: list[str] = []

    def failing(event) -> None:
        failing_calls.append(event.type)
        raise RuntimeError("listener bug")

    late = Recorder()
    gone = Recorder()
    session.subscribe(failing)
    unsubscribe = session.subscribe(gone)
    session.subscribe(late)
    with caplog.at_level(logging.ERROR):
        await session.prompt("first")
        unsubscribe()
        await session.prompt("second")
    assert late.types.count("agent_end") == 2  # the listener after the failing one saw everything
    assert gone.types.count("agent_end") == 1  # nothing arrived after unsubscribing
    failures = [r for r in caplog.records if r.exc_info and "listener bug" in str(r.exc_info[1])]
    assert len(failures) == len(failing_calls)  # logged once per occurrence
    assert [m["message"]["role"] for m in message_lines(str(path))] == ["user", "assistant"] * 2
    assert session.get_last_assistant_text() == "two"


# -- R-SEAM-08 --------------------------------------------------------------------------------------


async def _wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def test_abort_while_streaming(tmp_path: Path) -> None:
    session, _ = await scripted_session(str(tmp_path), [[text("partial answer"), hang()]])
    recorder = Recorder()
    session.subscribe(recorder)
    run = asyncio.ensure_future(session.prompt("hi"))
    await _wait_for(lambda: "message_update" in recorder.types)
    session.abort()
    await asyncio.wait_for(run, 20)  # returns, does not raise
    last = session.get_last_assistant_message()
    assert last.stop_reason == "aborted" and recorder.types[-2:] == ["agent_end", "agent_settled"]
    assert recorder.events[-1].aborted is True


async def test_abort_kills_the_running_bash_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    command = f"echo $$ > {pid_file}; sleep 60; echo never"
    session, _ = await scripted_session(str(tmp_path), [[tool_call("bash", {"command": command})]])
    run = asyncio.ensure_future(session.prompt("run it"))
    await _wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    group = int(pid_file.read_text())
    session.abort()
    await asyncio.wait_for(run, 20)
    assert session.get_last_assistant_message().stop_reason == "aborted"

    def group_gone() -> bool:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        return False

    await _wait_for(group_gone)
    assert "never" not in str([text_of(m) for m in session.messages])


# -- R-SEAM-09 --------------------------------------------------------------------------------------

PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode()


def _registry_for(server, tmp_path: Path, **model) -> ModelRegistry:
    from pi_app.ai.auth import InMemoryCredentialStore

    models_json = tmp_path / "host-models.json"
    models_json.write_text(
        json.dumps(
            {
                "providers": {
                    "local": {
                        "baseUrl": server.base_url + "/v1",
                        "api": "openai-completions",
                        "apiKey": "none",
                        "models": [{"id": "m", **model}],
                    }
                }
            }
        )
    )
    return ModelRegistry(InMemoryCredentialStore(), models_json, builtin_providers=list)


@pytest.mark.parametrize("vision", [True, False])
async def test_prompt_images_reach_vision_models_only(vision: bool, llm_server, tmp_path: Path) -> None:
    registry = _registry_for(llm_server, tmp_path, input=["text", "image"] if vision else ["text"])
    llm_server.enqueue(text("I see it."))
    created = await create_agent_session(
        str(tmp_path),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(),
        model_registry=registry,
        model=registry.find("local", "m"),
        no_context_files=True,
    )
    image = ImageContent(data=PNG_1PX, mime_type="image/png")
    await created.session.prompt("what is this?", images=[image])
    assert created.session.get_last_assistant_text() == "I see it."
    body = json.dumps(llm_server.requests[0].body)
    assert ("image_url" in body and PNG_1PX in body) is vision
    assert PNG_1PX not in body if not vision else True


# -- R-SEAM-10 --------------------------------------------------------------------------------------


async def test_credentials_location_is_injectable(llm_server, tmp_path: Path, isolated_home: Path) -> None:
    from pi_app.coding.auth_storage import AuthStorage

    secrets = tmp_path / "outside-the-workspace" / "auth.json"
    secrets.parent.mkdir()
    secrets.write_text(json.dumps({"local": {"type": "api_key", "key": "k-from-the-host-store"}}))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    models_json = tmp_path / "host-models.json"
    models_json.write_text(
        json.dumps(
            {
                "providers": {
                    "local": {
                        "baseUrl": llm_server.base_url + "/v1",
                        "api": "openai-completions",
                        "apiKey": "key-in-models-json",  # auth.json wins over it (D-7)
                        "models": [{"id": "m"}],
                    }
                }
            }
        )
    )
    registry = ModelRegistry(AuthStorage(secrets), models_json, builtin_providers=list)
    llm_server.enqueue(text("authorised"))
    created = await create_agent_session(
        str(workspace),
        session_manager=SessionManager.in_memory(str(workspace)),
        settings_manager=SettingsManager.in_memory(),
        model_registry=registry,
        model=registry.find("local", "m"),
        no_context_files=True,
    )
    await created.session.prompt("hi")
    assert created.session.get_last_assistant_text() == "authorised"
    assert llm_server.requests[0].headers["authorization"] == "Bearer k-from-the-host-store"
    assert not (isolated_home / ".pi" / "agent" / "auth.json").exists()


# -- R-SEAM-11 --------------------------------------------------------------------------------------

NO_TTY_HOST = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, sys.argv[1])
    from pi_app.ai.testing import text, tool_call
    from tests.shells.helpers import scripted_session

    async def main():
        session, _ = await scripted_session(
            sys.argv[2], [[tool_call("bash", {"command": "cat; echo tool-ran"})], [text("host done")]]
        )
        await session.prompt("go")
        sys.stdout.write(session.get_last_assistant_text() + "\\n")

    asyncio.run(main())
    """
)


def test_a_session_runs_with_pipes_and_never_reads_stdin(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", NO_TTY_HOST, str(REPO), str(tmp_path)],
        stdin=subprocess.PIPE,  # kept open: a read from it would block forever
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out == "host done\n" and err == ""


# -- R-SEAM-13 --------------------------------------------------------------------------------------


async def test_tool_result_details_are_persisted_for_renderers(tmp_path: Path) -> None:
    def query(params, signal, on_update):
        return AgentToolResult(content=[TextContent(text="3 rows")], details={"rows": [1, 2, 3], "ms": 4})

    path = tmp_path / "s.jsonl"
    session, _ = await scripted_session(
        str(tmp_path),
        [[tool_call("query", {})], [text("three rows")]],
        session_manager=SessionManager.open(path),
        custom_tools=[FakeTool("query", query)],
    )
    await session.prompt("count")
    result = next(m for m in message_lines(str(path)) if m["message"]["role"] == "toolResult")
    assert result["message"]["details"] == {"rows": [1, 2, 3], "ms": 4}
    assert provider_text_has_no_details(session)


def provider_text_has_no_details(session) -> bool:
    """Details are for renderers: the model sees only the content."""
    tool_result = next(m for m in session.messages if m.role == "toolResult")
    return text_of(tool_result) == "3 rows"
