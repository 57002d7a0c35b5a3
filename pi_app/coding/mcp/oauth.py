"""OAuth for HTTP MCP servers (filled in by the OAuth piece)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def auth_factory(agent_dir: Path, *, interactive: bool) -> Callable[[Any], Any] | None:
    return None
