"""Include/exclude patterns of settings arrays, package manifests and filters (spec 40 §2.13.2).

- plain entries: include globs (no include glob means "everything");
- ``!glob`` excludes; ``+path`` force-includes an exact path (beats ``!``); ``-path`` force-excludes an
  exact path (beats ``+``);
- a pattern is tried against the path relative to the base dir, the base name and the absolute path
  (POSIX separators); for a ``SKILL.md`` also against its directory (relative, name, absolute);
- an empty pattern list disables everything.

Globs support ``*`` (within one path segment), ``?`` and ``**`` (any depth).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(ch))
            i += 1
    return re.compile("^" + "".join(out) + "$")


def glob_match(pattern: str, text: str) -> bool:
    return bool(_glob_regex(pattern.rstrip("/")).match(text.rstrip("/")))


def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


def candidates(path: Path, base_dir: Path) -> list[str]:
    """The strings a pattern is matched against (relative, base name, absolute; SKILL.md's dir)."""
    out: list[str] = []
    targets = [path]
    if path.name == "SKILL.md":
        targets.append(path.parent)
    for target in targets:
        try:
            rel = os.path.relpath(target, base_dir)
        except ValueError:
            rel = str(target)
        out.extend([_posix(rel), target.name, _posix(str(target))])
    return out


def _exact(entry: str, path: Path, base_dir: Path) -> bool:
    raw = os.path.expanduser(entry)
    target = Path(raw) if os.path.isabs(raw) else base_dir / raw
    normalised = os.path.normpath(str(target))
    options = {os.path.normpath(str(path))}
    if path.name == "SKILL.md":
        options.add(os.path.normpath(str(path.parent)))
    return normalised in options or _posix(entry).rstrip("/") in candidates(path, base_dir)


def is_enabled(path: Path, base_dir: Path, patterns: Sequence[str] | None) -> bool:
    """Whether ``path`` survives ``patterns`` (None = no filter at all)."""
    if patterns is None:
        return True
    if len(patterns) == 0:
        return False
    texts = candidates(path, base_dir)
    includes = [p for p in patterns if p and p[0] not in "!+-"]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    if any(_exact(p, path, base_dir) for p in force_out):
        return False
    if any(_exact(p, path, base_dir) for p in force_in):
        return True
    if any(glob_match(p, t) for p in excludes for t in texts):
        return False
    if includes:
        return any(glob_match(p, t) or _exact(p, path, base_dir) for p in includes for t in texts)
    return True


def toggles_only(patterns: Sequence[str] | None) -> list[str]:
    """The ``!``/``+``/``-`` entries of a settings array (those that toggle auto-discovered items)."""
    return [p for p in (patterns or []) if isinstance(p, str) and p[:1] in ("!", "+", "-")]


def plain_entries(patterns: Sequence[str] | None) -> list[str]:
    return [p for p in (patterns or []) if isinstance(p, str) and p and p[0] not in "!+-"]
