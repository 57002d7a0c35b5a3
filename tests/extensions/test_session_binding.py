"""Extensions bound to a real AgentSession (spec 40 scenarios 1, 7, 8, 14, 15, 17, 19, 20 at the
session level)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.ai.types import TextContent, ToolResultMessage, UserMessage
from pi_app.coding.extensions.session_binding import ExtensionBinding
from pi_app.coding.extensions.types import StaleExtensionContextError
from pi_app.coding.resources.loader import ResourceLoader, TrustPolicy
from pi_app.coding.sdk import create_agent_session

from .helpers import module_for


def write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


async def make(
    tmp_path: Path,
    *turns: Any,
    trusted: bool = True,
    tools: list[str] | None = None,
    model: Any = None,
    builtin_tools: list[str] | None = None,
):
    """A session on the scripted provider with the agent dir's extensions bound in print mode.
    ``tools`` is the ``--tools`` allowlist (extension tools too), ``builtin_tools`` the built-ins made."""
    agent_dir = Path(tmp_path / "home" / ".pi" / "agent")
    agent_dir.mkdir(parents=True, exist_ok=True)
    cwd = tmp_path / "proj"
    cwd.mkdir(exist_ok=True)
    provider = fake_provider(script=list(turns))
    loader = ResourceLoader(cwd, agent_dir=agent_dir, settings={}, trust=TrustPolicy(trusted=trusted))
    await loader.reload()
    created = await create_agent_session(
        str(cwd),
        agent_dir=agent_dir,
        model=model or provider.models[0],
        stream_fn=provider.fake.stream_simple,
        resource_loader=loader,
        tools=builtin_tools,
    )
    session = created.session
    errors: list[Any] = []
    binding = await ExtensionBinding.attach(
        session, loader, mode="print", on_error=errors.append, allowlist=tools
    )
    await binding.start()
    return session, binding, provider, errors, agent_dir, cwd


def user_texts(session: Any) -> list[str]:
    out = []
    for message in session.messages:
        if isinstance(message, UserMessage):
            content = message.content
            out.append(
                content
                if isinstance(content, str)
                else "".join(b.text for b in content if isinstance(b, TextContent))
            )
    return out


HELLO = """
from pi_app.ext import ToolDefinition, text_result

