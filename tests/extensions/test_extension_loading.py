"""Loading, isolation and registration rules (spec 40 R-EXT-01..07, R-EXT-18..21, scenarios 2, 3, 21;
issue acceptance 3)."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_app.ai.auth import DictAuthContext, InMemoryCredentialStore
from pi_app.coding.extensions.loader import MODULE_PREFIX
from pi_app.coding.extensions.types import ExtensionRuntimeNotReady, SessionStartEvent
from pi_app.coding.models.registry import ModelRegistry

from .helpers import FakeHost, load, module_for, write

TOOL = """
from pi_app.coding.tools.definition import ToolDefinition, text_result

def make_tool(name, reply):
    async def execute(tool_call_id, params, signal, on_update, ctx):
        return text_result(reply.format(**params))
    return ToolDefinition(name=name, label=name, description=f"The {name} tool",
                          parameters={"type": "object", "properties": {"name": {"type": "string"}}},
                          execute=execute)
"""


async def test_failing_setup_leaves_no_residue(tmp_path: Path, builtins=None) -> None:
    """Scenario 2."""
    registry = ModelRegistry(InMemoryCredentialStore(), None, DictAuthContext({}), builtin_providers=list)
    bad = write(
        tmp_path / "bad.py",
        TOOL
        + """
def setup(pi):
    pi.register_tool(make_tool("x", "x"))
    pi.register_provider("badprov", {"base_url": "http://b", "api_key": "k", "api": "openai-completions",
        "models": [{"id": "m", "name": "M", "reasoning": False, "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "context_window": 1, "max_tokens": 1}]})
    pi.events.on("chan", lambda data: None)
    raise RuntimeError("setup exploded")
""",
    )
    good = write(tmp_path / "good.py", TOOL + "\ndef setup(pi):\n    pi.register_tool(make_tool('y', 'y'))\n")
    runner, _ = await load([bad, good], tmp_path, registry=registry)
    assert [(e.path, e.error) for e in runner.load_errors] == [
        (str(bad), "Failed to load extension: RuntimeError: setup exploded")
    ]
    assert [t.definition.name for t in runner.get_tools()] == ["y"]
    runner.flush_providers()
    runner.bind_core(FakeHost())
    assert registry.find("badprov", "m") is None
    assert runner.runtime.event_bus.subscriber_count() == 0


async def test_handler_error_and_syntax_error_are_one_line_naming_the_file(tmp_path: Path) -> None:
    """Issue acceptance 3: setup raises, handler raises, syntax error -> pi keeps running."""
    broken = write(tmp_path / "syntax.py", "def setup(pi):\n    return (\n")
    raising = write(tmp_path / "raises.py", "def setup(pi):\n    raise ValueError('nope')\n")
    handler = write(
        tmp_path / "handler.py",
        "def setup(pi):\n    @pi.on('session_start')\n    def boom(event, ctx):\n        raise KeyError('missing')\n",
    )
    runner, errors = await load([broken, raising, handler], tmp_path)
    by_path = {e.path: e.error for e in runner.load_errors}
    assert by_path[str(broken)].startswith("Failed to load extension: SyntaxError:")
    assert by_path[str(raising)] == "Failed to load extension: ValueError: nope"
    assert all("\n" not in message for message in by_path.values())
    runner.bind_core(FakeHost())
    await runner.emit(SessionStartEvent("startup"))
    [error] = errors
    assert (error.extension_path, error.event) == (str(handler), "session_start")
    assert error.one_line() == f"Extension \"{handler}\" error: 'missing'"
    assert "KeyError" in (error.stack or "")


async def test_missing_setup_and_missing_module(tmp_path: Path) -> None:
    nosetup = write(tmp_path / "nosetup.py", "x = 1\n")
    needs = write(tmp_path / "needs.py", "import surely_not_installed_mod\ndef setup(pi):\n    pass\n")
    runner, _ = await load([nosetup, needs], tmp_path)
    errors = {e.path: e.error for e in runner.load_errors}
    assert errors[str(nosetup)] == f"Extension does not export a setup(pi) function: {nosetup}"
    assert "surely_not_installed_mod" in errors[str(needs)]


async def test_actions_raise_during_setup_but_work_in_handlers(tmp_path: Path) -> None:
    """Scenario 3."""
    early = write(
        tmp_path / "early.py", "def setup(pi):\n    pi.send_message({'custom_type': 'x', 'content': 'hi'})\n"
    )
    later = write(
        tmp_path / "later.py",
        """
        def setup(pi):
            @pi.on("session_start")
            def started(event, ctx):
                pi.send_message({"custom_type": "x", "content": "hi", "display": True})
        """,
    )
    runner, errors = await load([early, later], tmp_path)
    [failure] = runner.load_errors
    assert failure.path == str(early)
    assert ExtensionRuntimeNotReady.__name__ in failure.error
    assert "while extensions are loading" in failure.error
    host = FakeHost()
    runner.bind_core(host)
    await runner.emit(SessionStartEvent("startup"))
    assert errors == []
    assert host.calls == [
        ("send_message", ({"custom_type": "x", "content": "hi", "display": True}, False, "steer"))
    ]


async def test_async_setup_registration_order_and_unique_modules(tmp_path: Path) -> None:
    a = write(
        tmp_path / "one" / "same.py",
        """
        import asyncio
        ORDER = []
        async def setup(pi):
            await asyncio.sleep(0)
            pi.on("turn_end", lambda e, c: ORDER.append("a1"))
            pi.on("turn_end", lambda e, c: ORDER.append("a2"))
        """,
    )
    b = write(
        tmp_path / "two" / "same.py",
        """
        import sys
        def setup(pi):
            first = [m for n, m in sys.modules.items() if n.startswith("pi_ext_g") and hasattr(m, "ORDER")][-1]
            pi.on("turn_end", lambda e, c: first.ORDER.append("b"))
        """,
    )
    runner, errors = await load([a, b], tmp_path)
    assert runner.load_errors == []
    from pi_app.coding.extensions.types import TurnEndEvent

    await runner.emit(TurnEndEvent(0, None, []))
    assert module_for(a).ORDER == ["a1", "a2", "b"]
    names = [n for n in sys.modules if n.startswith(MODULE_PREFIX)]
    assert len(set(names)) == len(names)


async def test_unknown_event_is_a_warning_and_never_called(tmp_path: Path) -> None:
    ext = write(tmp_path / "typo.py", "def setup(pi):\n    pi.on('tool_calll', lambda e, c: 1/0)\n")
    runner, errors = await load([ext], tmp_path)
    assert [w.error for w in runner.warnings] == [
        'Unknown event "tool_calll": the handler will never be called'
    ]
    assert runner.has_handlers("tool_call") is False


async def test_conflicts_first_extension_wins(tmp_path: Path) -> None:
    """Scenario 21 plus tool/flag/shortcut/renderer conflicts."""
    first = write(
        tmp_path / "first.py",
        TOOL
        + """
CALLS = []
def setup(pi):
    pi.register_command("deploy", handler=lambda args, ctx: CALLS.append(("first", args)))
    pi.register_tool(make_tool("shared", "first"))
    pi.register_flag("verbose", type="boolean", default=False)
    pi.register_shortcut("ctrl+shift+d", handler=lambda ctx: CALLS.append("first-key"))
    pi.register_message_renderer("note", lambda m, o, t: "first")
""",
    )
    second = write(
        tmp_path / "second.py",
        TOOL
        + """
def setup(pi):
    pi.register_command("deploy", handler=lambda args, ctx: 1/0)
    pi.register_command("model", handler=lambda args, ctx: 1/0)
    pi.register_tool(make_tool("shared", "second"))
    pi.register_flag("verbose", type="string")
    pi.register_shortcut("CTRL+SHIFT+D", handler=lambda ctx: 1/0)
    pi.register_message_renderer("note", lambda m, o, t: "second")
""",
    )
    runner, errors = await load([first, second], tmp_path)
    messages = [c.error for c in runner.conflicts]
    assert f'Command "/deploy" conflicts with {first}' in messages
    assert f'Tool "shared" conflicts with {first}' in messages
    assert f'Flag "--verbose" conflicts with {first}' in messages
    assert f"Shortcut 'ctrl+shift+d' conflicts with {first}" in messages
    assert f'Message renderer "note" conflicts with {first}' in messages
    assert f"Extension command 'model' from {second} conflicts with built-in commands. Skipping." in messages
    assert {c.path for c in runner.conflicts} == {str(second)}
    runner.bind_core(FakeHost())
    assert await runner.execute_command("/deploy now") is True
    assert await runner.execute_command("/model") is False  # the built-in selector handles it
    assert await runner.run_shortcut("Ctrl+Shift+D") is True
    assert module_for(first).CALLS == [("first", "now"), "first-key"]
    assert runner.get_message_renderer("note")(None, None, None) == "first"
    assert errors == []


async def test_reserved_shortcuts_are_skipped(tmp_path: Path) -> None:
    ext = write(
        tmp_path / "keys.py",
        "def setup(pi):\n"
        "    pi.register_shortcut('ctrl+c', handler=lambda ctx: None)\n"
        "    pi.register_shortcut('ctrl+g', handler=lambda ctx: None)\n"
        "    pi.register_shortcut('alt+x', handler=lambda ctx: None)\n",
    )
    runner, _ = await load(
        [ext], tmp_path, keybindings={"ctrl+c": "app.interrupt", "ctrl+g": "app.editor.external"}
    )
    assert sorted(runner.get_shortcuts()) == ["alt+x", "ctrl+g"]
    texts = [c.error for c in runner.conflicts]
    assert any("reserved for app.interrupt" in t for t in texts)
    assert any("takes over the built-in app.editor.external" in t for t in texts)


async def test_command_and_shortcut_failures_are_reported(tmp_path: Path) -> None:
    ext = write(
        tmp_path / "cmd.py",
        "def setup(pi):\n"
        "    pi.register_command('fail', handler=lambda args, ctx: 1/0)\n"
        "    pi.register_shortcut('alt+f', handler=lambda ctx: 1/0)\n",
    )
    runner, errors = await load([ext], tmp_path)
    runner.bind_core(FakeHost())
    assert await runner.execute_command("/fail") is True
    assert await runner.run_shortcut("alt+f") is True
    assert [(e.extension_path, e.event) for e in errors] == [
        ("command:fail", "command"),
        (str(ext), "shortcut"),
    ]


async def test_flags(tmp_path: Path) -> None:
    ext = write(
        tmp_path / "flags.py",
        """
        SEEN = {}
        def setup(pi):
            pi.register_flag("--plan", type="boolean", default=False, description="Start in plan mode")
            pi.register_flag("target", type="string")
            SEEN["during_setup"] = (pi.get_flag("plan"), pi.get_flag("target"), pi.get_flag("not-mine"))
            @pi.on("session_start")
            def started(event, ctx):
                SEEN["later"] = (pi.get_flag("--plan"), pi.get_flag("target"))
        """,
    )
    runner, _ = await load([ext], tmp_path)
    assert sorted(runner.get_flags()) == ["plan", "target"]
    runner.set_flag_values({"plan": True, "target": "prod"})
    runner.bind_core(FakeHost())
    await runner.emit(SessionStartEvent("startup"))
    assert module_for(ext).SEEN == {"during_setup": (False, None, None), "later": (True, "prod")}


async def test_inline_factories(tmp_path: Path) -> None:
    def good(pi):
        pi.register_command("inline", handler=lambda a, c: None)

    def bad(pi):
        raise RuntimeError("inline failure")

    runner, _ = await load([], tmp_path, factories=[good, bad])
    assert [e.path for e in runner.extensions] == ["<inline:1>"]
    assert [(e.path, e.error) for e in runner.load_errors] == [
        ("<inline:2>", "Failed to load extension: RuntimeError: inline failure")
    ]


async def test_exec_runs_programs_and_kills_on_timeout(tmp_path: Path) -> None:
    results = {}

    async def setup(pi):
        results["ok"] = await pi.exec("sh", ["-c", "echo out; echo err >&2; exit 3"])
        results["slow"] = await pi.exec("sleep", ["10"], timeout=0.2)

    runner, _ = await load([], tmp_path, factories=[setup])
    assert runner.load_errors == []
    ok = results["ok"]
    assert (ok.stdout, ok.stderr, ok.code, ok.killed) == ("out\n", "err\n", 3, False)
    assert results["slow"].killed is True


async def test_event_bus_isolates_subscribers(tmp_path: Path) -> None:
    got: list[object] = []

    def one(pi):
        pi.events.on("ping", lambda data: 1 / 0)
        pi.events.on("ping", lambda data: got.append(("sync", data)))

        async def later(data):
            got.append(("async", data))

        pi.events.on("ping", later)

    def two(pi):
        @pi.on("session_start")
        def started(event, ctx):
            pi.events.emit("ping", 42)

    runner, errors = await load([], tmp_path, factories=[one, two])
    runner.bind_core(FakeHost())
    await runner.emit(SessionStartEvent("startup"))
    import asyncio

    await asyncio.sleep(0.01)
    assert got == [("sync", 42), ("async", 42)]
    assert [e.event for e in errors] == ["event_bus"]
