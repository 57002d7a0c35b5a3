"""The checkable parts of the design-principles checklist (spec 70 §2.1, §3.1, §3.3, §3.5–3.8).

R-PHIL-05 one version, R-PHIL-09 the built-in surface, R-PHIL-12 a quiet core, R-PHIL-14 one
console script, R-PHIL-15 examples import only the public surface, §1.3 the core assumes no
terminal, DP-09 no entry-point discovery, R-NOGO-08/09 no MCP and no background bash,
R-PODS-01 / 70/R-WEB-01 no pod, GPU, browser or HTTP-server code outside the shells that issue 26
brought in (each satellite library only inside its own ``pi_app/shells/<name>``), R-SQL-02 JSONL is
the storage the CLI uses.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pi_app
from pi_app.ai.testing import text, tool_call

from .helpers import scripted_session, text_of

REPO = Path(__file__).resolve().parents[2]
PI_APP = REPO / "pi_app"
DIST = "pi-app"


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _imported_names(path: Path) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.lineno, node.module))
    return out


# -- R-PHIL-05: one version ---------------------------------------------------------------------


def test_one_version_everywhere() -> None:
    expected = importlib.metadata.version(DIST)
    assert pi_app.__version__ == expected
    for info in pkgutil.walk_packages(pi_app.__path__, "pi_app."):
        if not info.ispkg or info.name.startswith("pi_app.tui"):
            continue  # the TUI package is covered through `pi --version` below
        module = importlib.import_module(info.name)
        assert getattr(module, "__version__", expected) == expected, info.name
    cli = subprocess.run(
        [sys.executable, "-m", "pi_app", "--version"], capture_output=True, text=True, timeout=60
    )
    assert cli.returncode == 0 and cli.stdout.strip() == expected


# -- R-PHIL-14: exactly one console script ------------------------------------------------------


def test_exactly_one_console_script_named_pi() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"pi": "pi_app.cli:main"}
    assert "gui-scripts" not in project
    entry_points = importlib.metadata.distribution(DIST).entry_points
    assert sorted((ep.group, ep.name) for ep in entry_points) == [("console_scripts", "pi")]


# -- R-PHIL-09: the built-in surface -------------------------------------------------------------


def test_builtin_tools_flags_and_commands_leave_the_omissions_out() -> None:
    from pi_app.cli import build_parser
    from pi_app.coding.tools import BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS
    from pi_app.tui.commands.registry import builtin_registry

    assert set(BUILTIN_TOOL_NAMES) == {"read", "bash", "edit", "write", "grep", "find", "ls"}
    assert tuple(DEFAULT_ACTIVE_TOOLS) == ("read", "bash", "edit", "write")
    banned_words = ("agent", "task", "subagent", "todo", "mcp", "plan", "permission")
    assert not [t for t in BUILTIN_TOOL_NAMES if any(w in t for w in banned_words)]

    flags = {opt for action in build_parser()._actions for opt in action.option_strings}
    assert "--tools" in flags and "--extension" in flags  # the parser we inspect is the real one
    for flag in ("--plan", "--yolo", "--mcp", "--permission", "--permissions", "--approve-tools"):
        assert flag not in flags
    # MCP is built in since pi 1.6.0 (issue 22): --no-mcp turns it off for one run, nothing else
    assert not [f for f in flags if "permission" in f or ("mcp" in f and f != "--no-mcp") or "sandbox" in f]

    commands = set(builtin_registry().names())
    assert {"compact", "model", "tree"} <= commands
    assert not commands & {"plan", "todos", "todo", "permissions"}  # /mcp: built in since 1.6.0 (issue 22)


# -- R-NOGO-08 / R-NOGO-09 ------------------------------------------------------------------------


def test_mcp_lives_in_one_package_and_no_background_bash() -> None:
    # MCP is built in since pi 1.6.0 (issue 22 supersedes the old "no MCP client" rule): the SDK
    # is imported by pi_app/coding/mcp alone, so no other module pays for it or depends on it.
    mcp_package = PI_APP / "coding" / "mcp"
    for path in _modules(PI_APP):
        if mcp_package in path.parents:
            continue
        for lineno, name in _imported_names(path):
            top = name.split(".")[0]
            assert top not in ("mcp", "mcp_types"), f"{path.relative_to(REPO)}:{lineno} imports {name}"
    from pi_app.coding.settings import Settings

    assert not [f for f in Settings.__struct_fields__ if "mcp" in f.lower()]

    from pi_app.coding.tools.bash import BashParams

    assert set(BashParams.__struct_fields__) == {"command", "timeout"}  # no background/detach switch


# -- R-PODS-01, 70/R-WEB-01, §1.3, DP-09: what the layers must not know --------------------------

FORBIDDEN_MODULES = {
    # chat platforms, containers, SSH, GPUs, browsers, HTTP server frameworks, SQLite, plugins
    "slack_sdk",
    "slack_bolt",
    "discord",
    "docker",
    "paramiko",
    "fabric",
    "asyncssh",
    "pynvml",
    "vllm",
    "playwright",
    "selenium",
    "flask",
    "fastapi",
    "starlette",
    "uvicorn",
    "aiohttp",
    "http.server",
    "socketserver",
    "sqlite3",
    "pkg_resources",
}


# issue 25 (ranks above spec 70): the optional session store is the standard library's sqlite3,
# imported by that one module and only when the store is chosen
ALLOWED_IMPORTS = {("sqlite3", "pi_app/coding/session/sqlite_store.py")}

# issue 26: the separate shells may use their own extra's libraries, and only those
# issue 24 (replaces 70/R-WEB-01 and "no resident server"): the HTTP server and the browser app
SHELL_LIBRARIES = {
    "mom": {"slack_sdk", "slack_bolt"},
    "pods": {"asyncssh"},
    "server": {"starlette", "uvicorn"},
    "web": {"aiohttp", "textual_serve"},
}


def _allowed_in(path: Path) -> set[str]:
    rel = path.relative_to(PI_APP).parts
    return SHELL_LIBRARIES.get(rel[1], set()) if len(rel) > 2 and rel[0] == "shells" else set()


def test_no_satellite_code_in_the_package() -> None:
    problems = []
    for path in _modules(PI_APP):
        allowed = _allowed_in(path)
        for lineno, name in _imported_names(path):
            if (name, str(path.relative_to(REPO))) in ALLOWED_IMPORTS or name.split(".")[0] in allowed:
                continue
            if name in FORBIDDEN_MODULES or name.split(".")[0] in FORBIDDEN_MODULES:
                problems.append(f"{path.relative_to(REPO)}:{lineno} imports {name}")
        source = path.read_text(encoding="utf-8")
        if "entry_points(" in source:  # DP-09: no automatic setuptools entry-point loading
            problems.append(f"{path.relative_to(REPO)} loads entry points")
    assert not problems, "\n".join(problems)
    from pi_app.cli import PACKAGE_COMMANDS, SHELL_COMMANDS

    assert not {"pods", "pod", "server", "serve", "start", "stop", "ssh"} & set(PACKAGE_COMMANDS)
    assert {"serve", "web"} <= set(SHELL_COMMANDS)


_ALL_SHELL_MODULES = SHELL_LIBRARIES["server"] | SHELL_LIBRARIES["web"]


def test_the_shell_commands_load_their_frameworks_only_when_they_run() -> None:
    code = (
        "import sys, pi_app.cli, pi_app.shells.server.command, pi_app.shells.web.command\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(_ALL_SHELL_MODULES)!r})))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == ""


TERMINAL_CALLS = {("sys", "stdin"), ("sys", "stdout"), ("sys", "stderr"), ("sys", "__stdout__")}


def _terminal_uses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("print", "input")
        ):
            found.append(f"{node.lineno}: {node.func.id}()")
        if isinstance(node, ast.Attribute):
            if (getattr(node.value, "id", None), node.attr) in TERMINAL_CALLS:
                found.append(f"{node.lineno}: sys.{node.attr}")
            if node.attr == "isatty":
                found.append(f"{node.lineno}: isatty")
    return found


def test_core_layers_assume_no_terminal() -> None:
    """§1.3: ai, agent and coding never print, read stdin or check for a TTY; they report through
    events, return values and logging."""
    problems = []
    for layer in ("ai", "agent", "coding"):
        for path in _modules(PI_APP / layer):
            rel = str(path.relative_to(PI_APP))
            problems += [f"{rel}:{use}" for use in _terminal_uses(path)]
    assert not problems, "\n".join(problems)


def test_cli_helpers_live_in_l4() -> None:
    """The `pi` command's terminal side (start-up reports, the fork question, `pi install/config`)
    is in ``pi_app/modes``; ``coding/launch.py`` reports through a ``LaunchHost``."""
    assert not (PI_APP / "coding/resources/package_commands.py").exists()
    assert _terminal_uses(PI_APP / "modes/package_commands.py")  # the terminal I/O moved, not vanished
    assert _terminal_uses(PI_APP / "modes/console.py")


async def test_start_up_reports_to_its_host_not_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from pi_app.coding.launch import LaunchHost, LaunchOptions, build_session

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    heard: list[str] = []
    options = LaunchOptions(cwd=str(tmp_path), no_session=True, models="no-such-model-anywhere", offline=True)
    created = await build_session(options, host=LaunchHost(report=heard.append))
    created.session.dispose()
    assert any("no-such-model-anywhere" in line and line.startswith("Warning: ") for line in heard), heard
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


# -- R-SQL-02: JSONL is the storage of the CLI ----------------------------------------------------


def test_the_cli_opens_sessions_on_jsonl_storage(tmp_path: Path) -> None:
    from pi_app.coding.launch import LaunchOptions, open_session_manager
    from pi_app.coding.session.storage import JsonlSessionStorage
    from pi_app.coding.settings import SettingsManager

    manager = open_session_manager(LaunchOptions(), str(tmp_path), SettingsManager.in_memory())
    assert type(manager.storage) is JsonlSessionStorage
    assert manager.get_session_file().endswith(".jsonl")


# -- R-PHIL-15: examples import pi_app only through the public surface ---------------------------

PUBLIC_SURFACE = {"pi_app.ext", "pi_app.tui.ext"}


def test_examples_import_only_the_public_surface() -> None:
    sources = _modules(REPO / "examples") if (REPO / "examples").exists() else []
    if not sources:
        pytest.skip("no example extensions in this checkout yet")
    problems = []
    for path in sources:
        for lineno, name in _imported_names(path):
            if (name == "pi_app" or name.startswith("pi_app.")) and name not in PUBLIC_SURFACE:
                problems.append(f"{path.relative_to(REPO)}:{lineno} imports {name}")
    assert not problems, "\n".join(problems)


def test_the_public_surface_exists_and_reexports_only_lower_layers() -> None:
    import pi_app.ext

    for name in ("create_agent_session", "SessionManager", "SettingsManager", "ModelRegistry"):
        assert hasattr(pi_app.ext, name)
    assert set(pi_app.ext.__all__) <= set(dir(pi_app.ext))
    for _, name in _imported_names(PI_APP / "ext.py"):
        assert not name.startswith(("pi_app.tui", "pi_app.modes", "textual")), name


def test_the_tui_half_of_the_public_surface_exists() -> None:
    module = importlib.import_module("pi_app.tui.ext")
    assert {"CustomEditor", "key_hint"} <= set(dir(module))


# -- R-PHIL-12: a quiet core ----------------------------------------------------------------------


async def test_a_full_sdk_session_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    session, _ = await scripted_session(
        str(tmp_path),
        [
            [tool_call("bash", {"command": "echo from-the-tool; echo oops >&2"})],
            [tool_call("read", {"path": "missing.txt"})],
            [text("All done.")],
            [text("## Goal\nsummary")],
            [text("## Turn prefix\nsummary")],
        ],
        settings={"compaction": {"keepRecentTokens": 1}},
    )
    await session.prompt("run it")
    results = [text_of(m) for m in session.messages if m.role == "toolResult"]
    assert "from-the-tool" in results[0] and "oops" in results[0]  # the output went to the model
    assert "missing.txt" in results[1]  # and so did the failure
    await session.compact()
    session.dispose()
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
