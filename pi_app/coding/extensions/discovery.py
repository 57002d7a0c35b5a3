"""Finding extensions on disk, without importing them (spec 40 §2.2.2, R-EXT-01).

Discovery in an extensions directory (``discover_extensions_in_dir``): a directory that declares
entries (``[tool.pi] extensions`` in ``pyproject.toml``, else ``pi.extensions`` in ``package.json``) or
is itself a Python package is ONE source; otherwise each visible ``*.py`` child not starting with
``_`` is one extension, and each sub-directory is one when it declares entries or has
``__init__.py``. TypeScript/JavaScript extensions of the TypeScript pi sharing the directory are
ignored silently here and reported when named explicitly ([D-13]).

This module is kept light (no extension API, runtime or event types): the resource loader and the
package commands use it on every start, also when no extension exists, and ``pi -p`` start-up
must not pay for the extension machinery then. The import generation counter lives here too.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.coding.resources.diagnostics import PathMetadata, ResourceDiagnostic, error, warning
from pi_app.coding.resources.ignore_rules import IgnoreRules, list_entries

MODULE_PREFIX = "pi_ext_g"
JS_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs", ".tsx", ".jsx")
TS_NOT_SUPPORTED = "TypeScript/JavaScript extensions are not supported by this version of pi"

_generation = 0


@dataclass
class ExtensionLoadError:
    """An extension that failed to load, and why."""

    path: str
    error: str


@dataclass
class LoadExtensionsResult:
    """What loading produced; ``runtime`` stays None when nothing was loaded (the runner makes one)."""

    extensions: list[Any] = field(default_factory=list)  # Extension records
    errors: list[ExtensionLoadError] = field(default_factory=list)
    runtime: Any = None  # ExtensionRuntime
    diagnostics: list[Any] = field(default_factory=list)  # ResourceDiagnostic: missing paths, TS files


def next_generation() -> int:
    global _generation
    _generation += 1
    return _generation


def current_generation() -> int:
    return _generation


def purge_generation(generation: int) -> None:
    """Forget every module of one import generation (including package submodules)."""
    prefix = f"{MODULE_PREFIX}{generation}_"
    for key in [k for k in sys.modules if k.startswith(prefix)]:
        del sys.modules[key]


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExtensionSource:
    """An extension file found by discovery or named in settings or on the command line."""

    path: str  # as configured (shown in messages)
    resolved_path: str
    source_info: PathMetadata = field(default_factory=PathMetadata)


def is_js_path(path: Path) -> bool:
    return path.suffix in JS_SUFFIXES


def read_manifest(directory: Path, kind: str = "extensions") -> tuple[list[str] | None, str | None]:
    """``[tool.pi].<kind>`` of ``pyproject.toml``, else ``pi.<kind>`` of ``package.json``.

    Returns ``(entries or None, problem)``; an unreadable manifest counts as "no manifest" and the
    problem text says why (R-PKG-12).
    """
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        import tomllib  # only when a manifest exists: start-up without one skips the parser

        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return None, f"invalid pyproject.toml: {exc}"
        pi = data.get("tool", {}).get("pi")
        if isinstance(pi, dict) and isinstance(pi.get(kind), list):
            return [str(v) for v in pi[kind]], None
        if isinstance(pi, dict):
            return None, None
    package_json = directory / "package.json"
    if package_json.is_file():
        try:
            data = json.loads(package_json.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: also 5000-digit numbers
            return None, f"invalid package.json: {exc}"
        pi = data.get("pi") if isinstance(data, dict) else None
        if isinstance(pi, dict) and isinstance(pi.get(kind), list):
            return [str(v) for v in pi[kind]], None
    return None, None


def has_manifest(directory: Path) -> bool:
    for name in ("pyproject.toml", "package.json"):
        if (directory / name).is_file():
            entries, _ = read_manifest(directory)
            return entries is not None
    return False


def _manifest_entries(directory: Path, *, report_js: bool) -> tuple[list[Path], list[ResourceDiagnostic]]:
    entries, problem = read_manifest(directory)
    diagnostics = [warning(problem, str(directory))] if problem else []
    out: list[Path] = []
    for entry in entries or []:
        target = (directory / entry).resolve() if not Path(entry).is_absolute() else Path(entry)
        if not target.exists():
            continue
        if is_js_path(target) or (target.is_dir() and _is_js_package(target)):
            if report_js:
                diagnostics.append(warning(TS_NOT_SUPPORTED, str(target)))
            continue
        out.append(target)
    return out, diagnostics


def _is_js_package(directory: Path) -> bool:
    return (
        any((directory / name).is_file() for name in ("index.ts", "index.js"))
        and not (directory / "__init__.py").is_file()
    )


def discover_extensions_in_dir(
    directory: str | Path, *, report_js: bool = False
) -> tuple[list[Path], list[ResourceDiagnostic]]:
    """Extension entry points inside one extensions directory (rules 1-4 of spec 40 §2.2.2)."""
    root = Path(directory)
    if not root.is_dir():
        return [], []
    entries, problem = read_manifest(root)
    if entries is not None or problem is not None:
        found, diagnostics = _manifest_entries(root, report_js=report_js)
        if entries is not None:
            return found, diagnostics
    else:
        diagnostics = []
    if (root / "__init__.py").is_file():
        return [root], diagnostics
    found = []
    rules = IgnoreRules().for_directory(root)
    for path, is_dir in list_entries(root, rules):
        if is_dir:
            sub_entries, sub_problem = read_manifest(path)
            if sub_entries is not None:
                items, problems = _manifest_entries(path, report_js=report_js)
                found.extend(items)
                diagnostics.extend(problems)
            elif (path / "__init__.py").is_file():
                found.append(path)
            elif sub_problem:
                diagnostics.append(warning(sub_problem, str(path)))
        elif path.suffix == ".py" and not path.name.startswith("_"):
            found.append(path)
    return found, diagnostics


def resolve_explicit_extension(path: str | Path) -> tuple[list[Path], list[ResourceDiagnostic]]:
    """A path from settings or ``-e``: a file is one extension; a directory per rule 1, else rule 2."""
    target = Path(path)
    if not target.exists():
        return [], [error("Extension path does not exist", str(target))]
    if target.is_file():
        if is_js_path(target):
            return [], [warning(TS_NOT_SUPPORTED, str(target))]
        return [target], []
    if _is_js_package(target) and not has_manifest(target):
        return [], [warning(TS_NOT_SUPPORTED, str(target))]
    return discover_extensions_in_dir(target, report_js=True)
