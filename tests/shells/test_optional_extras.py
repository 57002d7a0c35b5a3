"""Issue 26, acceptance 3: ``pi mom`` and ``pi pods`` are separate shells with their own extras.

The core install does not pull in Slack or SSH libraries; without the extra each command says in
one line how to install it; both shells reach pi only through the public SDK (``pi_app.ext``).
"""

from __future__ import annotations

import ast
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PI_APP = Path(__file__).resolve().parents[2] / "pi_app"
SHELL_LIBRARIES = {"slack-bolt", "slack-sdk", "asyncssh"}


def _name(requirement: Requirement) -> str:
    return requirement.name.lower().replace("_", "-")


def test_the_core_install_brings_no_slack_or_ssh_library() -> None:
    requirements = [Requirement(r) for r in importlib.metadata.requires("pi-app") or []]
    core = {_name(r) for r in requirements if r.marker is None}
    assert not core & SHELL_LIBRARIES
    by_extra: dict[str, set[str]] = {}
    for requirement in requirements:
        for extra in ("mom", "pods"):
            if requirement.marker is not None and requirement.marker.evaluate({"extra": extra}):
                by_extra.setdefault(extra, set()).add(_name(requirement))
    assert {"slack-bolt", "slack-sdk"} <= by_extra["mom"] and "asyncssh" not in by_extra["mom"]
    assert by_extra["pods"] & SHELL_LIBRARIES == {"asyncssh"}


@pytest.mark.parametrize(
    ("command", "module", "extra"), [("pods", "asyncssh", "pods"), ("mom", "slack_bolt", "mom")]
)
def test_without_the_extra_the_command_says_how_to_install_it(command: str, module: str, extra: str) -> None:
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"  # as if the library were not installed
        "from pi_app.cli import main\n"
        f"raise SystemExit(main([{command!r}, '--help']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert f"pip install 'pi-app[{extra}]'" in line and f"pi {command}" in line


def test_the_shells_use_only_the_public_sdk() -> None:
    problems = []
    for shell in ("mom", "pods"):
        for path in sorted((PI_APP / "shells" / shell).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                for name in names:
                    if name.startswith("pi_app") and not name.startswith(("pi_app.ext", "pi_app.shells")):
                        problems.append(f"{path.relative_to(PI_APP)}:{node.lineno} imports {name}")
                own = (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                )
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr[:1] == "_"
                    and node.attr[:2] != "__"
                    and not own
                ):
                    problems.append(f"{path.relative_to(PI_APP)}:{node.lineno} uses private .{node.attr}")
    assert not problems, "\n".join(problems)
