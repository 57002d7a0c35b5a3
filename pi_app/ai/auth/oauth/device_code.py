"""The OAuth device-code flow's polling loop (RFC 8628; R-AI-62), shared by device-code providers.

Before each poll it sleeps ``interval × multiplier`` (at least 1 s; multiplier 1.2, raised to 1.4
after a ``slow_down``, which also sets the interval to the server's value or +5 s).
``authorization_pending`` keeps polling; any other error fails with ``Device flow failed: …``; the
deadline fails with ``Device flow timed out`` (plus a clock-drift hint after a ``slow_down``).
Sleeping goes through an injectable function so tests never wait.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.http.transport import RequestAborted, race_abort

Sleep = Callable[[float], Awaitable[None]]


class DeviceFlowError(Exception):
    pass


async def poll_for_token(
    client: httpx.AsyncClient,
    token_url: str,
    form: dict[str, str],
    interval: float,
    expires_in: float,
    *,
    signal: AbortSignal | None = None,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Poll ``token_url`` until it returns an ``access_token``; returns the JSON response."""
    deadline = clock() + expires_in
    multiplier = 1.2
    slowed = False
    while True:
        if clock() >= deadline:
            hint = (
                " (the server asked to slow down; check that your system clock is correct)" if slowed else ""
            )
            raise DeviceFlowError(f"Device flow timed out{hint}")
        try:
            await race_abort(sleep(max(1.0, interval * multiplier)), signal)
            response = await race_abort(
                client.post(token_url, data=form, headers={"accept": "application/json"}), signal
            )
        except RequestAborted:
            raise DeviceFlowError("Login cancelled") from None
        try:
            data = response.json()
        except ValueError:
            data = {}
        if data.get("access_token"):
            return data
        error = data.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            slowed = True
            interval = float(data.get("interval") or interval + 5)
            multiplier = 1.4
            continue
        description = data.get("error_description")
        detail = f"{error}: {description}" if description else str(error or f"HTTP {response.status_code}")
        raise DeviceFlowError(f"Device flow failed: {detail}")
