"""The stream-function type and the process-wide default slot (spec 20 §2.6, decision D-35).

The default exists for scripts and tests only: the coding layer always passes its model
registry's ``stream_simple`` explicitly, so two sessions in one process never share a global.
This is the only module-level mutable state of the agent package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

StreamFn: TypeAlias = Callable[..., Any]

_default_stream_fn: StreamFn | None = None


def set_default_stream_fn(fn: StreamFn | None) -> None:
    global _default_stream_fn
    _default_stream_fn = fn


def get_default_stream_fn() -> StreamFn:
    if _default_stream_fn is None:
        raise RuntimeError(
            "no default stream function configured; pass stream_fn or call set_default_stream_fn() first"
        )
    return _default_stream_fn
