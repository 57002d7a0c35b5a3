"""Small helpers for the tasks' scripted models: answer with a tool call, or with text."""

from __future__ import annotations

import re
from typing import Any

from pi_app.ai.testing import text, tool_call


def call(name: str, **arguments: Any) -> list[Any]:
    return [text(f"Calling {name}."), tool_call(name, arguments)]


def say(message: str) -> list[Any]:
    return [text(message)]


def grep_hits(output: str) -> list[tuple[str, int, str]]:
    """``path:line: text`` rows of a grep tool result."""
    hits = []
    for line in output.splitlines():
        found = re.match(r"^(.+?):(\d+): (.*)$", line)
        if found:
            hits.append((found.group(1), int(found.group(2)), found.group(3)))
    return hits