def setup(pi):
    async def greet(tool_call_id, params, signal, on_update, ctx):
        return text_result(f"Hello, {params['name']}!")

    pi.register_tool(ToolDefinition(name="greet", label="Greet", description="Greet someone",
        parameters={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        execute=greet, prompt_snippet="Greet a person by name"))
    pi.register_command("hello", description="Say hello", handler=lambda args, ctx: None)
"""


async def test_load_and_register(tmp_path: Path) -> None:
    """Scenario 1 (session level): the tool runs for the model and the command is listed."""
    write(tmp_path / "home" / ".pi" / "agent" / "extensions" / "hello.py", HELLO)
    session, binding, provider, errors, *_ = await make(
        tmp_path, [tool_call("greet", {"name": "Ada"})], [text("done")], tools=["greet"]
    )
    assert [t.name for t in session.agent.state.tools] == ["greet"]
    assert "Greet a person by name" in session.system_prompt
    await session.prompt("greet Ada")
    [result] = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert result.content[0].text == "Hello, Ada!"
    commands = [(c.name, c.source) for c in binding.runner.get_slash_commands()]
    assert ("hello", "extension") in commands
    assert errors == []


async def test_input_transform_handled_and_command(tmp_path: Path) -> None:
    """Scenario 7: transformed text is stored; handled input stores nothing and calls no LLM."""
    write(
        tmp_path / "home" / ".pi" / "agent" / "extensions" / "route.py",
        """
        CALLS = []
        def setup(pi):
            @pi.on("input")
            def route(event, ctx):
                if event.text.startswith("?q "):
                    return {"action": "transform", "text": "Respond briefly: " + event.text[3:]}
                if event.text == "ping":
                    return {"action": "handled"}
            pi.register_command("note", handler=lambda args, ctx: CALLS.append(args))
        """,
    )
    session, binding, provider, errors, *_ = await make(tmp_path, [text("ok")])
    await session.prompt("?q hi")
    assert user_texts(session) == ["Respond briefly: hi"]
    calls = len(provider.calls)
    await session.prompt("ping")
    await session.prompt("/note remember this")
    assert len(provider.calls) == calls and user_texts(session) == ["Respond briefly: hi"]


async def test_before_agent_start_chaining(tmp_path: Path) -> None:
    """Scenario 8."""
    ext_dir = tmp_path / "home" / ".pi" / "agent" / "extensions"
    write(
        ext_dir / "a_one.py",
        """
        def setup(pi):
            pi.on("before_agent_start", lambda e, c: {"system_prompt": e.system_prompt + "\\nLINE ONE"} if e.prompt == "first" else None)
        """,
    )
    write(
        ext_dir / "b_two.py",
        """
        def setup(pi):
            @pi.on("before_agent_start")
            def add(e, c):
                if e.prompt != "first":
                    return None
                return {"system_prompt": e.system_prompt + "\\nLINE TWO",
                        "message": {"custom_type": "note", "content": "injected", "display": True}}
        """,
    )
    session, binding, provider, errors, *_ = await make(tmp_path, [text("a")], [text("b")])
    await session.prompt("first")
    first = provider.calls[0].context
    assert first.system_prompt.endswith("LINE ONE\nLINE TWO")
    roles = [getattr(m, "role", None) for m in session.messages]
    assert roles[:3] == ["user", "custom", "assistant"]
    entries = session.session_manager.get_entries()
    assert any(e.get("type") == "custom_message" and e.get("customType") == "note" for e in entries)
    await session.prompt("second")
    assert "LINE ONE" not in provider.calls[1].context.system_prompt


async def test_skill_and_template_expansion(tmp_path: Path) -> None:
    """Scenarios 14 and 15 through the session."""
    agent = tmp_path / "home" / ".pi" / "agent"
    write(
        agent / "skills" / "tdd" / "SKILL.md",
        "---\nname: tdd\ndescription: TDD\n---\nWrite the test first.\n",
    )
    write(agent / "prompts" / "component.md", "Create $1 with $@ and ${@:2}")
    session, *_ = await make(tmp_path, [text("a")], [text("b")])
    await session.prompt("/skill:tdd fix the parser")
    await session.prompt("/component Button \"on click\" 'disabled'")
    first, second = user_texts(session)
    assert first.startswith('<skill name="tdd" location="') and first.endswith("</skill>\n\nfix the parser")
    assert second == "Create Button with Button on click disabled and on click disabled"


async def test_project_trust_is_visible_to_extensions(tmp_path: Path) -> None:
    """Scenario 17: ctx.is_project_trusted() is False for global extensions when untrusted."""
    probe = write(
        tmp_path / "home" / ".pi" / "agent" / "extensions" / "probe.py",
        """
        SEEN = []
        def setup(pi):
            pi.on("session_start", lambda e, ctx: SEEN.append(ctx.is_project_trusted()))
        """,
    )
    session, binding, *_ = await make(tmp_path, trusted=False)
    assert module_for(probe).SEEN == [False]


async def test_with_session_and_stale_context(tmp_path: Path) -> None:
    """Scenario 20: the callback's message lands in the new session file only."""
    fresh = write(
        tmp_path / "home" / ".pi" / "agent" / "extensions" / "fresh.py",
        """
        STATE = {}
        def setup(pi):
            async def fresh(args, ctx):
                STATE["old_ctx"] = ctx
                async def cb(new_ctx):
                    await new_ctx.send_user_message("hello from the new session")
                await ctx.new_session(with_session=cb)
            pi.register_command("fresh", handler=fresh)
        """,
    )
    session, binding, provider, errors, *_ = await make(
        tmp_path, [text("first answer")], [text("second answer")]
    )
    await session.prompt("before")
    old_file = session.session_file
    await session.prompt("/fresh")
    await binding.drain()
    await session.wait_for_idle()
    assert session.session_file != old_file
    new_text = Path(session.session_file).read_text()
    assert "hello from the new session" in new_text
    assert "hello from the new session" not in Path(old_file).read_text()
    with pytest.raises(StaleExtensionContextError):
        module_for(fresh).STATE["old_ctx"].is_idle()
    assert errors == []


async def test_reload_through_the_binding(tmp_path: Path) -> None:
    """Scenario 19 through the session: /reload re-imports and keeps flags."""
    ext = write(
        tmp_path / "home" / ".pi" / "agent" / "extensions" / "ver.py",
        """
        from pi_app.ext import ToolDefinition, text_result
        def setup(pi):
            async def run(i, p, s, u, c):
                return text_result("v1")
            pi.register_tool(ToolDefinition(name="ver", label="ver", description="ver",
                parameters={"type": "object", "properties": {}}, execute=run))
        """,
    )
    session, binding, *_ = await make(tmp_path)
    old_ctx = binding.runner.create_context()
    ext.write_text(ext.read_text().replace('"v1"', '"v2"'))
    await binding.reload()
    [tool] = [t for t in session.agent.state.tools if t.name == "ver"]
    result = await tool.execute("1", {}, None, None)
    assert result.content[0].text == "v2"
    with pytest.raises(StaleExtensionContextError):
        old_ctx.is_idle()


async def test_user_bash_and_session_info_changed(tmp_path: Path) -> None:
    """``user_bash`` may replace a ``!cmd`` with its own result; ``session_info_changed`` on renames."""
    ext = write(
        tmp_path / "home" / ".pi" / "agent" / "extensions" / "remote.py",
        """
        SEEN = []

        def setup(pi):
            @pi.on("user_bash")
            def route(event, ctx):
                SEEN.append((event.command, event.exclude_from_context, event.cwd))
                if event.command.startswith("remote "):
                    return {"result": {"output": "from the remote host", "exit_code": 0}}
                return None

            @pi.on("session_info_changed")
            def renamed(event, ctx):
                SEEN.append(("name", event.name))
        """,
    )
    session, binding, provider, errors, agent_dir, cwd = await make(tmp_path)
    remote = await session.execute_bash("remote uptime", exclude_from_context=True)
    local = await session.execute_bash("echo local")
    assert (remote.output, remote.exit_code) == ("from the remote host", 0)
    assert local.output.strip() == "local" and local.exit_code == 0
    session.set_session_name("Deploy day")
    await asyncio.sleep(0)
    assert module_for(ext).SEEN == [
        ("remote uptime", True, str(cwd)),
        ("echo local", False, str(cwd)),
        ("name", "Deploy day"),
    ]
    assert errors == []
