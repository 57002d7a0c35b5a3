"""Extensions through the installed ``pi`` in print mode (spec 40 scenarios 1, 2, 4, 35; issue
acceptance 3; R-EXT-25 flags; example extensions with ``-e``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import run_pi
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"

HELLO = """
from pi_app.ext import ToolDefinition, text_result

def setup(pi):
    pi.register_flag("greeting", type="string", default="Hello")
    pi.register_flag("shout", type="boolean", default=False)

    async def greet(tool_call_id, params, signal, on_update, ctx):
        words = f"{pi.get_flag('greeting')}, {params['name']}!"
        return text_result(words.upper() if pi.get_flag("shout") else words)

    pi.register_tool(ToolDefinition(name="greet", label="Greet", description="Greet someone",
        parameters={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        execute=greet, prompt_snippet="Greet a person by name"))
    pi.register_command("hello", description="Say hello", handler=lambda args, ctx: None)

    @pi.on("session_start")
    async def probe(event, ctx):
        answer = await ctx.ui.confirm("Sure?", "Really?")
        choice = await ctx.ui.select("Pick", ["a"])
        import sys
        print(f"ui: {answer} {choice} has_ui={ctx.has_ui}", file=sys.stderr)
"""


def write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


def tool_results(server: FakeLLMServer) -> list[str]:
    """Tool-result texts the model received in the last request (OpenAI completions format)."""
    messages = server.requests[-1].body["messages"]
    return [
        m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
        for m in messages
        if m["role"] == "tool"
    ]


def test_extension_tool_flags_and_print_mode_ui(tmp_path: Path) -> None:
    """Scenarios 1 and 35 plus the second CLI pass for extension flags."""
    home = PiHome.make(tmp_path)
    write(home.agent_dir / "extensions" / "hello.py", HELLO)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(tool_call("greet", {"name": "Ada"}))
        server.enqueue(text("greeted"))
        result = run_pi(
            "--tools",
            "greet",
            "--greeting",
            "Howdy",
            "--shout",
            "-p",
            "say hi",
            cwd=home.project,
            env=home.env(),
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout == "greeted\n"
        assert tool_results(server) == ["HOWDY, ADA!"]
        tools = [t["function"]["name"] for t in server.requests[0].body["tools"]]
        assert tools == ["greet"]
    assert "ui: False None has_ui=False" in result.stderr


def test_unknown_option_is_still_an_error(tmp_path: Path) -> None:
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        result = run_pi("--bogus", "-p", "hi", cwd=home.project, env=home.env())
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == "pi: unknown option --bogus (see pi --help)"


def test_failing_extensions_leave_pi_running(tmp_path: Path) -> None:
    """Issue acceptance 3 and scenario 2: one line per failure naming the file; the run completes."""
    home = PiHome.make(tmp_path)
    ext = home.agent_dir / "extensions"
    write(ext / "raises.py", "def setup(pi):\n    raise RuntimeError('setup exploded')\n")
    write(ext / "syntax.py", "def setup(pi):\n    return (\n")
    write(
        ext / "handler.py",
        """
        def setup(pi):
            @pi.on("agent_start")
            def boom(event, ctx):
                raise ValueError("handler exploded")
        """,
    )
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("still fine"))
        result = run_pi("-p", "hi", cwd=home.project, env=home.env())
    assert result.returncode == 0 and result.stdout == "still fine\n", result.stderr
    lines = result.stderr.strip().splitlines()
    assert (
        f"Extension error ({ext / 'raises.py'}): Failed to load extension: RuntimeError: setup exploded"
        in lines
    )
    assert any(
        line.startswith(f"Extension error ({ext / 'syntax.py'}): Failed to load extension: SyntaxError")
        for line in lines
    )
    assert f"Extension error ({ext / 'handler.py'}): handler exploded" in lines
    assert not any("Traceback" in line for line in lines)


def test_permission_gate_example_blocks_without_ui(tmp_path: Path) -> None:
    """R-NOGO-02/04 end to end: the model gets the block reason, the command never runs."""
    home = PiHome.make(tmp_path)
    target = home.project / "precious"
    target.mkdir()
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(tool_call("bash", {"command": f"rm -rf {target}"}))
        server.enqueue(text("could not delete"))
        result = run_pi(
            "-e", str(EXAMPLES / "permission_gate.py"), "-p", "delete it", cwd=home.project, env=home.env()
        )
        assert result.returncode == 0, result.stderr
        assert tool_results(server) == ["Dangerous command blocked (no UI for confirmation)"]
    assert target.exists()


def test_no_extensions_skips_discovery_but_keeps_e(tmp_path: Path) -> None:
    home = PiHome.make(tmp_path)
    write(
        home.agent_dir / "extensions" / "auto.py",
        "def setup(pi):\n    raise RuntimeError('should not load')\n",
    )
    explicit = write(
        tmp_path / "explicit.py",
        "def setup(pi):\n    import sys; print('explicit loaded', file=sys.stderr)\n",
    )
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("ok"))
        result = run_pi("--no-extensions", "-e", str(explicit), "-p", "hi", cwd=home.project, env=home.env())
    assert result.returncode == 0, result.stderr
    assert "explicit loaded" in result.stderr and "should not load" not in result.stderr


PROVIDER = """
import os

def setup(pi):
    pi.register_provider("extprov", {
        "base_url": os.environ["EXT_BASE_URL"], "api_key": "ext-key", "api": "openai-completions",
        "models": [{"id": "m1", "name": "Ext model", "reasoning": False, "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
                    "context_window": 8000, "max_tokens": 1000}],
    })
"""


def test_model_from_an_extension_provider_on_the_command_line(tmp_path: Path) -> None:
    """Spec 40 §2.8 step 5: providers registered in ``setup`` exist when ``--model`` is resolved."""
    home = PiHome.make(tmp_path)
    write(home.agent_dir / "extensions" / "provider.py", PROVIDER)
    with FakeLLMServer() as server:
        server.enqueue(text("from the extension provider"))
        result = run_pi(
            "--model",
            "extprov/m1",
            "--no-session",
            "-p",
            "hi",
            cwd=home.project,
            env=home.env(EXT_BASE_URL=server.base_url + "/v1"),
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout == "from the extension provider\n"
        assert server.requests[0].body["model"] == "m1"
        assert server.requests[0].headers["authorization"] == "Bearer ext-key"


def test_print_mode_without_extensions_never_imports_the_extension_machinery(tmp_path: Path) -> None:
    """Start-up cost: with no extension anywhere, ``pi -p`` loads only the light discovery module."""
    import os
    import subprocess
    import sys

    home = PiHome.make(tmp_path)
    code = (
        "import sys\n"
        "from pi_app.cli import main\n"
        "status = main(['--no-session', '-p', 'hi'])\n"
        "names = sorted(m for m in sys.modules if m.startswith('pi_app.coding.extensions.'))\n"
        "sys.stderr.write('EXT-MODULES ' + ','.join(names) + '\\n')\n"
        "raise SystemExit(status)\n"
    )
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("ok"))
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=home.project,
            env={**home.env(), "PYTHONPATH": os.pathsep.join(sys.path)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
    [line] = [x for x in result.stderr.splitlines() if x.startswith("EXT-MODULES ")]
    assert line == "EXT-MODULES pi_app.coding.extensions.discovery"
