"""The layer rules of DEVELOPERS.md and spec 70 R-PHIL-01..04, checked on the source with ``ast``.

Dependencies point inward only: ai <- agent <- coding <- tui, modes (cli on top). Nothing below
``pi_app.tui`` imports Textual, ``pi_app/ext.py`` counts as coding, and the agent layer reaches the
outside world only through injected functions.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "pi_app"

# layer -> pi_app subpackages (and third-party modules) it must not import
FORBIDDEN: dict[str, set[str]] = {
    "ai": {
        "pi_app.agent",
        "pi_app.coding",
        "pi_app.tui",
        "pi_app.modes",
        "pi_app.cli",
        "pi_app.ext",
        "textual",
    },
    "agent": {
        "pi_app.coding",
        "pi_app.tui",
        "pi_app.modes",
        "pi_app.cli",
        "pi_app.ext",
        "textual",
        "subprocess",
        "socket",
        "httpx",
    },
    "coding": {"pi_app.tui", "pi_app.modes", "pi_app.cli", "textual"},
    "modes": {"pi_app.tui", "pi_app.cli", "textual"},
    "tui": {"pi_app.modes", "pi_app.cli"},
    # separate shells over the RPC protocol and the public SDK (issue 24): never the app's code
    "shells": {"pi_app.tui", "pi_app.cli", "textual"},
}


def _layer_of(path: Path) -> str | None:
    rel = path.relative_to(ROOT)
    if rel.parts[0] == "ext.py":
        return "coding"
    if len(rel.parts) > 1 and rel.parts[0] in FORBIDDEN:
        return rel.parts[0]
    return None


def _imports(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def test_layers_import_inward_only() -> None:
    problems = []
    for path in _sources():
        layer = _layer_of(path)
        if layer is None:
            continue
        module = _module_name(path)
        for lineno, name in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            for banned in FORBIDDEN[layer]:
                if name == banned or name.startswith(banned + "."):
                    problems.append(f"{path.relative_to(ROOT.parent)}:{lineno} ({layer}) imports {name}")
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_agent_layer_calls_no_io_builtins() -> None:
    problems = []
    for path in (ROOT / "agent").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                fn = node.func
                if isinstance(fn, ast.Name) and fn.id in ("open", "print"):
                    problems.append(f"{path.name}:{node.lineno} calls {fn.id}()")
                if (
                    isinstance(fn, ast.Attribute)
                    and fn.attr == "system"
                    and getattr(fn.value, "id", "") == "os"
                ):
                    problems.append(f"{path.name}:{node.lineno} calls os.system()")
    assert not problems, "\n".join(problems)


def test_no_import_cycle_between_layers() -> None:
    layers = ("ai", "agent", "coding", "tui", "modes", "shells")
    edges: set[tuple[str, str]] = set()
    for path in _sources():
        layer = _layer_of(path)
        if layer is None:
            continue
        for _, name in _imports(ast.parse(path.read_text(encoding="utf-8")), _module_name(path)):
            parts = name.split(".")
            if len(parts) >= 2 and parts[0] == "pi_app" and parts[1] in layers and parts[1] != layer:
                edges.add((layer, parts[1]))
    for a, b in edges:
        assert (b, a) not in edges, f"import cycle between pi_app.{a} and pi_app.{b}"


@pytest.mark.parametrize(
    ("statement", "absent"),
    [
        ("import pi_app.ai, pi_app.agent", ["pi_app.coding", "pi_app.tui", "pi_app.modes", "textual"]),
        ("import pi_app.ai", ["pi_app.ai.api", "pi_app.ai.auth.oauth.anthropic", "httpx"]),
        ("import pi_app.coding", ["textual", "pi_app.tui"]),
    ],
)
def test_imports_stay_cheap(statement: str, absent: list[str]) -> None:
    code = f"{statement}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    leaked = [m for m in absent if m in loaded or any(x.startswith(m + ".") for x in loaded)]
    assert not leaked, f"`{statement}` loaded {leaked}"
