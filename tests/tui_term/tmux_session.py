"""A real terminal multiplexer for the end-to-end TUI tests: a shell in a detached tmux session.

``TmuxSession`` starts its own tmux server (a private socket, ``-f /dev/null`` so no user config
applies) with one ``cols`` x ``rows`` window running a plain ``bash``, and records everything the
pane's programs write (``pipe-pane``; the shell's readline is told not to switch bracketed paste, so
every mode switch in that record is the program's) so tests can check which terminal modes were switched on and
off. Tests type with ``send_keys`` (tmux key names such as ``S-Enter``, or literal text), read the
screen with ``screen()`` (what a user sees) and ask tmux about the pane's modes with ``display``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PROMPT = "tmux-test$ "


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class TmuxSession:
    def __init__(
        self, cwd: Path, env: dict[str, str], *, size: tuple[int, int] = (120, 40), extended_keys: bool = True
    ) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="pi-tmux-"))  # short: socket paths are limited
        self.socket = self._dir / "sock"
        self.raw_log = self._dir / "pane.raw"
        inputrc = self._dir / "inputrc"  # the shell itself switches no terminal modes
        inputrc.write_text("set enable-bracketed-paste off\n")
        self._env = {k: v for k, v in env.items() if k not in ("TMUX", "TMUX_PANE")}
        self._env["INPUTRC"] = str(inputrc)
        self.cols, self.rows = size
        shell = f"env -u PROMPT_COMMAND PS1='{PROMPT}' bash --norc --noprofile"
        self.tmux(
            "new-session", "-d", "-s", "pi", "-x", str(self.cols), "-y", str(self.rows), "-c", str(cwd), shell
        )
        if extended_keys:
            self.tmux("set", "-g", "extended-keys", "on")
        self.tmux("pipe-pane", "-o", "-t", "pi", f"cat >> {self.raw_log}")
        self.wait_for(lambda screen: PROMPT.strip() in screen)

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", "/dev/null", *args],
            env=self._env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        if result.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    # -- user side ------------------------------------------------------------------------------

    def send_keys(self, *keys: str) -> None:
        """Keys by tmux name (``Enter``, ``S-Enter``, ``Up``, ``C-d``) or as text, in order."""
        for key in keys:
            self.tmux("send-keys", "-t", "pi", key)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "pi", "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "pi")

    def lines(self) -> list[str]:
        return self.screen().split("\n")[: self.rows]

    def display(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", "pi", fmt).strip()

    @property
    def cursor(self) -> tuple[int, int]:
        x, y = self.display("#{cursor_x} #{cursor_y}").split()
        return int(x), int(y)

    def raw(self) -> str:
        """Everything the programs in the pane wrote so far (escape sequences included)."""
        return self.raw_log.read_bytes().decode("utf-8", "replace") if self.raw_log.exists() else ""

    def wait_for(self, condition: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out; the screen was:\n{screen}")

    def settle(self, quiet: float = 0.4, timeout: float = 15.0) -> str:
        """Wait until the screen has not changed for ``quiet`` seconds; returns it."""
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
        return last

    def close(self) -> None:
        try:
            self.tmux("kill-server")
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self._dir, ignore_errors=True)


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")
