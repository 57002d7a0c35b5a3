"""The status part: what the session is doing, on the status line (spec 60 §2.1 item 3).

``RunStatus`` owns the run state the app shows: working (a run is on), compacting (and why),
retrying (with the countdown ``Retrying (a/m) in Ns...`` ticking each second until the retry goes
out; issue 17, defect 7). It drives the ``StatusLine`` widget and the terminal's progress
indicator (OSC 9;4). The bridge's run messages reach it through ``PiApp`` in arrival order;
the outcomes that belong to other parts (notes, a transcript rebuild, the messages typed during a
compaction) are the app's to route.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from pi_app.tui.chrome.status import StatusLine

if TYPE_CHECKING:
    from textual.timer import Timer

    from pi_app.tui.bridge.messages import RetryEnded, RetryStarted
    from pi_app.tui.terminal.probe import TerminalSetup


class StatusHost(Protocol):
    """What the status part asks of the app."""

    terminal: TerminalSetup
    """The terminal's progress indicator (OSC 9;4) follows the run."""

    @property
    def status_line(self) -> StatusLine: ...

    def hint(self, action: str) -> str: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...

    def show_error(self, text: str) -> None: ...


class RunStatus:
    """Working / compacting / retrying, and the status line that shows them (UI thread)."""

    def __init__(self, host: StatusHost) -> None:
        self._host = host
        self.working = False
        self.compacting: str | None = None
        """The reason of the compaction running (``manual``, ``threshold``, ``overflow``), or None."""
        self.retrying = False
        self.working_message: str | None = None
        """An extension's replacement for ``Working...`` (``ctx.ui.set_working_message``)."""
        self.compactions_ended = 0
        self._countdown: Timer | None = None

    @property
    def status_line(self) -> StatusLine:
        return self._host.status_line

    @property
    def is_compacting(self) -> bool:
        return self.compacting is not None

    def set_working(self, working: bool) -> None:
        self.working = working
        self._host.terminal.set_busy(working)
        if working:
            interrupt = self._host.hint("app.interrupt")
            self.status_line.show(self.working_message or f"Working... ({interrupt} to interrupt)")
        elif self.compacting is None and not self.retrying:
            self.status_line.hide()

    def compaction_started(self, reason: str) -> None:
        self.compacting = reason
        interrupt = self._host.hint("app.interrupt")
        if reason == "manual":
            self.status_line.show(f"Compacting context... ({interrupt} to cancel)")
        else:
            prefix = "Context overflow detected, " if reason == "overflow" else ""
            self.status_line.show(f"{prefix}Auto-compacting... ({interrupt} to cancel)")

    def compaction_ended(self) -> None:
        self.compacting = None
        self.compactions_ended += 1
        if self.working:
            self.set_working(True)
        else:
            self.status_line.hide()

    def retry_started(self, message: RetryStarted) -> None:
        event = message.event
        self.retrying = True
        self._stop_countdown()
        deadline = time.monotonic() + event.delay_ms / 1000
        interrupt = self._host.hint("app.interrupt")
        attempt = f"Retrying ({event.attempt}/{event.max_attempts})"

        def show() -> None:
            remaining = math.ceil(deadline - time.monotonic() - 0.05)  # 50 ms: a tick may be early
            if remaining <= 0:
                self._stop_countdown()
                self.status_line.show(f"{attempt}... ({interrupt} to cancel)", warning=True)
            else:
                self.status_line.show(f"{attempt} in {remaining}s... ({interrupt} to cancel)", warning=True)

        show()
        if event.delay_ms > 0:
            first_tick = (event.delay_ms % 1000 or 1000) / 1000  # the moment the shown number drops
            self._countdown = self._host.set_timer(first_tick, lambda: self._tick(show))

    def _tick(self, show: Callable[[], None]) -> None:
        show()
        if self.retrying and self._countdown is not None:
            self._countdown = self._host.set_timer(1.0, lambda: self._tick(show))

    def _stop_countdown(self) -> None:
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

    def retry_ended(self, message: RetryEnded) -> None:
        event = message.event
        self.retrying = False
        self._stop_countdown()
        self.set_working(self.working)
        if not event.success:
            self._host.show_error(f"Retry failed after {event.attempt} attempts: {event.final_error}")
