"""Per-file mutation queue (spec 50 §2.5, R-MUTQ-01..05).

``with_file_mutation_queue(path, fn)`` runs ``fn()`` once every earlier call for the same real file
has settled. The key is the real path (symlinks resolved), so ``./a.txt``, ``../proj/a.txt`` and a
symlink to it share one queue; different files run in parallel. ``asyncio.Lock`` wakes waiters in
FIFO order; an entry is dropped from the table as soon as nobody holds or waits for it. One event
loop per table: the queue is not thread-safe by design.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


_QUEUES: dict[str, _Entry] = {}


def mutation_queue_key(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        return os.path.abspath(path)


def pending_mutation_keys() -> list[str]:
    """Keys with queued or running work (tests and diagnostics)."""
    return list(_QUEUES)


async def with_file_mutation_queue(path: str, fn: Callable[[], Awaitable[T]]) -> T:
    key = mutation_queue_key(path)
    entry = _QUEUES.get(key)
    if entry is None:
        entry = _QUEUES[key] = _Entry()
    entry.users += 1
    try:
        async with entry.lock:
            return await fn()
    finally:
        entry.users -= 1
        if entry.users == 0 and _QUEUES.get(key) is entry:
            del _QUEUES[key]
