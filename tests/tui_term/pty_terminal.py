"""A user's terminal, simulated: a program on a pseudo-terminal, its screen kept by pyte.

``PtyTerminal`` starts a command on a new pty of a given size, reads everything it writes, and
feeds it to a ``pyte`` screen (pyte is a VT100 emulator; it does not know Kitty's APC graphics
commands or a few private CSI modes, so those are taken out of the stream first — graphics
commands are kept in ``graphics`` for assertions). Like a real terminal it answers the queries the
program sends: Primary Device Attributes always, synchronized-output support (mode 2026) always,
and, when ``kitty=True``, the Kitty keyboard and graphics queries, the cell size and OSC 11.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import signal
import struct
import termios
import threading
import time
from collections.abc import Callable, Sequence

import pyte

# Sequences pyte mishandles: APC (Kitty graphics), CSI with < > = prefixes (Kitty keyboard
# push/pop/query, modifyOtherKeys), DECRQM ($p), OSC (titles, colour queries).
_FOREIGN = re.compile(
    r"\x1b_(?P<apc>[^\x1b]*)\x1b\\|\x1b\[[<>=?][\d;]*\$?[a-zA-Z]|\x1b\[\?[\d;]*\$p|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
)
_PYTE_SAFE_PRIVATE = re.compile(r"\x1b\[\?[\d;]*[hl]")


def _complete(tail: str) -> bool:
    """Is ``tail`` (starting with ESC) a complete escape sequence?"""
    if len(tail) < 2:
        return False
    kind = tail[1]
    if kind == "[":
        return re.match(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]", tail) is not None
    if kind == "]":
        return "\x07" in tail
    if kind == "_":
        return False
    return True


class PtyTerminal:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        size: tuple[int, int] = (80, 24),
        env: dict[str, str] | None = None,
        kitty: bool = False,
        cwd: str | None = None,
    ) -> None:
        self.cols, self.rows = size
        self.kitty = kitty
        self.screen = pyte.Screen(self.cols, self.rows)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        self.graphics: list[str] = []
        """Kitty graphics commands received (APC payloads, ``G...``), in order."""
        self._pending = ""
        self._answered: dict[str, int] = {}
        self._lock = threading.Lock()
        pid, fd = os.forkpty()
        if pid == 0:  # child
            try:
                if cwd:
                    os.chdir(cwd)
                inherited = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
                os.execvpe(argv[0], list(argv), {**inherited, **(env or {}), "TERM": "xterm-256color"})
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.cols, 0, 0))
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    # -- terminal side --------------------------------------------------------------------------

    def _answers(self) -> list[tuple[str, str]]:
        answers = [("\x1b[c", "\x1b[?62;22c"), ("\x1b[?2026$p", "\x1b[?2026;2$y")]
        if self.kitty:
            answers = [
                ("\x1b[?u", "\x1b[?0u"),
                ("a=q,t=d,f=24;AAAA\x1b\\", "\x1b_Gi=31;OK\x1b\\"),
                ("\x1b[16t", "\x1b[6;18;9t"),
                ("\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"),
                *answers,
            ]
        return answers

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            text = self._decoder.decode(data)
            with self._lock:
                self.raw += text
                for query, answer in self._answers():
                    seen = self.raw.count(query)
                    while self._answered.get(query, 0) < seen:
                        self._answered[query] = self._answered.get(query, 0) + 1
                        os.write(self.fd, answer.encode())
                self._feed(text)

    def _feed(self, text: str) -> None:
        data = self._pending + text
        cut = data.rfind("\x1b")
        if cut >= 0 and not _complete(data[cut:]):
            data, self._pending = data[:cut], data[cut:]
        else:
            self._pending = ""

        def strip(match: re.Match[str]) -> str:
            if match.group("apc") is not None and match.group("apc").startswith("G"):
                self.graphics.append(match.group("apc"))
            return match.group(0) if _PYTE_SAFE_PRIVATE.fullmatch(match.group(0)) else ""

        self.stream.feed(_FOREIGN.sub(strip, data))

    # -- user side ------------------------------------------------------------------------------

    def type(self, text: str, delay: float = 0.0) -> None:
        for char in text if delay else [text]:
            os.write(self.fd, char.encode())
            if delay:
                time.sleep(delay)

    def wait_for(self, condition: Callable[[], bool], timeout: float = 15.0, interval: float = 0.02) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if condition():
                    return
            time.sleep(interval)
        raise AssertionError(f"timed out; screen was:\n{self.text()}")

    def settle(self, quiet: float = 0.3, timeout: float = 10.0) -> None:
        """Wait until the program has written nothing for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        last = -1
        while time.monotonic() < deadline:
            size = len(self.raw)
            if size == last:
                return
            last = size
            time.sleep(quiet)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    @property
    def cursor(self) -> tuple[int, int]:
        return self.screen.cursor.x, self.screen.cursor.y

    def wait_exit(self, timeout: float = 10.0) -> int:
        """Wait for the program to exit by itself; its exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.pid = 0
                self._thread.join(2)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        raise AssertionError("the program did not exit")

    def close(self) -> None:
        if not self.pid:
            os.close(self.fd)
            return
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        try:
            os.close(self.fd)
        except OSError:
            pass
        self._thread.join(2)
