"""Small helpers for Pilot tests of the app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def wait_for(pilot: Any, condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Pause the pilot until ``condition()`` is true; a generous deadline separates slow from hung."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.02)
