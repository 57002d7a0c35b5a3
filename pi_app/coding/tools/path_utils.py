"""Path resolution for the tools (spec 50 R-PATH-01..04).

Models copy paths with odd characters: ``@file`` mentions, Unicode spaces, ``~``, ``file://`` URLs.
``expand_path`` cleans those; ``resolve_to_cwd`` anchors a path to the tool's own ``cwd`` (never the
process cwd); ``resolve_read_path`` additionally finds macOS file names whose spelling differs from
what the model typed (narrow no-break space before AM/PM, decomposed Unicode, curly apostrophes).
"""

from __future__ import annotations

import os
import re
import unicodedata
from urllib.parse import unquote, urlparse

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)
_NARROW_NBSP = "\u202f"


def expand_path(path: str) -> str:
    """Normalise spaces, drop one leading ``@``, expand ``~`` / ``~/…`` and ``file://`` URLs.

    ``~name`` is left literal on purpose (pi maps it to home/name; spec 50 §5 [DEV]).
    """
    path = _UNICODE_SPACES.sub(" ", path)
    if path.startswith("@"):
        path = path[1:]
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), path[2:])
    if path.startswith("file://"):
        return unquote(urlparse(path).path)
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Absolute, normalised path (``.``/``..`` collapsed, symlinks kept); relative to ``cwd``."""
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(cwd, expanded))


def _read_path_variants(resolved: str) -> list[str]:
    am_pm = _AM_PM.sub(lambda m: f"{_NARROW_NBSP}{m.group(1)}.", resolved)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    nfd_curly = nfd.replace("'", "\u2019")
    return [am_pm, nfd, curly, nfd_curly]


def resolve_read_path(path: str, cwd: str) -> str:
    """Like ``resolve_to_cwd``, but tries the macOS spellings when the plain path does not exist."""
    resolved = resolve_to_cwd(path, cwd)
    if os.path.lexists(resolved):
        return resolved
    for candidate in _read_path_variants(resolved):
        if candidate != resolved and os.path.lexists(candidate):
            return candidate
    return resolved
