"""The terminal driver: Textual's Linux driver with an input thread that sleeps while nothing happens.

Textual's ``LinuxDriver`` waits for input in ``select`` with a 0.1 s timeout, so that it notices
the end of the app and can time out an escape sequence; an idle app therefore woke ten times a
second (issue 20; pi 1.6.0 wakes well under once a second). ``QuietLinuxDriver`` waits without a
timeout instead: a pipe wakes the input thread when the app stops reading input (the driver's
``exit_event`` writes to it when set), and a timeout is used only while the key parser holds the
start of an escape sequence (a lone Esc becomes a key after Textual's escape delay, as before).

Everything else is Textual's own: the same parser (the one ``linux_driver.XTermParser`` names, so
pi's key parser installed there by ``pi_app.tui.input.keys`` is used), the same events, the same final read when
input stops. ``TEXTUAL_DRIVER`` and non-Linux platforms keep Textual's choice.
"""

from __future__ import annotations

import os
import selectors
import threading
import time
from codecs import getincrementaldecoder
from typing import Any

from textual._time import get_time
from textual.drivers import linux_driver
from textual.drivers.linux_driver import LinuxDriver

POLL_INTERVAL = 0.1  # Textual's select timeout, kept for the final read and an unknown parser
_UNKNOWN = object()


class _WakingEvent(threading.Event):
    """An ``Event`` that also writes to the current input thread's wake pipe when set."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.RLock()  # set() may run again from a signal handler (Ctrl+Z) on the same thread
        self.wake_fd: int | None = None

    def set(self) -> None:
        with self.lock:
            super().set()
            if self.wake_fd is not None:
                try:
                    os.write(self.wake_fd, b"x")
                except OSError:  # full: the thread is awake already
                    pass


class QuietLinuxDriver(LinuxDriver):
    """``LinuxDriver`` whose input thread blocks until input, a stop, or an escape timeout."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exit_event: _WakingEvent = _WakingEvent()

    def run_input_thread(self) -> None:
        """Read the terminal until ``exit_event`` is set, then the escape sequence left, if any.

        Each run has its own wake pipe (a suspended app closes its driver and starts input again
        on ``fg``)."""
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        with self.exit_event.lock:  # a stop from now on wakes the select; one before is seen below
            self.exit_event.wake_fd = wake_write
        try:
            self._read_input(wake_read)
        finally:
            with self.exit_event.lock:
                self.exit_event.wake_fd = None
            os.close(wake_read)
            os.close(wake_write)

    def _read_input(self, wake_read: int) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        # the parser class the driver module names now (``pi_app.tui.input.keys`` puts pi's there)
        parser = linux_driver.XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def handle(ready: list[tuple[selectors.SelectorKey, int]]) -> None:
            for key, _mask in ready:
                if key.fd == wake_read:
                    _drain(wake_read)  # the loop looks at exit_event next
                elif key.fd == self.fileno:
                    data = decode(os.read(self.fileno, 1024 * 4))
                    if data:
                        for event in parser.feed(data):
                            self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        def timeout() -> float | None:
            # until the parser's deadline for the escape sequence it holds; none while it holds none
            deadline = getattr(parser, "_timeout_time", _UNKNOWN)
            if deadline is _UNKNOWN:  # another Textual: poll as Textual does
                return POLL_INTERVAL
            return max(0.0, deadline - get_time()) if isinstance(deadline, int | float) else None

        try:
            while not self.exit_event.is_set():
                handle(selector.select(timeout()))
            # as Textual: an escape sequence still held becomes its key once its delay is over
            remaining = timeout()
            if remaining:
                time.sleep(min(remaining, POLL_INTERVAL))
            handle([])
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except Exception:  # the parser's end-of-file errors
                pass


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except OSError:  # empty (BlockingIOError)
        pass
