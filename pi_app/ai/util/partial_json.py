"""Best-effort parsing of streamed tool-call arguments (R-AI-93, 00-index.md decision D-16).

A thin wrapper over ``pydantic_core.from_json(..., allow_partial="trailing-strings")``: an
unfinished string value is kept (a streaming path or file body stays visible), incomplete
literals and dangling keys are dropped. Anything unparseable, and any non-object, gives ``{}``.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    if not text or not text.strip():
        return {}
    try:
        value = from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
