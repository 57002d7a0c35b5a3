"""What the terminal can do, found out before the app starts, plus the few raw writes we own.

* ``detect_capabilities()`` — spec 60 §2.7 / R-TERM-01: environment in, ``TerminalCapabilities``
  out (pure, cached; ``reset_capabilities_cache()`` for tests).
* ``probe_terminal()`` — one round trip on the TTY in raw mode *before* Textual owns stdin
  (R-TERM-02): the Kitty keyboard query (``CSI ? u``), a Kitty graphics query (``a=q``), the cell
  pixel size (``CSI 16 t``), the background colour (OSC 11), and Primary Device Attributes
  (``CSI c``) last: every terminal answers DA1, so its reply ends the wait early and anything that
  has not answered before it is not supported. Bytes the user typed meanwhile are kept in
  ``ProbeResult.stray`` and replayed into the app with ``replay_input``. After Textual starts,
  replies cannot be read safely (its parser would turn unknown replies into key presses), which is
  why nothing here queries the terminal later.
* ``merge_probe()`` — environment plus probe: Kitty images only where the terminal answered the
  graphics query *and* is known to draw Unicode placeholders (kitty, Ghostty); never under tmux.
* ``image_mode()`` — the D-39 ladder: kitty → half-block cells → text.
* Colour depth and the xterm-256 mapping (R-TERM-04) as pure functions.
* ``TerminalModes`` — the raw mode switches the app owns: showing the hardware cursor (R-IME-03)
  and xterm ``modifyOtherKeys`` whenever the Kitty keyboard query went unanswered (R-KEY-01),
  written through the driver and undone on suspend and exit. Ctrl+Z (issue 9): the
  modes are undone while the app still runs (before SIGTSTP stops it), and on ``fg`` they are
  switched on again and the whole screen is repainted (the terminal kept nothing of it).
  ``restore_after_crash()`` undoes them with a plain write when the app died without unmounting.

Why modifyOtherKeys does not wait for ``TMUX`` (issue 17, defect 2): tmux 3.3a with
``extended-keys on`` sends Shift+Enter as the literal text ``S-Enter`` to a program that never
asked for extended keys, and a program started through ``env -i``, ``sudo`` or ``ssh`` into a
host running tmux has no ``TMUX`` variable. The terminal's silence on the Kitty query is the
evidence; terminals that know neither protocol ignore the request.
"""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver

    from pi_app.tui.terminal.images import ImageRenderer
    from pi_app.tui.transcript.view import Transcript

ColorScheme = Literal["dark", "light"]

KITTY_KEYBOARD_QUERY = "\x1b[?u"
KITTY_GRAPHICS_QUERY = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"
CELL_SIZE_QUERY = "\x1b[16t"
BACKGROUND_QUERY = "\x1b]11;?\x1b\\"
DEVICE_ATTRIBUTES_QUERY = "\x1b[c"
PROBE_QUERY = (
    KITTY_KEYBOARD_QUERY + KITTY_GRAPHICS_QUERY + CELL_SIZE_QUERY + BACKGROUND_QUERY + DEVICE_ATTRIBUTES_QUERY
)
MULTIPLEXER_PROBE_QUERY = KITTY_KEYBOARD_QUERY + CELL_SIZE_QUERY + BACKGROUND_QUERY + DEVICE_ATTRIBUTES_QUERY
"""tmux and GNU screen take any APC string as a new window/pane title (screen's old title
syntax), so the graphics query would rename the pane to ``Gi=31,…`` (issue 19, item 11d).
Images are never drawn there anyway."""

SHOW_CURSOR = "\x1b[?25h"
HIDE_CURSOR = "\x1b[?25l"
MODIFY_OTHER_KEYS_ON = "\x1b[>4;2m"
MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m"
# DEC mode 2031: the terminal reports light/dark appearance changes as CSI ? 997 ; 1|2 n
COLOR_SCHEME_REPORTS_ON = "\x1b[?2031h"
COLOR_SCHEME_REPORTS_OFF = "\x1b[?2031l"
PROGRESS_BUSY = "\x1b]9;4;3\x1b\\"
"""OSC 9;4 state 3: the tab shows indeterminate progress (Windows Terminal, Ghostty, WezTerm, …)."""
PROGRESS_CLEAR = "\x1b]9;4;0\x1b\\"


