"""Glob patterns as ripgrep/fd users write them, translated to Python regexes (spec 50 R-FIND-03,
R-GREP-04).

Supported: ``*`` and ``?`` (never cross ``/``), ``**`` (crosses directories; ``**/`` may match
nothing), ``[...]`` / ``[!...]`` classes, ``{a,b}`` alternatives (nestable) and ``\\`` escapes.
``find_pattern_matcher`` and ``grep_glob_matcher`` add the tools' anchoring rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache


def _split_alternatives(body: str) -> list[str]:
    parts, depth, current = [], 0, []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            current.append(body[i : i + 2])
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _closing_brace(glob: str, start: int) -> int:
    depth = 0
    i = start
    while i < len(glob):
        ch = glob[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _class(glob: str, start: int) -> tuple[str, int] | None:
    i = start + 1
    negate = i < len(glob) and glob[i] in "!^"
    if negate:
        i += 1
    body_start = i
    if i < len(glob) and glob[i] == "]":
        i += 1
    while i < len(glob) and glob[i] != "]":
        i += 1
    if i >= len(glob):
        return None
    body = glob[body_start:i].replace("\\", "\\\\")
    return f"[{'^' if negate else ''}{body}]", i + 1


def glob_to_regex(glob: str) -> str:
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        ch = glob[i]
        if ch == "*":
            if glob.startswith("**", i):
                at_start = i == 0 or glob[i - 1] == "/"
                after = i + 2
                if at_start and after < n and glob[after] == "/":
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                out.append(".*")
                i = after
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            parsed = _class(glob, i)
            if parsed is None:
                out.append(re.escape(ch))
            else:
                out.append(parsed[0])
                i = parsed[1]
                continue
        elif ch == "{":
            end = _closing_brace(glob, i)
            if end < 0:
                out.append(re.escape(ch))
            else:
                options = _split_alternatives(glob[i + 1 : end])
                out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
                i = end + 1
                continue
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(glob: str) -> re.Pattern[str]:
    return re.compile(glob_to_regex(glob), re.DOTALL)


def find_pattern_matcher(pattern: str) -> Callable[[str], bool]:
    """``find`` semantics: no ``/`` → the base name at any depth; else a path pattern, prefixed
    with ``**/`` unless it starts with ``/`` or ``**/`` or is ``**``."""
    if "/" not in pattern:
        regex = compile_glob(pattern)
        return lambda rel: regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None
    if pattern.startswith("/"):
        pattern = pattern[1:]
    elif not (pattern.startswith("**/") or pattern == "**"):
        pattern = "**/" + pattern
    regex = compile_glob(pattern.rstrip("/") or "**")
    return lambda rel: regex.fullmatch(rel) is not None


def grep_glob_matcher(glob: str) -> Callable[[str], bool]:
    """``grep``'s ``glob`` filter with rg's rules: a leading ``!`` negates; without ``/`` the base
    name matches at any depth; with ``/`` the path relative to the search root."""
    negate = glob.startswith("!")
    body = glob[1:] if negate else glob
    if "/" in body.rstrip("/"):
        regex = compile_glob(body.lstrip("/").rstrip("/"))

        def match(rel: str) -> bool:
            return regex.fullmatch(rel) is not None
    else:
        regex = compile_glob(body.rstrip("/"))

        def match(rel: str) -> bool:
            return regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None

    return (lambda rel: not match(rel)) if negate else match
