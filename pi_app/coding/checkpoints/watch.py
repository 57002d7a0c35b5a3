"""What changed in the project since the last look, from the OS's file notifications.

``ProjectWatcher`` keeps one ``watchfiles`` notifier (the Rust ``notify`` crate on inotify and
friends) on the project for the session. Its own thread collects every change; ``drain()`` takes
what has piled up since the last call, in about a millisecond, without walking the tree. The
checkpoint recorder drains before and after each bash command, so a command in a 50,000-file
project costs two drains instead of two full scans. No Python thread runs between commands.

The notifier API used is ``watchfiles``' documented Rust binding (``RustNotify``); the generator
``watchfiles.watch`` would add a debounce delay after every command. When notifications cannot be
set up (no inotify, too many folders), ``start`` returns None and the recorder scans instead.
"""

from __future__ import annotations

import os
from typing import Any

from pi_app.coding.checkpoints.scan import SKIPPED_DIRS

DRAIN_STEP_MS = 2  # changes still arriving this close together belong to the same batch
DRAIN_TIMEOUT_MS = 8  # how long to wait for a command's last events to come through


def _rust_notify_class() -> Any:
    """``watchfiles._rust_notify.RustNotify``, loaded without running ``watchfiles/__init__``:
    that imports the package's generator API, its process runner (``multiprocessing``) and anyio,
    which pi never uses, on every run's first prompt (issue 20). Falls back to the plain import."""
    import sys

    module = sys.modules.get("watchfiles._rust_notify")
    if module is None and "watchfiles" not in sys.modules:
        try:
            import importlib.machinery
            import importlib.util

            spec = importlib.util.find_spec("watchfiles")
            for folder in (spec.submodule_search_locations or []) if spec is not None else []:
                for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                    path = os.path.join(folder, "_rust_notify" + suffix)
                    if os.path.isfile(path):
                        loader = importlib.machinery.ExtensionFileLoader("watchfiles._rust_notify", path)
                        ext_spec = importlib.util.spec_from_file_location(
                            "watchfiles._rust_notify", path, loader=loader
                        )
                        if ext_spec is not None:
                            module = importlib.util.module_from_spec(ext_spec)
                            loader.exec_module(module)
                            # registered, so that a later ``import watchfiles`` (the TUI's file
                            # watcher) takes this one: the extension cannot be initialised twice
                            sys.modules["watchfiles._rust_notify"] = module
                            break
                if module is not None:
                    break
        except Exception:
            module = None
    if module is None:
        try:
            from watchfiles import _rust_notify as module
        except ImportError:
            return None
    return getattr(module, "RustNotify", None)


class ProjectWatcher:
    def __init__(self, root: str, notify: Any) -> None:
        self.root = root
        self._notify = notify

    @classmethod
    def start(cls, root: str) -> ProjectWatcher | None:
        RustNotify = _rust_notify_class()
        if RustNotify is None:
            return None
        try:
            notify = RustNotify([root], False, False, 300, True, True)
        except Exception:  # any failure to watch means: scan instead
            return None
        return cls(root, notify)

    def drain(self, wait_ms: int = DRAIN_TIMEOUT_MS) -> set[str]:
        """Project-relative paths (``/``-separated) that changed since the last drain, waiting up
        to ``wait_ms`` for the first change to come through (1 when nothing is expected)."""
        names: set[str] = set()
        while True:
            batch = self._notify.watch(50, DRAIN_STEP_MS, wait_ms, None)
            wait_ms = 1
            if not isinstance(batch, set):
                return names
            for _change, path in batch:
                rel = os.path.relpath(path, self.root)
                if rel.startswith("..") or any(part in SKIPPED_DIRS for part in rel.split(os.sep)):
                    continue
                names.add(rel.replace(os.sep, "/"))

    def close(self) -> None:
        self._notify.close()
