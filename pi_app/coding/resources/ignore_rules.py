"""Ignore files for resource discovery: ``.gitignore``, ``.ignore``, ``.fdignore`` (spec 40 R-SKL-01).

Patterns are scoped to the directory holding the ignore file and inherited downward; a deeper file
can re-include (``!pattern``) what a shallower one excluded, as in git. The three files of a
directory are read as one, in that order; matching is ``pi_app.coding.gitignore``'s (decision D-28).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_app.coding.gitignore import IgnoreLayer, read_lines, rules_from_lines

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")
ALWAYS_SKIPPED = frozenset({"node_modules", "__pycache__"})


def is_hidden_or_skipped(name: str) -> bool:
    return name.startswith(".") or name in ALWAYS_SKIPPED


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore-file patterns in force for a directory, with the directory each applies under."""

    layers: tuple[IgnoreLayer, ...] = ()
    """Outermost first."""

    def for_directory(self, directory: Path) -> IgnoreRules:
        """These rules plus the ignore files found in ``directory``."""
        lines = [line for name in IGNORE_FILE_NAMES for line in read_lines(directory / name)]
        rules = rules_from_lines(lines) if lines else ()
        if not rules:
            return self
        return IgnoreRules((*self.layers, IgnoreLayer(str(directory), "ignore", rules)))

    def is_ignored(self, path: Path, is_dir: bool) -> bool:
        """The deepest directory with an opinion on ``path`` decides; no opinion: not ignored."""
        text = str(path)
        for layer in reversed(self.layers):
            verdict = layer.verdict(text, is_dir)
            if verdict is not None:
                return verdict
        return False


def list_entries(directory: Path, rules: IgnoreRules) -> list[tuple[Path, bool]]:
    """Visible children of ``directory`` as ``(path, is_dir)``, sorted by name.

    Dot entries, ``node_modules`` and ``__pycache__`` are skipped; symlinks are followed and broken
    ones skipped; ignored entries are dropped.
    """
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out: list[tuple[Path, bool]] = []
    for name in names:
        if is_hidden_or_skipped(name):
            continue
        path = directory / name
        try:
            is_dir = path.is_dir()
            exists = is_dir or path.is_file()
        except OSError:
            continue
        if not exists:
            continue  # broken symlink or special file
        if rules.is_ignored(path, is_dir):
            continue
        out.append((path, is_dir))
    return out


def discover_files(directory: Path, suffix: str, *, recursive: bool) -> list[Path]:
    """The visible, not ignored files ending in ``suffix`` in ``directory`` (and below it when
    ``recursive``), each directory's entries in name order before its subdirectories' files."""
    found: list[Path] = []

    def walk(current: Path, rules: IgnoreRules) -> None:
        rules = rules.for_directory(current)
        for path, is_dir in list_entries(current, rules):
            if is_dir:
                if recursive:
                    walk(path, rules)
            elif path.suffix == suffix:
                found.append(path)

    walk(directory, IgnoreRules())
    return found
