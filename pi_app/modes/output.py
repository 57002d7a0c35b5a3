"""stdout for the headless modes: only the mode's own output reaches it (R-RPC-02/03, R-JSON-02, R-PRINT-03).

``guard_stdout`` points ``sys.stdout`` (and file descriptor 1, which subprocesses inherit) at
stderr and returns a private handle on the real stdout, so a stray ``print`` in an extension or a
library lands on stderr instead of corrupting a JSON stream or a print-mode answer.

``LineWriter`` owns that handle: every message is encoded with the project's single JSON encoder
(strings are written as they are; ``JsonParts`` are a line already encoded in pieces) and written
whole, in call order, and flushed before the next one, so large events are never cut or
interleaved. A closed pipe ends output quietly; a lone surrogate in a string is written as U+FFFD
(an encoding problem is never taken for a closed pipe). Text goes out in slices of ``SLICE_CHARS``
characters, so a 10 MB line never needs a second 10 MB copy as bytes.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, BinaryIO

from pi_app.ai.codec import encode_json
from pi_app.ai.util.sanitize import utf8

SLICE_CHARS = 1 << 20


class JsonParts(tuple[str, ...]):
    """One JSON value already encoded, as pieces whose concatenation is the value's text (lets a
    large value that occurs twice in a line be encoded once; see ``pi_app.modes.serialize``)."""


class LineWriter:
    """Writes protocol objects as single lines, in call order, to a private binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False
        try:
            self.is_terminal = os.isatty(stream.fileno())
        except (OSError, ValueError, AttributeError):  # a stream without a descriptor (tests)
            self.is_terminal = False

    def write(self, obj: Any) -> None:
        if isinstance(obj, str):
            parts: tuple[str, ...] = (obj,)
        elif isinstance(obj, JsonParts):
            parts = (*obj, "\n")
        else:  # encoded before the lock is taken: a value that cannot be encoded writes nothing
            parts = (encode_json(obj), "\n")
        with self._lock:
            if self.closed:
                return
            try:
                for part in parts:
                    for start in range(0, len(part), SLICE_CHARS):
                        self._stream.write(utf8(part[start : start + SLICE_CHARS]))
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True  # the client went away: drop further output quietly

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                try:
                    self._stream.flush()
                except (OSError, ValueError):
                    pass
            self.closed = True


def guard_stdout() -> BinaryIO:
    """Route everything but the protocol to stderr; return a private binary handle on the real stdout.

    After this, fd 1 is a copy of fd 2 (children inherit stderr as their stdout) and ``sys.stdout``
    writes to stderr. Only the returned stream reaches the client.
    """
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    private_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private_fd, "wb", buffering=0)