@dataclass(frozen=True)
class TerminalCapabilities:
    """Spec 60 §2.7 (``kitty_placeholders`` and ``has_color`` are Python additions)."""

    images: Literal["kitty", "iterm2"] | None
    true_color: bool
    hyperlinks: bool
    kitty_placeholders: bool
    has_color: bool = True
    tmux: bool = False


def detect_capabilities(env: Mapping[str, str] | None = None) -> TerminalCapabilities:
    """Capabilities from the environment (R-TERM-01); cached for ``os.environ``."""
    if env is None:
        return _detect_cached(tuple(sorted(os.environ.items())))
    return _detect(env)


@lru_cache(maxsize=4)
def _detect_cached(items: tuple[tuple[str, str], ...]) -> TerminalCapabilities:
    return _detect(dict(items))


def reset_capabilities_cache() -> None:
    _detect_cached.cache_clear()


def _detect(env: Mapping[str, str]) -> TerminalCapabilities:
    term = env.get("TERM", "")
    program = env.get("TERM_PROGRAM", "").lower()
    true_color = env.get("COLORTERM", "").lower() in ("truecolor", "24bit")
    has_color = not env.get("NO_COLOR") and term != "dumb"
    images: Literal["kitty", "iterm2"] | None = None
    placeholders = False
    hyperlinks = True
    if env.get("KITTY_WINDOW_ID") or program == "kitty":
        images, placeholders, true_color = "kitty", True, True
    elif program == "ghostty" or "ghostty" in term or env.get("GHOSTTY_RESOURCES_DIR"):
        images, placeholders, true_color = "kitty", True, True
    elif env.get("WEZTERM_PANE") or program == "wezterm":
        images, true_color = "kitty", True
    elif program in ("warpterminal", "warp"):
        images, true_color = "kitty", True
    elif env.get("ITERM_SESSION_ID") or program == "iterm.app":
        images, true_color = "iterm2", True
    elif program == "vscode" or "alacritty" in term or env.get("ALACRITTY_WINDOW_ID"):
        true_color = True
    else:
        hyperlinks = true_color
    tmux = under_multiplexer(env)
    if tmux:
        images, placeholders = None, False  # rather not draw than draw wrong
    return TerminalCapabilities(images, true_color, hyperlinks, placeholders, has_color, tmux)


def color_depth(env: Mapping[str, str]) -> Literal["truecolor", "256"]:
    """R-TERM-04: truecolor unless the terminal is known to lack it."""
    if env.get("WT_SESSION"):
        return "truecolor"
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = env.get("TERM", "")
    if (
        term in ("", "dumb", "linux")
        or term.startswith("screen")
        or env.get("TERM_PROGRAM") == "Apple_Terminal"
    ):
        return "256"
    return "truecolor"


_CUBE_LEVELS = (0, 95, 135, 175, 215, 255)


def nearest_xterm256(hex_color: str) -> int:
    """The xterm-256 index closest to ``#rrggbb`` (cube colour or grey ramp; R-TERM-04)."""
    value = hex_color.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))

    def distance(c: tuple[int, int, int]) -> float:
        return 0.299 * (r - c[0]) ** 2 + 0.587 * (g - c[1]) ** 2 + 0.114 * (b - c[2]) ** 2

    def nearest_level(v: int) -> int:
        return min(range(6), key=lambda i: abs(_CUBE_LEVELS[i] - v))

    ri, gi, bi = nearest_level(r), nearest_level(g), nearest_level(b)
    cube = (_CUBE_LEVELS[ri], _CUBE_LEVELS[gi], _CUBE_LEVELS[bi])
    grey_index = min(range(24), key=lambda i: abs(8 + 10 * i - (r + g + b) / 3))
    grey_value = 8 + 10 * grey_index
    if distance((grey_value,) * 3) < distance(cube):
        return 232 + grey_index
    return 16 + 36 * ri + 6 * gi + bi


