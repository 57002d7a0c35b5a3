"""OSC 8 links on file paths in tool headers where the terminal shows them, and OSC 9;4 tab progress
while the agent works, cleared at the end, on exit and after a crash (issue 17, features)."""

from __future__ import annotations

import io
import threading
from pathlib import Path

from rich.console import Console

from pi_app.ai.testing import gate, text, tool_call
from pi_app.tui.terminal.hyperlinks import file_uri, hyperlinks_enabled, set_link_base
from pi_app.tui.terminal.probe import PROGRESS_BUSY, PROGRESS_CLEAR, TerminalModes, detect_capabilities
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK
from pi_app.tui.transcript.blocks.tool import ToolBlock
from pi_app.tui.transcript.blocks.tool_render import ToolView, header
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started


def _links(text) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(span.style.link) for span in text.spans if getattr(span.style, "link", None)]


def test_detection_follows_the_setting_then_the_terminal() -> None:
    kitty = detect_capabilities({"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"})
    plain = detect_capabilities({"TERM": "xterm"})
    assert hyperlinks_enabled("auto", kitty, {"TERM": "xterm-kitty"})
    assert not hyperlinks_enabled("auto", plain, {"TERM": "xterm"})
    assert hyperlinks_enabled(True, plain, {"TERM": "xterm"})
    assert not hyperlinks_enabled(False, kitty, {"TERM": "xterm-kitty"})
    tmux = {"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"}
    assert not hyperlinks_enabled("auto", kitty, tmux, probe_tmux=lambda: False)
    assert hyperlinks_enabled("auto", kitty, tmux, probe_tmux=lambda: True)
    assert not hyperlinks_enabled("auto", kitty, {"TERM": "screen-256color"})


def test_header_paths_link_only_while_links_are_on(tmp_path: Path) -> None:
    view = ToolView("read", {"path": "src/数据 1.py"})
    assert _links(header(view, FALLBACK_DARK)) == []
    try:
        set_link_base(str(tmp_path))
        shown = header(view, FALLBACK_DARK)
        assert shown.plain == "read src/数据 1.py"  # the text is unchanged
        assert _links(shown) == [(tmp_path / "src" / "数据 1.py").as_uri()]
        assert _links(header(ToolView("bash", {"command": "ls"}), FALLBACK_DARK)) == []
        assert _links(header(ToolView("ls", {}), FALLBACK_DARK)) == [tmp_path.as_uri()]
        assert file_uri("/etc/hosts", str(tmp_path)) == "file:///etc/hosts"
        # what the terminal receives: an OSC 8 around the path
        block = ToolBlock("c1", "edit", {"path": "/tmp/a.py"})
        out = io.StringIO()
        console = Console(file=out, force_terminal=True, color_system="truecolor", width=80)
        rendered = "".join(strip.render(console) for strip in block.render(80, FALLBACK_DARK))
        assert "\x1b]8;id=" in rendered and ";file:///tmp/a.py\x1b\\" in rendered
    finally:
        set_link_base(None)


async def test_the_app_links_tool_paths_when_the_setting_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    script = [[tool_call("read", {"path": "notes.txt"}, id="r1")], [text("Read it.")]]
    app, _ = make_app(tmp_path, script, settings={"terminal": {"hyperlinks": True}})
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"read", "enter")
        await wait_for(pilot, lambda: "Read it." in notes(app) and not app.is_working)
        tool = app.transcript.blocks_of(ToolBlock)[0]
        strips = tool.render(96, app.transcript.render_theme)
        links = {
            seg.style.link for strip in strips for seg in strip if seg.style is not None and seg.style.link
        }
        assert links == {(tmp_path / "notes.txt").as_uri()}


def test_modes_write_and_clear_progress() -> None:
    written: list[str] = []
    modes = TerminalModes(written.append)
    modes.set_progress(True)
    modes.set_progress(True)
    assert written == [PROGRESS_BUSY]
    modes.restore()  # exit, suspend and the crash path all restore
    assert written == [PROGRESS_BUSY, PROGRESS_CLEAR] and not modes.progress


async def test_progress_shows_while_working_and_clears_at_the_end_and_on_exit(tmp_path: Path) -> None:
    release = threading.Event()
    app, _ = make_app(
        tmp_path, [[gate(release), text("done")]], settings={"terminal": {"showTerminalProgress": True}}
    )
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        app.terminal.modes = TerminalModes(written.append)  # the headless driver has no terminal
        await pilot.press(*"work", "enter")
        await wait_for(pilot, lambda: app.is_working)
        assert written == [PROGRESS_BUSY]
        release.set()
        await wait_for(pilot, lambda: "done" in notes(app) and not app.is_working)
        assert written == [PROGRESS_BUSY, PROGRESS_CLEAR]
        app.terminal.set_busy(True)  # working when the app goes away
    assert written[-1] == PROGRESS_CLEAR


async def test_progress_is_off_by_default_and_a_crash_still_clears_it(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("done")]])
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        app.terminal.modes = TerminalModes(written.append)
        await pilot.press(*"work", "enter")
        await wait_for(pilot, lambda: "done" in notes(app) and not app.is_working)
        assert written == []  # 1.6.0's default: terminal.showTerminalProgress false
    crashed: list[str] = []
    modes = TerminalModes(crashed.append)
    modes.set_progress(True)
    app.terminal.modes = modes
    after: list[str] = []
    app.terminal.restore_after_crash(after.append)
    assert after == [PROGRESS_CLEAR]
