"""Reload, session replacement, stale contexts and provider lifecycle (spec 40 R-EXT-22..24,
R-MOD-14..16, scenarios 19, 20 (runner part), 27)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore, env_api_key_auth
from pi_app.ai.models import create_provider
from pi_app.ai.testing import FakeApi
from pi_app.ai.types import Model
from pi_app.coding.extensions.runner import ExtensionRunner
from pi_app.coding.extensions.types import SessionStartEvent, StaleExtensionContextError
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.resources.loader import ResourceLoader, TrustPolicy

from .helpers import FakeHost, module_for, write

VERSIONED = """
from pi_app.coding.tools.definition import ToolDefinition, text_result

EVENTS = []

def setup(pi):
    pi.register_flag("stage", type="string", default="dev")

    async def execute(tool_call_id, params, signal, on_update, ctx):
        return text_result("{version}")

    pi.register_tool(ToolDefinition(name="version", label="Version", description="Version",
                                    parameters={{"type": "object", "properties": {{}}}}, execute=execute))

    @pi.on("session_start")
    def started(event, ctx):
        EVENTS.append(("start", event.reason, pi.get_flag("stage")))

    @pi.on("session_shutdown")
    def stopping(event, ctx):
        EVENTS.append(("shutdown", event.reason))
        import builtins
        builtins._pi_test_ctx = ctx
"""


async def start(loader: ResourceLoader, host: FakeHost, flags: dict | None = None) -> ExtensionRunner:
    runner = ExtensionRunner(loader.get_extensions(), cwd=str(loader.cwd))
    if flags:
        runner.set_flag_values(flags)
    runner.bind_core(host)
    return runner


async def run_tool(runner: ExtensionRunner) -> str:
    [tool] = runner.get_tools()
    result = await tool.definition.execute("id", {}, None, None, runner.create_context())
    return result.content[0].text


async def test_reload_reimports_edited_code_and_keeps_flags(tmp_path: Path) -> None:
    """Scenario 19."""
    agent_dir = tmp_path / "agent"
    ext = write(agent_dir / "extensions" / "versioned.py", VERSIONED.format(version="v1"))
    loader = ResourceLoader(tmp_path, agent_dir=agent_dir, settings={}, trust=TrustPolicy())
    await loader.reload()
    host = FakeHost()
    runner = await start(loader, host, {"stage": "prod"})
    await runner.emit(SessionStartEvent("startup"))
    assert await run_tool(runner) == "v1"
    old_module = module_for(ext)
    old_ctx = runner.create_context()

    write(ext, VERSIONED.format(version="v2"))  # same size, same second: still re-executed
    await runner.shutdown("reload")
    flags = dict(runner.runtime.flag_values)
    await loader.reload()
    new_runner = await start(loader, host, flags)
    await new_runner.emit(SessionStartEvent("reload"))
    assert await run_tool(new_runner) == "v2"
    new_module = module_for(ext)
    assert new_module is not old_module
    assert old_module.EVENTS == [("start", "startup", "prod"), ("shutdown", "reload")]
    assert new_module.EVENTS == [("start", "reload", "prod")]
    assert not any(n.startswith(f"pi_ext_g{runner.runtime.import_generation}_") for n in sys.modules)

    with pytest.raises(StaleExtensionContextError):
        old_ctx.is_idle()
    with pytest.raises(StaleExtensionContextError):
        old_ctx.ui.notify("hi")
    assert old_ctx.cwd == str(tmp_path)  # plain data stays readable


async def test_session_replacement_reruns_setup_without_import(tmp_path: Path) -> None:
    """R-EXT-24 and the runner half of scenario 20: old pi/ctx are stale, new ones live."""
    imports: list[str] = []
    apis: list[object] = []

    def factory(pi):
        imports.append("setup")
        apis.append(pi)
        pi.register_command("again", handler=lambda a, c: None)

    from .helpers import load

    runner, _ = await load([], tmp_path, factories=[factory])
    runner.set_flag_values({"x": True})
    runner.bind_core(FakeHost())
    old_ctx = runner.create_command_context()
    await runner.shutdown("new", "/tmp/new.jsonl")
    successor = await runner.create_successor()
    successor.bind_core(FakeHost())
    assert imports == ["setup", "setup"]
    assert successor.runtime.flag_values == {"x": True}
    assert successor.get_command("again") is not None
    with pytest.raises(StaleExtensionContextError):
        apis[0].send_message({"custom_type": "x", "content": "y"})  # type: ignore[attr-defined]
    with pytest.raises(StaleExtensionContextError):
        await old_ctx.new_session()
    replaced = successor.create_replaced_session_context()
    await replaced.send_user_message("hello from the new session")
    assert successor.runtime.host.calls == [  # type: ignore[union-attr]
        ("send_user_message", ("hello from the new session", None, False))
    ]


def anthropic_builtin() -> list:
    models = [
        Model(id=i, provider="anthropic", api="anthropic-messages", base_url="https://api.anthropic.com")
        for i in ("claude-a", "claude-b")
    ]
    return [
        create_provider(
            id="anthropic", auth=env_api_key_auth("k", ["ANTHROPIC_API_KEY"]), api=FakeApi(), models=models
        )
    ]


async def test_extension_provider_lifecycle(tmp_path: Path) -> None:
    """Scenario 27: queued in setup, applied at startup, removed by a command without /reload."""
    registry = ModelRegistry(
        InMemoryCredentialStore(), None, DictAuthContext({}), builtin_providers=anthropic_builtin
    )
    write(
        tmp_path / "agent" / "extensions" / "proxy.py",
        """
        def setup(pi):
            pi.register_provider("anthropic", {"base_url": "http://P"})
            pi.register_command("direct", handler=lambda args, ctx: pi.unregister_provider("anthropic"))
        """,
    )
    loader = ResourceLoader(
        tmp_path, agent_dir=tmp_path / "agent", settings={}, trust=TrustPolicy(), model_registry=registry
    )
    await loader.reload()
    runner = ExtensionRunner(loader.get_extensions(), cwd=str(tmp_path), model_registry=registry)
    assert {m.base_url for m in registry.get_all()} == {"https://api.anthropic.com"}  # still queued
    runner.flush_providers()
    assert {m.base_url for m in registry.get_all()} == {"http://P"}
    runner.bind_core(FakeHost())
    assert await runner.execute_command("/direct") is True
    assert {m.base_url for m in registry.get_all()} == {"https://api.anthropic.com"}


async def test_teardown_removes_the_runtimes_providers(tmp_path: Path) -> None:
    registry = ModelRegistry(
        InMemoryCredentialStore(), None, DictAuthContext({}), builtin_providers=anthropic_builtin
    )

    def factory(pi):
        pi.register_provider("anthropic", {"base_url": "http://P"})
        pi.register_provider("broken", {"models": [{"id": "x"}]})

    from .helpers import load

    runner, errors = await load([], tmp_path, registry=registry, factories=[factory])
    runner.bind_core(FakeHost())
    assert {m.base_url for m in registry.get_all()} == {"http://P"}
    assert [(e.event, e.error.split(":")[0]) for e in errors] == [("register_provider", "Provider broken")]
    await runner.shutdown("quit")
    assert {m.base_url for m in registry.get_all()} == {"https://api.anthropic.com"}
