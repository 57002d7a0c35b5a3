"""The example extensions under ``examples/extensions/`` work as documented (spec 40 scope,
70 §2.2, R-NOGO-04..07, D-38)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.event_stream import AbortController
from pi_app.ai.types import AssistantMessage, TextContent
from pi_app.coding.extensions.types import (
    AgentEndEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    ToolInfo,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_app.coding.extensions.ui import NoOpUIContext

from .helpers import FakeHost, load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


class FakeSessionManager:
    def __init__(self, entries: list[dict[str, Any]] | None = None) -> None:
        self.entries = entries or []

    def get_branch(self) -> list[dict[str, Any]]:
        return list(self.entries)

    def get_session_id(self) -> str:
        return "sess-1"


class ExampleHost(FakeHost):
    def __init__(self, cwd: str, entries: list[dict[str, Any]] | None = None) -> None:
        super().__init__(cwd)
        self.manager = FakeSessionManager(entries)
        self.active_tools = ["read", "bash", "edit", "write", "todo"]

    @property
    def session_manager(self) -> Any:
        return self.manager

    def get_all_tools(self) -> list[ToolInfo]:
        return [ToolInfo(n, n, {}) for n in ("read", "bash", "edit", "write", "grep", "find", "ls", "todo")]

    def append_entry(self, custom_type: str, data: Any) -> None:
        super().append_entry(custom_type, data)
        self.manager.entries.append(
            {"type": "custom", "customType": custom_type, "data": json.loads(json.dumps(data))}
        )


class RecordingUI(NoOpUIContext):
    def __init__(self, answers: list[Any] | None = None) -> None:
        self.answers = list(answers or [])
        self.calls: list[tuple[str, Any]] = []

    async def select(self, title: str, options: list[str], **_: Any) -> str | None:
        self.calls.append(("select", (title, options)))
        return self.answers.pop(0) if self.answers else None

    async def confirm(self, title: str, message: str, **_: Any) -> bool:
        self.calls.append(("confirm", title))
        return bool(self.answers.pop(0)) if self.answers else False

    def notify(self, message: str, level: str = "info") -> None:
        self.calls.append(("notify", message))

    def set_status(self, key: str, text: str | None) -> None:
        self.calls.append(("status", (key, text)))

    def set_widget(self, key: str, content: Any, **_: Any) -> None:
        self.calls.append(("widget", (key, content)))

    def set_footer(self, factory: Any) -> None:
        self.calls.append(("footer", factory))


async def start(
    paths: list[Path], tmp_path: Path, *, ui: Any = None, host: Any = None, flags: dict | None = None
):
    runner, errors = await load(paths, tmp_path)
    assert runner.load_errors == [], runner.load_errors
    if flags:
        runner.set_flag_values(flags)
    host = host or ExampleHost(str(tmp_path))
    runner.bind_core(host)
    runner.set_ui_context(ui, "tui" if ui is not None else "print")
    await runner.emit(SessionStartEvent("startup"))
    return runner, host, errors


# -- permission gate -------------------------------------------------------------------------------


async def test_permission_gate(tmp_path: Path) -> None:
    ui = RecordingUI(["No", "Yes"])
    runner, _, _ = await start([EXAMPLES / "permission_gate.py"], tmp_path, ui=ui)
    blocked = await runner.emit_tool_call("1", "bash", {"command": "rm -rf build"})
    assert (blocked.block, blocked.reason) == (True, "Blocked by user")
    allowed = await runner.emit_tool_call("2", "bash", {"command": "sudo apt update"})
    assert allowed.block is False
    assert (await runner.emit_tool_call("3", "bash", {"command": "ls -la"})).block is False
    assert (await runner.emit_tool_call("4", "read", {"path": "rm -rf"})).block is False
    assert len([c for c in ui.calls if c[0] == "select"]) == 2

    headless, _, _ = await start([EXAMPLES / "permission_gate.py"], tmp_path)
    outcome = await headless.emit_tool_call("5", "bash", {"command": "chmod -R 777 /srv"})
    assert (outcome.block, outcome.reason) == (True, "Dangerous command blocked (no UI for confirmation)")


# -- protected paths -------------------------------------------------------------------------------


async def test_protected_paths(tmp_path: Path) -> None:
    runner, _, _ = await start([EXAMPLES / "protected_paths.py"], tmp_path, flags={"protected": "secrets/*"})
    for tool, path in (
        ("write", ".env"),
        ("edit", "app/.env.local"),
        ("write", ".git/config"),
        ("edit", "node_modules/x/index.js"),
        ("write", "secrets/key.pem"),
        ("write", "@.env"),
    ):
        outcome = await runner.emit_tool_call("1", tool, {"path": path})
        assert outcome.block and outcome.reason == f'Path "{path}" is protected', (tool, path)
    assert (await runner.emit_tool_call("1", "write", {"path": "src/main.py"})).block is False
    assert (await runner.emit_tool_call("1", "read", {"path": ".env"})).block is False


# -- plan mode -------------------------------------------------------------------------------------


def assistant(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text)])


async def test_plan_mode_cycle(tmp_path: Path) -> None:
    ui = RecordingUI(["Execute the plan"])
    runner, host, errors = await start([EXAMPLES / "plan_mode"], tmp_path, ui=ui)
    assert await runner.execute_command("/plan") is True
    assert host.active_tools == ["read", "grep", "find", "ls", "bash"]

    assert (
        await runner.emit_tool_call("1", "bash", {"command": "git status && rg TODO | head"})
    ).block is False
    for command in (
        "rm -rf x",
        "git commit -m x",
        "echo hi > file",
        "sudo ls",
        "npm install x",
        "find . -delete",
    ):
        outcome = await runner.emit_tool_call("1", "bash", {"command": command})
        assert outcome.block and outcome.reason.startswith("Plan mode:"), command
    assert (await runner.emit_tool_call("1", "write", {"path": "a"})).block is True

    start_outcome = await runner.emit_before_agent_start("plan it", None, "BASE")
    assert start_outcome.messages[0]["content"].startswith("You are in PLAN MODE")

    await runner.emit(
        TurnEndEvent(
            0, assistant("Looked around.\n\nPlan:\n1. Add a test\n2. Fix the parser\n\nThat's it."), []
        )
    )
    await runner.emit(AgentEndEvent([]))
    assert ("select", ("Plan ready. What next?", ["Execute the plan", "Stay in plan mode"])) in ui.calls
    assert host.active_tools == ["read", "bash", "edit", "write", "todo"]
    [sent] = [c for c in host.calls if c[0] == "send_user_message"]
    assert sent[1] == ("Execute the plan:\n1. Add a test\n2. Fix the parser", "followUp", False)

    await runner.emit(TurnEndEvent(1, assistant("Test added. [DONE:1]"), []))
    widgets = [c[1] for c in ui.calls if c[0] == "widget" and c[1][1]]
    assert widgets[-1][1] == ["Plan (1/2 done)", "  [x] 1. Add a test", "  [ ] 2. Fix the parser"]
    await runner.emit(TurnEndEvent(2, assistant("Parser fixed [DONE:2]"), []))
    assert ("notify", "Plan complete") in ui.calls
    assert errors == []

    # the state survives a resume through the custom entries
    resumed, host2, _ = await start(
        [EXAMPLES / "plan_mode"],
        tmp_path,
        ui=RecordingUI(),
        host=ExampleHost(str(tmp_path), host.manager.entries),
    )
    last = [e for e in host2.manager.entries if e["customType"] == "plan-mode"][-1]["data"]
    assert last["steps"] == ["Add a test", "Fix the parser"] and last["done"] == [1, 2]


async def test_plan_flag_starts_in_plan_mode(tmp_path: Path) -> None:
    _, host, _ = await start([EXAMPLES / "plan_mode"], tmp_path, ui=RecordingUI(), flags={"plan": True})
    assert host.active_tools == ["read", "grep", "find", "ls", "bash"]


# -- todo --------------------------------------------------------------------------------------------


async def test_todo_state_lives_in_entries(tmp_path: Path) -> None:
    runner, host, _ = await start([EXAMPLES / "todo.py"], tmp_path)
    [tool] = runner.get_tools()
    ctx = runner.create_context()
    run = tool.definition.execute
    await run("1", {"action": "add", "text": "write tests"}, None, None, ctx)
    await run("2", {"action": "add", "text": "ship"}, None, None, ctx)
    result = await run("3", {"action": "toggle", "id": 1}, None, None, ctx)
    assert result.content[0].text == "1. [x] write tests\n2. [ ] ship"
    with pytest.raises(ValueError, match="No to-do with id 9"):
        await run("4", {"action": "toggle", "id": 9}, None, None, ctx)
    assert [c[1][0] for c in host.calls if c[0] == "append_entry"] == ["todo"] * 3

    again, _, _ = await start(
        [EXAMPLES / "todo.py"], tmp_path, host=ExampleHost(str(tmp_path), host.manager.entries)
    )
    listing = await again.get_tools()[0].definition.execute(
        "5", {"action": "list"}, None, None, again.create_context()
    )
    assert listing.content[0].text == "1. [x] write tests\n2. [ ] ship"


# -- footer and renderer ------------------------------------------------------------------------------


async def test_custom_footer(tmp_path: Path) -> None:
    from pi_app.ai.types import Model

    class Host(ExampleHost):
        @property
        def model(self) -> Any:
            return Model(id="m1", provider="p")

    ui = RecordingUI()
    runner, _, _ = await start([EXAMPLES / "custom_footer.py"], tmp_path, ui=ui, host=Host(str(tmp_path)))
    [factory] = [c[1] for c in ui.calls if c[0] == "footer"]
    assert callable(factory)
    await runner.execute_command("/footer")
    assert [c[1] for c in ui.calls if c[0] == "footer"][-1] is None
    import importlib.util

    spec = importlib.util.spec_from_file_location("footer_example", EXAMPLES / "custom_footer.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]

    class Data:
        git_branch = "main"

    assert module.footer_text(runner.create_context(), Data()) == "p/m1  |  thinking: medium  |  git: main"


async def test_custom_tool_renderer(tmp_path: Path) -> None:
    import importlib.util
    import random

    spec = importlib.util.spec_from_file_location("dice_example", EXAMPLES / "custom_tool_renderer.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    runner, _ = await load([], tmp_path, factories=[lambda pi: module.setup(pi, random.Random(7))])
    [tool] = runner.get_tools()
    definition = tool.definition
    result = await definition.execute("1", {"count": 3, "sides": 6}, None, None, None)
    rolls = result.details["rolls"]
    assert len(rolls) == 3 and result.content[0].text.endswith(f"(total {sum(rolls)})")
    assert definition.render_call({"count": 3, "sides": 6}, None).plain == "roll 3d6"
    rendered = definition.render_result(result, type("O", (), {"expanded": True})(), None).plain
    assert f"total {sum(rolls)}" in rendered and "3 dice, 6 sides" in rendered
    from pi_app.agent.types import AgentToolResult

    assert definition.render_result(AgentToolResult([TextContent("error")]), None, None) is None


# -- git checkpoints -----------------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
    }
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


async def test_git_checkpoint(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("original\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    (repo / "a.txt").write_text("work in progress\n")
    ui = RecordingUI([True])
    runner, host, errors = await start(
        [EXAMPLES / "git_checkpoint.py"], repo, ui=ui, host=ExampleHost(str(repo))
    )
    await runner.emit(TurnStartEvent(0, 0))
    [entry] = [c[1][1] for c in host.calls if c[0] == "append_entry"]
    assert entry["ref"] == "refs/pi-checkpoints/sess-1/1"
    assert git(repo, "rev-parse", entry["ref"]).strip() == entry["commit"]
    (repo / "a.txt").write_text("broken by the agent\n")
    await runner.execute_command("/restore 1")
    assert (repo / "a.txt").read_text() == "work in progress\n"
    await runner.execute_command("/checkpoints")
    assert any(c[0] == "notify" and c[1].startswith("1: ") for c in ui.calls)
    assert errors == []

    outside, host2, errors2 = await start(
        [EXAMPLES / "git_checkpoint.py"], tmp_path, host=ExampleHost(str(tmp_path))
    )
    await outside.emit(TurnStartEvent(0, 0))
    assert [c for c in host2.calls if c[0] == "append_entry"] == [] and errors2 == []


# -- sub-agents ------------------------------------------------------------------------------------------

FAKE_PI = textwrap.dedent(
    """
    import json, sys, time
    args = sys.argv[1:]
    task = args[-1]
    assert args[:4] == ["--mode", "json", "-p", "--no-session"], args
    if "fail" in task:
        print("child exploded", file=sys.stderr); sys.exit(3)
    if "slow" in task:
        time.sleep(30)
    extra = args[args.index("--tools") + 1] if "--tools" in args else "-"
    message = {"role": "assistant", "content": [{"type": "text", "text": f"done: {task} [{extra}]"}],
               "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0}}
    print(json.dumps({"type": "session", "version": 3}))
    print(json.dumps({"type": "message_end", "message": message}))
    print(json.dumps({"type": "agent_end", "messages": [message]}))
    """
)


@pytest.fixture
def fake_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Path:
    script = tmp_path / "fake_pi.py"
    script.write_text(FAKE_PI)
    monkeypatch.setenv("PI_SUBAGENT_COMMAND", f"{sys.executable} {script}")
    agents = isolated_home / ".pi" / "agent" / "agents"
    agents.mkdir(parents=True)
    for name in ("scout", "reviewer"):
        (agents / f"{name}.md").write_text((EXAMPLES / "subagent" / "agents" / f"{name}.md").read_text())
    return script


async def test_subagent_modes(tmp_path: Path, fake_pi: Path) -> None:
    runner, _, _ = await start([EXAMPLES / "subagent"], tmp_path)
    [tool] = runner.get_tools()
    ctx = runner.create_context()
    updates: list[str] = []
    single = await tool.definition.execute(
        "1",
        {"agent": "scout", "task": "find the parser"},
        None,
        lambda r: updates.append(r.content[0].text),
        ctx,
    )
    assert single.content[0].text == "done: find the parser [read,grep,find,ls]"
    assert single.details["usage"] == {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0}
    assert updates and updates[-1].startswith("scout: done")

    tasks = [{"agent": "scout", "task": f"t{i}"} for i in range(5)]
    parallel = await tool.definition.execute("2", {"tasks": tasks}, None, None, ctx)
    assert parallel.details["mode"] == "parallel" and len(parallel.details["results"]) == 5
    assert parallel.details["usage"]["input"] == 50

    chain = await tool.definition.execute(
        "3",
        {"chain": [{"agent": "scout", "task": "look"}, {"agent": "reviewer", "task": "review: {previous}"}]},
        None,
        None,
        ctx,
    )
    assert chain.details["results"][1]["task"] == "review: done: look [read,grep,find,ls]"

    with pytest.raises(ValueError, match="limit is 8"):
        await tool.definition.execute("4", {"tasks": [{"agent": "scout", "task": "x"}] * 9}, None, None, ctx)
    with pytest.raises(ValueError, match='Unknown agent "nobody"'):
        await tool.definition.execute("5", {"agent": "nobody", "task": "x"}, None, None, ctx)
    with pytest.raises(RuntimeError, match="child exploded"):
        await tool.definition.execute("6", {"agent": "scout", "task": "please fail"}, None, None, ctx)


async def test_subagent_abort_kills_the_child(tmp_path: Path, fake_pi: Path) -> None:
    runner, _, _ = await start([EXAMPLES / "subagent"], tmp_path)
    [tool] = runner.get_tools()
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.5, controller.abort)
    started = asyncio.get_running_loop().time()
    with pytest.raises(RuntimeError, match="aborted"):
        await tool.definition.execute(
            "1", {"agent": "scout", "task": "slow"}, controller.signal, None, runner.create_context()
        )
    assert asyncio.get_running_loop().time() - started < 10


# -- MCP bridge -------------------------------------------------------------------------------------------

FAKE_MCP = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        method, mid = msg.get("method"), msg.get("id")
        if mid is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "fake", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [
                {"name": "add", "description": "Add two numbers",
                 "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                 "required": ["a", "b"]}},
                {"name": "fail", "description": "Always fails", "inputSchema": {"type": "object", "properties": {}}},
            ]}
        elif method == "tools/call":
            name, args = msg["params"]["name"], msg["params"]["arguments"]
            if name == "add":
                result = {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
            else:
                result = {"content": [{"type": "text", "text": "it broke"}], "isError": True}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}), flush=True)
    """
)


async def test_mcp_bridge(tmp_path: Path) -> None:
    server = tmp_path / "fake_mcp.py"
    server.write_text(FAKE_MCP)
    runner, host, errors = await start(
        [EXAMPLES / "mcp_bridge.py"], tmp_path, flags={"mcp": f"{sys.executable} {server}"}
    )
    tools = {t.definition.name: t.definition for t in runner.get_tools()}
    assert sorted(tools) == ["mcp_add", "mcp_fail"]
    assert host.refreshed == 2  # the session's tool registry was refreshed for each new tool
    assert tools["mcp_add"].parameters["required"] == ["a", "b"]
    result = await tools["mcp_add"].execute("1", {"a": 2, "b": 40}, None, None, runner.create_context())
    assert result.content[0].text == "42"
    with pytest.raises(RuntimeError, match="it broke"):
        await tools["mcp_fail"].execute("2", {}, None, None, runner.create_context())
    await runner.emit(SessionShutdownEvent("quit"))
    assert errors == []
