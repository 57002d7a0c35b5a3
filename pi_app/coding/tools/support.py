"""Small helpers every tool shares: awaiting maybe-async operations, abort checks, number text.

Operations protocols (spec 50 §2.5) may be implemented with plain or ``async`` methods, so callers
always go through ``maybe_await``. File tools raise ``OperationAborted`` ("Operation aborted") when
they observe an abort.
"""

from __future__ import annotations

import inspect
from typing import Any

from pi_app.ai.event_stream import AbortSignal

ABORTED_MESSAGE = "Operation aborted"


class OperationAborted(Exception):
    """Raised by a tool that observed an abort; the text is what the model sees."""

    def __init__(self, message: str = ABORTED_MESSAGE) -> None:
        super().__init__(message)


def raise_if_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise OperationAborted()


async def maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def format_number(value: float | int) -> str:
    """A number as the model wrote it: ``41`` rather than ``41.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
