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


class ProjectWatcher:
    def __init__(self, root: str, notify: Any) -> None:
        self.root = root
        self._notify = notify

    @classmethod
    def start(cls, root: str) -> ProjectWatcher | None:
        try:
            from watchfiles._rust_notify import RustNotify
        except ImportError:
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
