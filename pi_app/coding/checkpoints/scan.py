"""The project's files by metadata, to find what a bash command created, changed or deleted.

``scan_tree(root)`` maps each regular file's path (relative, ``/``-separated) to its size and
modification time in nanoseconds. It never enters ``.git`` (pi never touches a repository's own
files) nor the usual dependency and cache folders, follows no symlinked folder, and stops at
``MAX_FILES`` so a home folder opened as a project cannot stall a command.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".cache",
    }
)
MAX_FILES = 200_000


@dataclass(frozen=True)
class FileStamp:
    size: int
    mtime_ns: int


@dataclass
class TreeScan:
    files: dict[str, FileStamp]
    complete: bool  # False when MAX_FILES was reached


def scan_tree(root: str, max_files: int = MAX_FILES) -> TreeScan:
    files: dict[str, FileStamp] = {}
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as entries:
                for entry in entries:
                    rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.name not in SKIPPED_DIRS:
                                stack.append(rel)
                        elif entry.is_file(follow_symlinks=False):
                            stat = entry.stat(follow_symlinks=False)
                            files[rel] = FileStamp(stat.st_size, stat.st_mtime_ns)
                            if len(files) >= max_files:
                                return TreeScan(files, complete=False)
                    except OSError:
                        continue
        except OSError:
            continue
    return TreeScan(files, complete=True)
