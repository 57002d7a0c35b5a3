"""Best-effort parsing of streamed tool-call arguments (R-AI-93, 00-index.md decision D-16).

A thin wrapper over ``pydantic_core.from_json(..., allow_partial="trailing-strings")``: an
unfinished string value is kept (a streaming path or file body stays visible), incomplete
literals and dangling keys are dropped. Anything unparseable, and any non-object, gives ``{}``.

``pydantic_core`` is imported on the first call, not with this module: ``pi_app.ai`` exports the
function, and a run whose answers are plain text never streams tool arguments (issue 20).
"""

from __future__ import annotations

from typing import Any


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    if not text or not text.strip():
        return {}
    from pydantic_core import from_json

    try:
        value = from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