# -- probing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeResult:
    """What the terminal answered (None: it did not answer that query)."""

    answered: bool = False
    """The DA1 reply arrived, so every missing answer means "not supported"."""
    kitty_keyboard: int | None = None
    kitty_graphics: bool | None = None
    cell_size: tuple[int, int] | None = None
    """(width, height) of one cell in pixels."""
    background: tuple[int, int, int] | None = None
    stray: str = ""
    """Input that was not a reply (typed keys); replay it into the app."""

    @property
    def color_scheme(self) -> ColorScheme | None:
        if self.background is None:
            return None
        r, g, b = self.background
        return "dark" if (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 < 0.5 else "light"


_REPLIES = re.compile(
    r"\x1b\[\?(?P<kbd>\d+)u"
    r"|\x1b_G(?P<gfx>[^\x1b]*)\x1b\\"
    r"|\x1b\[6;(?P<ch>\d+);(?P<cw>\d+)t"
    r"|\x1b\]11;rgb:(?P<r>[0-9a-fA-F]+)/(?P<g>[0-9a-fA-F]+)/(?P<b>[0-9a-fA-F]+)(?:\x07|\x1b\\)"
    r"|\x1b\[\?(?P<da>[\d;]*)c"
)


def parse_probe_replies(data: str) -> ProbeResult:
    """Pick the replies to ``PROBE_QUERY`` out of ``data``; everything else is stray input."""
    fields: dict[str, Any] = {}
    stray: list[str] = []
    position = 0
    for match in _REPLIES.finditer(data):
        stray.append(data[position : match.start()])
        position = match.end()
        if match.group("kbd") is not None:
            fields["kitty_keyboard"] = int(match.group("kbd"))
        elif match.group("gfx") is not None:
            body = match.group("gfx")
            if "i=31" in body.split(";", 1)[0].split(","):
                fields["kitty_graphics"] = body.rsplit(";", 1)[-1] == "OK"
        elif match.group("ch") is not None:
            fields["cell_size"] = (int(match.group("cw")), int(match.group("ch")))
        elif match.group("r") is not None:
            fields["background"] = tuple(_colour_channel(match.group(c)) for c in "rgb")
        elif match.group("da") is not None:
            fields["answered"] = True
    stray.append(data[position:])
    result = ProbeResult(stray="".join(stray), **fields)
    if result.answered and result.kitty_graphics is None:
        result = replace(result, kitty_graphics=False)
    return result


def _colour_channel(hex_digits: str) -> int:
    """An X11 colour channel of 1–4 hex digits scaled to 0..255."""
    return round(int(hex_digits, 16) * 255 / ((1 << 4 * len(hex_digits)) - 1))


def under_multiplexer(env: Mapping[str, str]) -> bool:
    """tmux or screen, by ``TMUX`` or by the ``TERM`` they set (kept by ``env -i TERM=…``)."""
    term = env.get("TERM", "")
    return bool(env.get("TMUX") or env.get("STY")) or term.startswith(("tmux", "screen"))


def probe_query(env: Mapping[str, str] | None = None) -> str:
    """The probe for this terminal: no graphics query where an APC string renames the pane."""
    return MULTIPLEXER_PROBE_QUERY if under_multiplexer(os.environ if env is None else env) else PROBE_QUERY


def probe_terminal(
    fd_in: int | None = None,
    fd_out: int | None = None,
    timeout: float = 0.15,
    env: Mapping[str, str] | None = None,
) -> ProbeResult:
    """Ask the terminal on ``fd_in``/``fd_out`` (default stdin/stdout); never raises.

    Returns an empty ``ProbeResult`` when either side is not a TTY. The terminal is left in the
    mode it was in.
    """
    import termios
    import tty

    fd_in = 0 if fd_in is None else fd_in
    fd_out = 1 if fd_out is None else fd_out
    try:
        if not (os.isatty(fd_in) and os.isatty(fd_out)):
            return ProbeResult()
        saved = termios.tcgetattr(fd_in)
    except (OSError, termios.error):
        return ProbeResult()
    received = b""
    try:
        tty.setraw(fd_in, termios.TCSANOW)
        os.write(fd_out, probe_query(env).encode())
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            ready, _, _ = select.select([fd_in], [], [], remaining)
            if not ready:
                break
            chunk = os.read(fd_in, 4096)
            if not chunk:
                break
            received += chunk
            if re.search(rb"\x1b\[\?[\d;]*c", received):
                break
    except OSError:
        pass
    finally:
        try:
            termios.tcsetattr(fd_in, termios.TCSANOW, saved)
        except termios.error:
            pass
    return parse_probe_replies(received.decode("utf-8", "replace"))


def merge_probe(capabilities: TerminalCapabilities, probe: ProbeResult) -> TerminalCapabilities:
    """Refine the environment's guess with what the terminal said."""
    if not probe.answered or capabilities.tmux:
        return capabilities
    if probe.kitty_graphics:
        if capabilities.images is None:
            return replace(capabilities, images="kitty", kitty_placeholders=False)
        return capabilities
    if capabilities.images == "kitty":  # the environment said kitty but the terminal did not answer
        return replace(capabilities, images=None, kitty_placeholders=False)
    return capabilities


def image_mode(
    capabilities: TerminalCapabilities, show_images: bool = True
) -> Literal["kitty", "cells", "text"]:
    """The D-39 ladder for these capabilities."""
    if not show_images or not capabilities.has_color:
        return "text"
    if capabilities.images == "kitty" and capabilities.kitty_placeholders and not capabilities.tmux:
        return "kitty"
    return "cells"


def replay_input(app: App[Any], text: str) -> None:
    """Deliver keys typed during the probe to ``app`` as if they had just been typed."""
    if not text:
        return
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    for message in [*parser.feed(text), *parser.feed("")]:
        app.post_message(message)


def hardware_cursor_requested(env: Mapping[str, str] | None = None, setting: bool = False) -> bool:
    """R-IME-03: the ``showHardwareCursor`` setting, forced on by ``PI_HARDWARE_CURSOR=1``."""
    env = os.environ if env is None else env
    return setting or env.get("PI_HARDWARE_CURSOR") == "1"


class TerminalModes:
    """Raw terminal modes the app switches itself, always undone on suspend and exit."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self.cursor_visible = False
        self.modify_other_keys = False
        self.progress = False
        self.color_scheme_reports = False

    def enable_color_scheme_reports(self) -> None:
        """Ask for appearance-change reports (pi 1.6.0's ``system`` theme follows them)."""
        if not self.color_scheme_reports:
            self.color_scheme_reports = True
            self._write(COLOR_SCHEME_REPORTS_ON)

    def set_progress(self, busy: bool) -> None:
        """OSC 9;4: the terminal tab's progress indicator on (agent working) or cleared."""
        if busy != self.progress:
            self.progress = busy
            self._write(PROGRESS_BUSY if busy else PROGRESS_CLEAR)

    def show_cursor(self, visible: bool) -> None:
        if visible != self.cursor_visible:
            self.cursor_visible = visible
            self._write(SHOW_CURSOR if visible else HIDE_CURSOR)

    def enable_modify_other_keys(self) -> None:
        if not self.modify_other_keys:
            self.modify_other_keys = True
            self._write(MODIFY_OTHER_KEYS_ON)

    def restore(self, write: Callable[[str], None] | None = None) -> None:
        """Leave the terminal as Textual expects it (cursor hidden, no modifyOtherKeys);
        ``write`` replaces the driver's write once the driver is gone."""
        out = write or self._write
        if self.modify_other_keys:
            out(MODIFY_OTHER_KEYS_OFF)
            self.modify_other_keys = False
        if self.cursor_visible:
            out(HIDE_CURSOR)
            self.cursor_visible = False
        if self.progress:
            out(PROGRESS_CLEAR)
            self.progress = False
        if self.color_scheme_reports:
            out(COLOR_SCHEME_REPORTS_OFF)
            self.color_scheme_reports = False


def _write_stdout(text: str) -> None:
    try:
        os.write(1, text.encode())
    except OSError:
        pass


def wants_modify_other_keys(probe: ProbeResult) -> bool:
    """R-KEY-01: when the Kitty keyboard query went unanswered, whatever the environment says."""
    return probe.kitty_keyboard is None


@dataclass
class TerminalSetup:
    """Everything the app learns about its terminal before starting, and what it switches on it.

    ``detect()`` runs before ``App.run()`` (probing only a real TTY); ``attach(app, transcript)``
    runs once the screen exists: it gives the transcript an image renderer writing through the
    driver, replays keys typed during the probe, enables modifyOtherKeys under tmux when needed,
    and undoes its modes around suspend. ``detach()`` restores the terminal on exit.
    """

    capabilities: TerminalCapabilities
    probe: ProbeResult
    show_images: bool = True
    hardware_cursor: bool = False
    modes: TerminalModes | None = None
    renderer: ImageRenderer | None = None
    _transcript: Transcript | None = field(default=None, repr=False)
    _cursor_wanted: bool = field(default=False, repr=False)
    _cursor_before_suspend: bool = field(default=False, repr=False)
    show_progress: bool = False
    """``terminal.showTerminalProgress`` (pi 1.6.0, off by default)."""
    _busy: bool = field(default=False, repr=False)

    @staticmethod
    def driver_class(default: type[Driver]) -> type[Driver]:
        """Textual's choice of driver, except that its Linux driver becomes ``QuietLinuxDriver``
        (no input polling while idle, issue 20; imported only then: it needs ``termios``)."""
        if default.__module__ == "textual.drivers.linux_driver" and default.__name__ == "LinuxDriver":
            from pi_app.tui.terminal.driver import QuietLinuxDriver

            return QuietLinuxDriver
        return default

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> TerminalSetup:
        """No probe (tests, non-TTY runs): the environment decides."""
        return cls(detect_capabilities(env), ProbeResult(), hardware_cursor=hardware_cursor_requested(env))

    @classmethod
    def detect(cls, *, show_images: bool = True, hardware_cursor: bool = False) -> TerminalSetup:
        probe = probe_terminal()
        capabilities = merge_probe(detect_capabilities(), probe)
        return cls(capabilities, probe, show_images, hardware_cursor_requested(setting=hardware_cursor))

    def image_mode(self) -> Literal["kitty", "cells", "text"]:
        return image_mode(self.capabilities, self.show_images)

    def attach(self, app: App[Any], transcript: Transcript) -> None:
        from pi_app.tui.terminal.images import DEFAULT_CELL_SIZE, ImageRenderer

        driver = app._driver
        write = driver.write if driver is not None and not app.is_headless else None
        self.renderer = ImageRenderer(
            self.image_mode(), write=write, cell_size=self.probe.cell_size or DEFAULT_CELL_SIZE
        )
        transcript.images = self.renderer
        self._transcript = transcript
        replay_input(app, self.probe.stray)
        if write is None:
            return
        self.modes = TerminalModes(write)
        if wants_modify_other_keys(self.probe):
            self.modes.enable_modify_other_keys()
        self.modes.enable_color_scheme_reports()
        self.show_hardware_cursor(self._cursor_wanted)
        # immediate: the modes must be undone before SIGTSTP stops the process, not after it resumes
        app.app_suspend_signal.subscribe(app, lambda _app: self._suspend(), immediate=True)
        app.app_resume_signal.subscribe(app, self._resume, immediate=True)

    def show_hardware_cursor(self, visible: bool) -> None:
        """R-IME-03: show the terminal cursor at the caret (only when requested)."""
        self._cursor_wanted = visible  # applied by attach() when the editor was focused first
        if self.modes is not None:
            self.modes.show_cursor(visible and self.hardware_cursor)

    def set_busy(self, busy: bool) -> None:
        """The agent started or stopped working: the tab progress follows when it is enabled."""
        self._busy = busy
        if self.modes is not None:
            self.modes.set_progress(busy and self.show_progress)

    def _suspend(self) -> None:
        if self.modes is not None:
            self._cursor_before_suspend = self.modes.cursor_visible
            self.modes.restore()

    def _resume(self, app: App[Any]) -> None:
        # the terminal shows whatever the shell left on the main screen's twin: paint it all again
        app.refresh(layout=True)
        if self.modes is None:
            return
        if wants_modify_other_keys(self.probe):
            self.modes.enable_modify_other_keys()
        self.modes.enable_color_scheme_reports()
        if self._cursor_before_suspend:
            self.modes.show_cursor(True)
        self.modes.set_progress(self._busy and self.show_progress)

    def restore_after_crash(self, write: Callable[[str], None] | None = None) -> None:
        """Undo the modes still switched on after the app is gone (it died before unmounting).

        Writes straight to the terminal (stdout by default): the driver is stopped by now.
        """
        if self.modes is None or not (
            self.modes.modify_other_keys or self.modes.cursor_visible or self.modes.progress
        ):
            return
        self.modes.restore(write or _write_stdout)

    def detach(self) -> None:
        """Free terminal-side images and restore every mode we switched (every exit path)."""
        transcript = self._transcript
        if transcript is not None:
            transcript.release_images()
        if self.modes is not None:
            self.modes.restore()
        if self.renderer is not None:
            self.renderer.write = None
