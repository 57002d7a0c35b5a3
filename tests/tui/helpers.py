"""Small helpers for Pilot tests of the app."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


async def wait_for(pilot: Any, condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Pause the pilot until ``condition()`` is true; a generous deadline separates slow from hung."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.02)


def write_local_model(agent_dir: Path) -> Path:
    """A ``models.json`` with one model on a port nothing listens on: the session starts with a
    model, and nothing may be sent to it."""
    models = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "local-model"}],
            }
        }
    }
    path = agent_dir / "models.json"
    path.write_text(json.dumps(models))
    return path
