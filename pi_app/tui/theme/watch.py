"""Watching one file for changes (watchfiles) from a daemon thread.

Used for the active custom theme (hot reload, R-THEME-04) and the git ``HEAD`` file (the footer's
branch, R-FOOT-06). The callback runs on the watcher's thread: hop to the UI with
``app.call_from_thread``. Deleting the file is reported like any other change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any


class FileWatcher:
    """Calls ``on_change(path)`` when ``path`` changes (debounced); ``stop()`` ends the thread."""

    def __init__(self, path: Path, on_change: Callable[[Path], Any], debounce_ms: int = 100) -> None:
        self.path = path.resolve()
        self._on_change = on_change
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(debounce_ms,), daemon=True, name="pi-watch")
        self._thread.start()

    def _run(self, debounce_ms: int) -> None:
        from watchfiles import watch

        directory = self.path.parent
        if not directory.is_dir():
            return
        try:
            for changes in watch(
                directory,
                debounce=debounce_ms,
                step=50,
                stop_event=self._stop,
                rust_timeout=200,
                recursive=False,
                raise_interrupt=False,
            ):
                if any(Path(changed).resolve() == self.path for _, changed in changes):
                    self._on_change(self.path)
        except Exception:  # a vanished directory or an inotify limit: stop watching quietly
            return

    def stop(self) -> None:
        self._stop.set()
