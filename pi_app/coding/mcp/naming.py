"""Tool names and per-tool exposure for MCP servers (issue 22, pi 1.6.0's docs/mcp.md).

A server tool is called ``mcp__<server>__<tool>`` with every character other than ASCII letters,
digits and ``_`` replaced by ``_``. When two tools of one server end up with the same name, every
tool in that clash gets a suffix: ``_`` and the first 6 hex digits of the SHA-1 of its original
name (our choice; 1.6.0 documents only that a hash is added).

``toolExposure`` keys are exact tool names or ``*`` patterns; an exact name wins over patterns, and
among patterns the first match (in file order) wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def sanitise(text: str) -> str:
    return _UNSAFE.sub("_", text)


def server_prefix(server: str) -> str:
    return f"mcp__{sanitise(server)}__"


def tool_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Original tool name -> pi tool name for one server's tools."""
    originals = list(dict.fromkeys(tools))
    prefix = server_prefix(server)
    plain = {t: prefix + sanitise(t) for t in originals}
    counts: dict[str, int] = {}
    for name in plain.values():
        counts[name] = counts.get(name, 0) + 1
    out: dict[str, str] = {}
    for tool, name in plain.items():
        if counts[name] > 1:
            import hashlib  # only for a clash (its import loads OpenSSL)

            name = f"{name}_{hashlib.sha1(tool.encode('utf-8')).hexdigest()[:6]}"
        out[tool] = name
    return out


def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(p) for p in glob.split("*")) + "$")


def tool_exposure(tool: str, server_exposure: str, overrides: Mapping[str, str]) -> str:
    if tool in overrides:
        return overrides[tool]
    for key, value in overrides.items():
        if "*" in key and _pattern(key).match(tool):
            return value
    return server_exposure


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """``--tools``/``--exclude-tools`` entries (``*`` globs) against a pi tool name."""
    return any(_pattern(p).match(name) for p in patterns)
