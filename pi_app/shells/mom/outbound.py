"""The ordered outbound queue of one conversation, and Slack's message-size rule.

Every chat call of a run (posting the label lines, the thread details, editing the main post)
goes through one ``OutboundQueue``: a single task drains it in order, so posts never overtake each
other (DP-26). A failing call is contained: it is logged, reported once in the thread as
``Error: <message>``, and the calls after it still run.

``split_for_slack`` cuts a text longer than Slack's limit (40,000 characters) into chunks of
39,950 characters, each but the last ending with ``_(continued N...)_``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

SLACK_MAX_LENGTH = 40_000
CHUNK_LENGTH = SLACK_MAX_LENGTH - 50

log = logging.getLogger("pi.mom")

Job = Callable[[], Awaitable[object]]


def split_for_slack(text: str, limit: int = SLACK_MAX_LENGTH) -> list[str]:
    if len(text) <= limit:
        return [text]
    size = limit - 50
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    return [
        chunk + (f"\n_(continued {n}...)_" if n < len(chunks) else "") for n, chunk in enumerate(chunks, 1)
    ]


def describe_failure(exc: Exception) -> str:
    """Slack's own error code when the Web API answered ``ok: false``, else the first line."""
    response = getattr(exc, "response", None)
    get = getattr(response, "get", None)
    code = get("error") if callable(get) else None
    return str(code) if code else (str(exc).splitlines() or [type(exc).__name__])[0]


class OutboundQueue:
    """Runs jobs one after another; ``report`` posts a failure (itself not retried or reported)."""

    def __init__(self, report: Callable[[str], Awaitable[object]] | None = None) -> None:
        self._queue: asyncio.Queue[tuple[Job, str] | None] = asyncio.Queue()
        self._report = report
        self._task = asyncio.get_running_loop().create_task(self._drain())
        self.failures: list[str] = []

    def enqueue(self, job: Job, what: str) -> None:
        self._queue.put_nowait((job, what))

    async def _drain(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            job, what = item
            try:
                await job()
            except Exception as exc:  # one failed call must not stop the ones after it
                message = f"{what}: {describe_failure(exc)}"[:300]
                log.warning("slack call failed: %s", message)
                self.failures.append(message)
                if self._report is not None:
                    try:
                        await self._report(f"Error: {message}")
                    except Exception as again:
                        log.warning("could not report the failure either: %s", again)

    async def flush(self) -> None:
        """Wait until every job queued so far has run, then stop the drain."""
        self._queue.put_nowait(None)
        await self._task
