"""Gitignore-style rules, the one evaluator of ignore files (decision D-28; issue 21).

Patterns are parsed by ``pathspec``'s gitignore implementation (escapes, negation, anchoring,
``**``). An ``IgnoreLayer`` is the rules of one directory (one ignore file, or several read as one);
its ``verdict`` on a path below that directory is the last rule that matches: True ignored, False
re-included by ``!``, None no opinion.

Each entry is matched on its own, as ripgrep does: a directory pattern does not by itself hide the
files below the directory. Walks prune an ignored directory, so this only matters when a search
starts inside one (``node_modules/pkg``: its files are listed).

Its users decide which files make the layers and how layers combine: resource discovery
(``pi_app.coding.resources.ignore_rules``: ``.gitignore``, ``.ignore``, ``.fdignore``, the deepest
opinion wins) and the pure-Python search back end (``pi_app.coding.tools.ignore_rules``: ripgrep's
files and precedence).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

Rule = tuple[re.Pattern[str], bool]  # (pathspec's compiled regex, include)


def _matches_entry_itself(regex: re.Pattern[str], candidate: str) -> bool:
    """Does the pattern match this entry, rather than only one of its parent directories?

    pathspec's regexes also match everything below a matching directory (they end in a ``ps_d``
    group followed by anything).
    """
    if regex.fullmatch(candidate):
        return True
    found = regex.match(candidate)
    return found is not None and found.groupdict().get("ps_d") is None


def rules_from_lines(lines: Iterable[str]) -> tuple[Rule, ...]:
    """The rules of an ignore file's lines (blank lines and comments give none)."""
    import pathspec  # imported here: it is slow to import and only needed once an ignore file exists

    spec = pathspec.GitIgnoreSpec.from_lines(list(lines))
    return tuple(
        (p.regex, bool(p.include)) for p in spec.patterns if p.include is not None and p.regex is not None
    )


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """The lines of an ignore file; none when it cannot be read (undecodable bytes are replaced)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


@dataclass(frozen=True)
class IgnoreLayer:
    directory: str  # the directory the rules are relative to
    kind: str  # which file(s) the rules came from; callers rank kinds as they need
    rules: tuple[Rule, ...]

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by ``!``, None: no rule of this layer applies."""
        rel = os.path.relpath(path, self.directory).replace(os.sep, "/")
        if rel == "." or rel == ".." or rel.startswith("../"):
            return None
        candidate = rel + "/" if is_dir else rel
        result = None
        for regex, include in self.rules:
            if _matches_entry_itself(regex, candidate):
                result = include
        return result
