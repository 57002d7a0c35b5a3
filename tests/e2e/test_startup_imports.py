"""Black-box: what ``pi -p`` leaves unloaded when it does not need it (start-up cost, issue 8).

Speed itself is measured in ``benchmarks/startup.py``; this only pins the modules a plain print
run must not import: the extension machinery when there are no extensions, the tools that are off
by default, the compaction planner and summariser (a turn only checks the estimate), package
resolution when no package is listed, the diff engine's ``difflib`` (an edit is what needs it),
pydantic's plugin scan (``importlib.metadata``), the working parts of the built-in tools, tree
navigation, session listing and theme files (their first use loads them), anyio (httpcore runs
on plain asyncio) and the Textual app.

Issue 20 adds pydantic: start-up and a plain text answer import none of it, in print, JSON and RPC
mode and in the full-screen app up to the frame that names the model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import PI, run_pi, write_models_json
from tests.tui_term.pty_terminal import PtyTerminal

NOT_NEEDED = (
    "textual",
    "pi_app.tui",
    "pi_app.coding.extensions.loader",
    "pi_app.coding.extensions.runtime",
    "pi_app.coding.extensions.runner",
    "pi_app.coding.extensions.types",
    "pi_app.coding.tools.grep",
    "pi_app.coding.tools.find",
    "pi_app.coding.tools.ls",
    "pi_app.coding.compaction.prepare",
    "pi_app.coding.compaction.cut",
    "pi_app.coding.compaction.summarize",
    "pi_app.coding.compaction.branch_summary",
    "pydantic_settings",
    "pi_app.coding.resources.packages",
    "difflib",
    "pi_app.coding.tree_navigation",  # the first tree operation loads it
    "pi_app.coding.session.listing",  # opening or listing sessions loads it
    "pi_app.coding.resources.themes",  # a theme file found loads it
    "pi_app.coding.tools.edit_diff",  # a tool's working parts load with its first call
    "pi_app.coding.tools.mutation_queue",
    "pi_app.coding.tools.read_scan",
    "pi_app.coding.tools.images",
    "pi_app.coding.tools.shell",
    "pi_app.coding.tools.output_accumulator",
    "importlib.metadata",  # pydantic's plugin scan, skipped while every plugin is off
    "anyio._backends",  # httpcore runs on plain asyncio (pi_app.ai.http.asyncio_backend)
    "anyio._core",
    "anyio.streams",
    "mcp",  # the MCP SDK: only when a server is configured (issue 22)
    "mcp_types",
    "pi_app.coding.mcp.manager",
    "pi_app.coding.mcp.connection",
    "botocore",  # Amazon Bedrock only (issue 23)
    "google.auth",  # Google Vertex AI only (issue 23)
    "google.oauth2",
    "pydantic",  # settings, models.json, tool parameters: msgspec Structs (issue 20)
    "pydantic_core",  # partial JSON of streamed tool arguments: on first use
    "annotated_types",
)


def test_print_mode_without_extensions_imports_only_what_it_uses(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("hello there"))
    proc = subprocess.run(
        [str(Path(PI).with_name("python")), "-X", "importtime", "-m", "pi_app", "--no-session", "-p", "hi"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello there\n"
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "pi_app.coding.tools.bash" in imported  # the listing is real
    loaded = sorted(m for m in imported if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED))
    assert loaded == []


def test_pydantic_plugin_loader_stand_in_answers_like_pydantics_own() -> None:
    """With every plugin off pi puts a stand-in for pydantic's plugin loader: no plugins, models
    build and validate, and any other name still comes from pydantic's own loader."""
    script = (
        "import sys\n"
        "from pi_app.cli import _skip_pydantic_plugin_loader\n"
        "_skip_pydantic_plugin_loader()\n"
        "import pydantic\n"
        "class M(pydantic.BaseModel):\n"
        "    x: int\n"
        "assert M.model_validate({'x': '3'}).x == 3\n"
        "from pydantic.plugin._loader import get_plugins\n"
        "assert tuple(get_plugins()) == ()\n"
        "print('importlib.metadata' in sys.modules)\n"
        "from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP\n"
        "print(PYDANTIC_ENTRY_POINT_GROUP)\n"
    )
    proc = subprocess.run(
        [str(Path(PI).with_name("python")), "-c", script],
        env={k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"},  # unset: no plugins
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "pydantic"]


def test_commands_the_bash_tool_runs_see_the_users_environment(llm_server, project, agent_dir) -> None:
    """Turning pydantic's plugins off inside pi must not reach the user's commands."""
    write_models_json(agent_dir, llm_server.base_url)
    command = 'echo "plugins=[${PYDANTIC_DISABLE_PLUGINS-unset}]"'
    llm_server.enqueue(tool_call("bash", {"command": command}, id="call_env"))
    llm_server.enqueue(text("done"))
    result = run_pi("--no-session", "-p", "show the env", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "plugins=[unset]" in json.dumps(llm_server.requests[1].body)


# -- issue 20: no pydantic on the start path -----------------------------------------------------

PYDANTIC = ("pydantic", "pydantic_core", "annotated_types")

MODULES_AT_EXIT = """
import atexit, json, sys

out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w", encoding="utf-8").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "pi"
from pi_app.cli import main
sys.exit(main())
"""

MODULES_AT_MARKER = """
import json, os, sys
from textual.drivers import linux_driver

out, marker = sys.argv[1], sys.argv[2]
write = linux_driver.LinuxDriver.write

def frame(self, data):
    write(self, data)
    if marker in data:
        with open(out + ".part", "w") as f:  # whole, then renamed: the test polls for the file
            json.dump(sorted(sys.modules), f)
        os.replace(out + ".part", out)
        os._exit(0)

linux_driver.LinuxDriver.write = frame
sys.argv = ["pi"]
from pi_app.cli import main
sys.exit(main())
"""


def _pydantic_loaded(modules: list[str]) -> list[str]:
    # pydantic.plugin._loader may be pi_app.cli's stand-in, put in sys.modules without importing pydantic
    return sorted(m for m in modules if m.split(".")[0] in PYDANTIC and m != "pydantic.plugin._loader")


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["-p", "hi"], None),
        (["--mode", "json", "hi"], None),
        (["--mode", "rpc"], '{"id": 1, "type": "prompt", "message": "hi"}\n'),
    ],
    ids=["print", "json", "rpc"],
)
def test_a_plain_answer_imports_no_pydantic(
    llm_server, project: Path, agent_dir: Path, tmp_path: Path, args: list[str], stdin: str | None
) -> None:
    """Start-up and a text answer build no pydantic model: settings, models.json, the built-in
    tools' parameters and the RPC commands are msgspec Structs (issue 20)."""
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("hello there"))
    wrapper, out = tmp_path / "modules_at_exit.py", tmp_path / "modules.json"
    wrapper.write_text(MODULES_AT_EXIT, encoding="utf-8")
    proc = subprocess.run(
        [str(Path(PI).with_name("python")), str(wrapper), str(out), "--no-session", *args],
        cwd=project,
        input=stdin or "",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "hello there" in proc.stdout
    modules = json.loads(out.read_text(encoding="utf-8"))
    assert "pi_app.coding.settings" in modules  # the listing is real
    assert _pydantic_loaded(modules) == []


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
def test_the_app_shows_its_model_without_importing_pydantic(
    llm_server, project: Path, agent_dir: Path, tmp_path: Path
) -> None:
    """The full-screen app, up to the frame whose footer names the model (the session is built)."""
    write_models_json(agent_dir, llm_server.base_url)
    wrapper, out = tmp_path / "modules_at_marker.py", tmp_path / "modules.json"
    wrapper.write_text(MODULES_AT_MARKER, encoding="utf-8")
    python = str(Path(PI).with_name("python"))
    term = PtyTerminal([python, str(wrapper), str(out), "fake-model"], size=(120, 40), cwd=str(project))
    try:
        term.wait_for(lambda: out.exists() and out.stat().st_size > 0, timeout=60)
    finally:
        term.close()
    modules = json.loads(out.read_text(encoding="utf-8"))
    assert "pi_app.coding.agent_session" in modules and "pi_app.tui.app" in modules  # the session is built
    assert _pydantic_loaded(modules) == []


def test_is_pydantic_model_imports_no_pydantic() -> None:
    """Nothing can be a pydantic model before pydantic is loaded, so the check loads nothing; an
    extension's model is still one once it exists (issue 20)."""
    script = (
        "import sys\n"
        "from pi_app.ai.util.validation import is_pydantic_model, validate_tool_arguments\n"
        "from pi_app.coding.tools import create_tool\n"
        "print(is_pydantic_model(dict), is_pydantic_model(create_tool('read', '/').parameters))\n"
        "print(validate_tool_arguments(create_tool('read', '/'), {'path': 'a', 'offset': '2'}))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))\n"
        "from pi_app.ext import ToolParams\n"
        "class Params(ToolParams):\n"
        "    x: int\n"
        "print(is_pydantic_model(Params))\n"
    )
    proc = subprocess.run(
        [str(Path(PI).with_name("python")), "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["False False", "{'path': 'a', 'offset': 2.0}", "[]", "True"]
