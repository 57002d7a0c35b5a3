"""One session's event history for the Server-Sent Events stream (issue 24).

Every line a session's RPC child writes that is not a ``response`` (agent and session events,
``extension_ui_request``, ``extension_error``) is appended here unchanged and numbered 1, 2, 3 …
The numbers belong to the hosted session, not to the child: they keep counting across a child's
restart, so a client that reconnects with ``Last-Event-ID: n`` gets exactly the events after ``n``.

The log keeps the newest ``capacity`` events. A client asking for an id older than that is told
with one ``stream_gap`` event (``{"type": "stream_gap", "missed": [first, last]}``) and then gets
what is left; it should re-read the messages. Each event is encoded to JSON once, however many
clients read it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Any

from pi_app.ai.codec import encode_json  # the RPC line encoder: events read as the child wrote them

JsonObject = dict[str, Any]  # one decoded JSON object of the RPC wire (its values are any JSON)

DEFAULT_CAPACITY = 20_000


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    id: int
    data: str  # the event as one line of JSON

    def sse(self) -> bytes:
        return f"id: {self.id}\ndata: {self.data}\n\n".encode()


class EventLog:
    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._events: deque[LoggedEvent] = deque(maxlen=capacity)
        self._last_id = 0
        self._changed = asyncio.Event()

    @property
    def last_id(self) -> int:
        return self._last_id

    def append(self, event: JsonObject) -> int:
        self._last_id += 1
        self._events.append(LoggedEvent(self._last_id, encode_json(event)))
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()  # wakes every reader waiting for this id
        return self._last_id

    def after(self, last_id: int) -> list[LoggedEvent]:
        """The events numbered above ``last_id``, oldest first (a ``stream_gap`` first when some
        of them are no longer kept)."""
        if last_id >= self._last_id:
            return []
        oldest = self._events[0].id if self._events else self._last_id + 1
        out: list[LoggedEvent] = []
        if last_id + 1 < oldest:
            gap = {"type": "stream_gap", "missed": [last_id + 1, oldest - 1]}
            out.append(LoggedEvent(oldest - 1, encode_json(gap)))
        start = max(0, last_id + 1 - oldest)
        out.extend(list(self._events)[start:])
        return out

    async def wait_after(self, last_id: int, timeout: float) -> list[LoggedEvent]:
        """The events above ``last_id``; waits up to ``timeout`` seconds for one when there is none."""
        if last_id >= self._last_id:
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                return []
        return self.after(last_id)
