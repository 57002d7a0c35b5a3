"""Leaving the app, and what the shell's screen shows once it has quit (issue 17, defect 6).

``leave`` is a user's quit (``/quit``, Ctrl+C twice, Ctrl+D, an extension's ``ctx.shutdown()``):
the extensions hear ``session_shutdown``, the farewell is prepared and the app exits.

pi 1.6.0 draws inline, so after ``/quit``, Ctrl+C twice or Ctrl+D the conversation is still on the
screen, followed by ``To resume this session:`` and ``pi --session <id>``. This app draws on the
alternate screen, which the terminal throws away on exit; so on a user's quit it renders the
transcript once more, as ANSI text at the width it was shown, and prints it on the normal screen
after Textual has restored the terminal (``run_interactive``). ``prepare_farewell`` gathers what
that needs while the app is still up: the session's id and file (asked on the agent loop), the
``fullscreenExitOutput`` setting and the colours the terminal shows.

Bounded on purpose: only the last ``MAX_LINES`` rendered lines are printed (the blocks are
rendered from the end backwards until that many are collected), so a ten-thousand-message session
quits as fast as a short one. The resume hint appears only when the session has a file on disk
(not with ``--no-session``, nor before the first answer, when nothing was written).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from rich.color import ColorSystem
from textual.strip import Strip

from pi_app.tui.terminal.probe import color_depth
from pi_app.tui.transcript.blocks.base import Block
from pi_app.tui.transcript.blocks.theme import BlockTheme

if TYPE_CHECKING:
    from textual.geometry import Size

    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.bridge.session import SessionBridge
    from pi_app.tui.terminal.probe import TerminalSetup
    from pi_app.tui.transcript.view import Transcript

MAX_LINES = 2000


def strip_to_ansi(strip: Strip, color_system: ColorSystem | None) -> str:
    """One rendered line as terminal text (plain when ``color_system`` is None)."""
    if color_system is None:
        return strip.text.rstrip()
    parts = []
    for segment in strip:
        text, style = segment.text, segment.style
        if segment.control:
            continue
        parts.append(style.render(text, color_system=color_system) if style else text)
    return "".join(parts)


def transcript_lines(
    blocks: Sequence[Block], width: int, theme: BlockTheme, color_system: ColorSystem | None
) -> list[str]:
    """The last ``MAX_LINES`` lines of ``blocks`` at ``width``, oldest first."""
    collected: list[list[Strip]] = []
    count = 0
    for block in reversed(blocks):
        strips = block.render(width, theme)
        collected.append(strips)
        count += len(strips)
        if count >= MAX_LINES:
            break
    strips = [strip for group in reversed(collected) for strip in group][-MAX_LINES:]
    return [strip_to_ansi(strip, color_system) for strip in strips]


def resume_hint(session_id: str | None, has_file: bool, session_dir: str | None = None) -> list[str]:
    """pi 1.6.0's two closing lines, when there is a session to resume. ``session_dir``: the
    session's folder when it is not the default one (``--session <file>``, ``--session-dir``,
    ``sessionDir``); ``pi --session <id>`` alone would not find it there."""
    if not session_id or not has_file:
        return []
    where = f"--session-dir {shlex.quote(session_dir)} " if session_dir else ""
    return ["To resume this session:", f"pi {where}--session {session_id}"]


def farewell_text(lines: Iterable[str]) -> str:
    text = "\n".join(lines)
    return text + "\n" if text else ""


class FarewellHost(Protocol):
    """What leaving and preparing the farewell need of the app."""

    session: AgentSession | None
    settings: SettingsManager | None
    bridge: SessionBridge
    terminal: TerminalSetup
    farewell: str
    """What ``run_interactive`` prints once the terminal is back."""

    def exit(self, result: int | None = None) -> None: ...

    @property
    def transcript(self) -> Transcript: ...
    @property
    def size(self) -> Size: ...


async def leave(app: FarewellHost) -> None:
    """Extensions hear ``session_shutdown`` (R-TUI-11), then the app exits with its farewell."""
    session = app.session
    if session is not None and session.extension_runner is not None:  # None: no extensions
        try:
            await app.bridge.request(lambda s: s.extension_runner.emit({"type": "session_shutdown"}))
        except Exception:
            pass
    app.farewell = await prepare_farewell(app)
    app.exit(0)


async def prepare_farewell(app: FarewellHost) -> str:
    """The conversation and the resume command, as ``run_interactive`` prints them once the
    terminal is back (``fullscreenExitOutput: resume-hint`` leaves the conversation out)."""
    session_id: str | None = None
    has_file = False
    session_dir: str | None = None
    if app.session is not None:
        try:  # "a file" in the session store's sense: a JSONL file or a row of the SQLite store
            session_id, has_file, session_dir = await app.bridge.request(
                lambda s: (
                    s.session_id,
                    bool(s.session_file) and s.session_manager.storage.exists(s.session_file or ""),
                    None
                    if s.session_manager.uses_default_session_dir()
                    else s.session_manager.get_session_dir(),
                )
            )
        except Exception:  # the agent loop is gone: the conversation is still worth printing
            pass
    transcript = app.transcript
    width = transcript.size.width or app.size.width or 80
    color_system = None
    if app.terminal.capabilities.has_color:
        color_system = (
            ColorSystem.TRUECOLOR if color_depth(os.environ) == "truecolor" else ColorSystem.EIGHT_BIT
        )
    lines: list[str] = []
    exit_output = app.settings.get_fullscreen_exit_output() if app.settings is not None else "transcript"
    if exit_output != "resume-hint":  # 1.6.0's fullscreenExitOutput
        lines = transcript_lines(transcript.blocks, width, transcript.render_theme, color_system)
    return farewell_text([*lines, *resume_hint(session_id, has_file, session_dir)])
