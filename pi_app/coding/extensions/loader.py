"""Finding, importing and setting up Python extensions (spec 40 §2.2, §2.9, R-EXT-01..05, R-EXT-29).

Discovery in an extensions directory (``discover_extensions_in_dir``): a directory that declares
entries (``[tool.pi] extensions`` in ``pyproject.toml``, else ``pi.extensions`` in ``package.json``) or
is itself a Python package is ONE source; otherwise each visible ``*.py`` child not starting with
``_`` is one extension, and each sub-directory is one when it declares entries or has
``__init__.py``. TypeScript/JavaScript extensions of the TypeScript pi sharing the directory are
ignored silently here and reported when named explicitly ([D-13]).

Import (``import_extension``): every load generation uses unique module names
``pi_ext_g<generation>_<sha1(path)[:10]>``; ``purge_generation`` removes a previous generation from
``sys.modules`` so ``/reload`` re-executes edited code. Extension source is always compiled from the
file (never from a cached ``.pyc``), so an edit in the same second is still seen.

``load_extensions`` imports and sets up one extension after another (no concurrency). A failure in
import or ``setup`` becomes ``Failed to load extension: <Type>: <message>`` and leaves no residue;
the other extensions are unaffected.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import inspect
import json
import logging
import sys
import tomllib
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pi_app.coding.extensions.api import ExtensionAPI
from pi_app.coding.extensions.runtime import ExtensionRuntime
from pi_app.coding.extensions.types import Extension, ExtensionLoadError, LoadExtensionsResult
from pi_app.coding.resources.diagnostics import PathMetadata, ResourceDiagnostic, error, warning
from pi_app.coding.resources.ignore_rules import IgnoreRules, list_entries

log = logging.getLogger(__name__)

MODULE_PREFIX = "pi_ext_g"
JS_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs", ".tsx", ".jsx")
TS_NOT_SUPPORTED = "TypeScript/JavaScript extensions are not supported by this version of pi"

_generation = 0


def next_generation() -> int:
    global _generation
    _generation += 1
    return _generation


def current_generation() -> int:
    return _generation


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExtensionSource:
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
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
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


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------


class _FreshSourceLoader(importlib.machinery.SourceFileLoader):
    """Always compile from the source file, never from ``__pycache__`` (edits within a second)."""

    def get_code(self, fullname: str) -> Any:
        source = self.get_data(self.path)
        return self.source_to_code(source, self.path)


def module_name(resolved_path: str, generation: int) -> str:
    digest = hashlib.sha1(resolved_path.encode("utf-8")).hexdigest()[:10]
    return f"{MODULE_PREFIX}{generation}_{digest}"


def import_extension(resolved_path: str, generation: int) -> ModuleType:
    target = Path(resolved_path)
    name = module_name(resolved_path, generation)
    if target.is_dir():
        init = target / "__init__.py"
        loader = _FreshSourceLoader(name, str(init))
        spec = importlib.util.spec_from_file_location(
            name, init, loader=loader, submodule_search_locations=[str(target)]
        )
    else:
        loader = _FreshSourceLoader(name, str(target))
        spec = importlib.util.spec_from_file_location(name, target, loader=loader)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {resolved_path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def purge_generation(generation: int) -> None:
    """Forget every module of one import generation (including package submodules)."""
    prefix = f"{MODULE_PREFIX}{generation}_"
    for key in [k for k in sys.modules if k.startswith(prefix)]:
        del sys.modules[key]


# ---------------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------------


def format_load_error(exc: BaseException) -> str:
    return f"Failed to load extension: {type(exc).__name__}: {exc}"


async def _run_setup(
    extension: Extension, setup: Callable[..., Any], runtime: ExtensionRuntime, cwd: str
) -> str | None:
    api = ExtensionAPI(extension, runtime, cwd)
    try:
        result = setup(api)
        if inspect.isawaitable(result):
            await result
    except Exception as exc:
        log.debug("extension %s failed in setup:\n%s", extension.path, traceback.format_exc())
        api._discard()
        return format_load_error(exc)
    extension.setup = setup
    return None


async def load_extensions(
    sources: Sequence[ExtensionSource],
    cwd: str,
    *,
    runtime: ExtensionRuntime | None = None,
    generation: int | None = None,
    factories: Sequence[Callable[..., Any]] = (),
    model_registry: Any = None,
) -> LoadExtensionsResult:
    """Import and set up each source in order, then the inline ``factories`` as ``<inline:N>``."""
    runtime = runtime or ExtensionRuntime(model_registry=model_registry, import_generation=generation or 0)
    gen = generation if generation is not None else runtime.import_generation
    result = LoadExtensionsResult(runtime=runtime)
    for source in sources:
        extension = Extension(source.path, source.resolved_path, source.source_info)
        try:
            module = import_extension(source.resolved_path, gen)
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise
            log.debug("extension %s failed to import:\n%s", source.path, traceback.format_exc())
            result.errors.append(ExtensionLoadError(source.path, format_load_error(exc)))
            continue
        setup = getattr(module, "setup", None)
        if not callable(setup):
            message = f"Extension does not export a setup(pi) function: {source.path}"
            result.errors.append(ExtensionLoadError(source.path, message))
            continue
        problem = await _run_setup(extension, setup, runtime, cwd)
        if problem is not None:
            result.errors.append(ExtensionLoadError(source.path, problem))
        else:
            result.extensions.append(extension)
    for index, factory in enumerate(factories, start=1):
        path = f"<inline:{index}>"
        extension = Extension(path, path, PathMetadata(source="inline", scope="temporary"))
        problem = await _run_setup(extension, factory, runtime, cwd)
        if problem is not None:
            result.errors.append(ExtensionLoadError(path, problem))
        else:
            result.extensions.append(extension)
    return result


async def rerun_extensions(
    previous: Sequence[Extension], cwd: str, runtime: ExtensionRuntime
) -> LoadExtensionsResult:
    """Session replacement: run the cached ``setup`` functions again, no import (R-EXT-24)."""
    result = LoadExtensionsResult(runtime=runtime)
    for old in previous:
        if old.setup is None:
            continue
        extension = Extension(old.path, old.resolved_path, old.source_info)
        problem = await _run_setup(extension, old.setup, runtime, cwd)
        if problem is not None:
            result.errors.append(ExtensionLoadError(old.path, problem))
        else:
            result.extensions.append(extension)
    return result
