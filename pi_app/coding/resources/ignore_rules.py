"""Ignore files for resource discovery: ``.gitignore``, ``.ignore``, ``.fdignore`` (spec 40 R-SKL-01).

Patterns are scoped to the directory holding the ignore file and inherited downward; a deeper file
can re-include (``!pattern``) what a shallower one excluded, as in git. Matching uses pathspec's
gitignore implementation (decision D-28).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: pathspec is slow to import and most runs never need it
    import pathspec

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")
ALWAYS_SKIPPED = frozenset({"node_modules", "__pycache__"})


def is_hidden_or_skipped(name: str) -> bool:
    return name.startswith(".") or name in ALWAYS_SKIPPED


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore-file patterns in force for a directory, with the directory each applies under."""

    rules: tuple[tuple[str, pathspec.PathSpec], ...] = ()

    def for_directory(self, directory: Path) -> IgnoreRules:
        """These rules plus the ignore files found in ``directory``."""
        lines: list[str] = []
        for name in IGNORE_FILE_NAMES:
            try:
                lines.extend((directory / name).read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                continue
        if not lines:
            return self
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return IgnoreRules((*self.rules, (str(directory), spec)))

    def is_ignored(self, path: Path, is_dir: bool) -> bool:
        verdict: bool | None = None
        text = str(path)
        for base, spec in self.rules:
            if not (text == base or text.startswith(base.rstrip(os.sep) + os.sep)):
                continue
            rel = os.path.relpath(text, base).replace(os.sep, "/")
            if rel == ".":
                continue
            result = spec.check_file(rel + ("/" if is_dir else ""))
            if result.include is not None:
                verdict = result.include
        return bool(verdict)


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
