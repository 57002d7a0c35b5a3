"""Finding, importing and setting up Python extensions (spec 40 §2.2, §2.9, R-EXT-01..05, R-EXT-29).

Discovery (which files are extensions) is ``pi_app.coding.extensions.discovery``, re-exported here.

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
import logging
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pi_app.coding.extensions.api import ExtensionAPI
from pi_app.coding.extensions.discovery import (  # noqa: F401  (re-exported: the loader's public names)
    JS_SUFFIXES,
    MODULE_PREFIX,
    TS_NOT_SUPPORTED,
    ExtensionSource,
    current_generation,
    discover_extensions_in_dir,
    has_manifest,
    is_js_path,
    next_generation,
    purge_generation,
    read_manifest,
    resolve_explicit_extension,
)
from pi_app.coding.extensions.runtime import ExtensionRuntime
from pi_app.coding.extensions.types import Extension, ExtensionLoadError, LoadExtensionsResult
from pi_app.coding.resources.diagnostics import PathMetadata

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry

log = logging.getLogger(__name__)

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
    model_registry: ModelRegistry | None = None,
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
