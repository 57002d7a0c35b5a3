"""Terminal capability detection and the pre-start probe (spec 60 §2.7, R-TERM-01…04)."""

from __future__ import annotations

import os
import pty
import threading

from pi_app.tui.terminal.probe import (
    DEVICE_ATTRIBUTES_QUERY,
    PROBE_QUERY,
    ProbeResult,
    TerminalCapabilities,
    TerminalModes,
    color_depth,
    detect_capabilities,
    image_mode,
    merge_probe,
    nearest_xterm256,
    parse_probe_replies,
    probe_query,
    probe_terminal,
    wants_modify_other_keys,
)


def caps(**env: str) -> TerminalCapabilities:
    return detect_capabilities(env)


def test_environment_detection_follows_the_spec_order() -> None:
    assert caps(KITTY_WINDOW_ID="1").images == "kitty"
    assert caps(TERM_PROGRAM="ghostty").kitty_placeholders
    assert caps(TERM="xterm-ghostty").images == "kitty"
    wezterm = caps(WEZTERM_PANE="0")
    assert wezterm.images == "kitty" and not wezterm.kitty_placeholders
    assert caps(TERM_PROGRAM="iTerm.app").images == "iterm2"
    assert caps(TERM_PROGRAM="vscode").images is None and caps(TERM_PROGRAM="vscode").true_color
    assert not caps(TERM="xterm-256color").true_color
    assert caps(TERM="xterm-256color", COLORTERM="truecolor").true_color
    under_tmux = caps(KITTY_WINDOW_ID="1", TMUX="/tmp/tmux-0/default,1,0")
    assert under_tmux.images is None and under_tmux.tmux


def test_image_mode_ladder() -> None:
    assert image_mode(caps(KITTY_WINDOW_ID="1")) == "kitty"
    assert image_mode(caps(WEZTERM_PANE="0")) == "cells"  # no placeholders
    assert image_mode(caps(TERM_PROGRAM="iTerm.app")) == "cells"  # D-39: no iTerm2 protocol
    assert image_mode(caps(KITTY_WINDOW_ID="1", TMUX="x")) == "cells"
    assert image_mode(caps(KITTY_WINDOW_ID="1"), show_images=False) == "text"
    assert image_mode(caps(TERM="dumb")) == "text"
    assert image_mode(caps(NO_COLOR="1", TERM="xterm")) == "text"


def test_colour_depth_and_xterm256_mapping() -> None:
    assert color_depth({"TERM": "screen-256color"}) == "256"
    assert color_depth({"TERM": "linux"}) == "256"
    assert color_depth({"TERM": "screen", "WT_SESSION": "1"}) == "truecolor"
    assert color_depth({"TERM": "xterm-256color"}) == "truecolor"
    assert nearest_xterm256("#ff0000") == 196
    assert nearest_xterm256("#000000") == 16
    assert nearest_xterm256("#808080") == 244  # grey ramp beats the cube
    assert nearest_xterm256("#5f87ff") == 69


def test_probe_replies_are_parsed_and_typed_keys_kept() -> None:
    replies = "x\x1b[?1u\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b]11;rgb:ffff/ffff/f0f0\x1b\\y\x1b[?62;22c"
    result = parse_probe_replies(replies)
    assert result.answered and result.kitty_keyboard == 1 and result.kitty_graphics
    assert result.cell_size == (10, 20)
    assert result.background == (255, 255, 240) and result.color_scheme == "light"
    assert result.stray == "xy"
    silent = parse_probe_replies("\x1b[?1;2c")
    assert silent.answered and silent.kitty_graphics is False and silent.kitty_keyboard is None
    assert wants_modify_other_keys(silent)  # with or without TMUX in the environment
    assert not wants_modify_other_keys(result)


def test_probe_refines_the_environment() -> None:
    kitty_env = caps(KITTY_WINDOW_ID="1")
    refused = merge_probe(kitty_env, parse_probe_replies("\x1b[?62c"))
    assert image_mode(refused) == "cells"
    unknown = merge_probe(caps(TERM="xterm"), parse_probe_replies("\x1b_Gi=31;OK\x1b\\\x1b[?62c"))
    assert unknown.images == "kitty" and image_mode(unknown) == "cells"  # placeholders unproven
    assert merge_probe(kitty_env, ProbeResult()) == kitty_env  # no TTY: environment decides


def _fake_terminal(master: int, answer: str, stop: threading.Event) -> None:
    received = b""
    while not stop.is_set() and PROBE_QUERY.encode() not in received:
        try:
            received += os.read(master, 1024)
        except OSError:
            return
    os.write(master, answer.encode())


def test_probe_talks_to_a_real_pseudo_terminal() -> None:
    master, slave = pty.openpty()
    stop = threading.Event()
    answer = "\x1b[?0u\x1b_Gi=31;OK\x1b\\\x1b[6;18;9t\x1b]11;rgb:0000/0000/0000\x07\x1b[?62;c"
    thread = threading.Thread(target=_fake_terminal, args=(master, answer, stop), daemon=True)
    thread.start()
    try:
        result = probe_terminal(slave, slave, timeout=2.0, env={"TERM": "xterm-256color"})
    finally:
        stop.set()
        thread.join(1)
        os.close(master)
        os.close(slave)
    assert result.answered and result.kitty_graphics and result.cell_size == (9, 18)
    assert result.color_scheme == "dark"


def test_probe_without_a_tty_is_empty(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open(tmp_path / "f", "w+") as handle:
        assert probe_terminal(handle.fileno(), handle.fileno()) == ProbeResult()


def test_terminal_modes_are_restored() -> None:
    written: list[str] = []
    modes = TerminalModes(written.append)
    modes.show_cursor(True)
    modes.show_cursor(True)
    modes.enable_modify_other_keys()
    modes.restore()
    assert written == ["\x1b[?25h", "\x1b[>4;2m", "\x1b[>4;0m", "\x1b[?25l"]


def test_modes_left_on_by_an_app_that_died_are_undone_with_a_plain_write() -> None:
    from pi_app.tui.terminal.probe import TerminalSetup

    setup = TerminalSetup.from_environment({})
    driver_writes: list[str] = []
    setup.modes = TerminalModes(driver_writes.append)
    setup.modes.enable_modify_other_keys()
    after: list[str] = []
    setup.restore_after_crash(after.append)  # on_unmount never ran: the driver is gone
    assert after == ["\x1b[>4;0m"] and driver_writes == ["\x1b[>4;2m"]
    setup.restore_after_crash(after.append)  # nothing left to undo
    assert after == ["\x1b[>4;0m"]


def test_no_graphics_query_where_an_apc_string_renames_the_pane() -> None:
    # issue 19, item 11d: tmux (even without TMUX, as under ``env -i``) titled the pane "Gi=31,…"
    for env in ({"TERM": "tmux-256color"}, {"TERM": "screen-256color"}, {"TERM": "xterm", "TMUX": "/t,1,0"}):
        assert "\x1b_G" not in probe_query(env), env
        assert probe_query(env).endswith(DEVICE_ATTRIBUTES_QUERY)  # DA1 still ends the wait
        assert caps(**env).tmux and image_mode(caps(**env)) == "cells"
    assert probe_query({"TERM": "xterm-kitty"}) == PROBE_QUERY


def test_color_scheme_reports_are_asked_for_and_switched_off_again() -> None:
    from pi_app.tui.terminal.probe import COLOR_SCHEME_REPORTS_OFF, COLOR_SCHEME_REPORTS_ON, TerminalModes

    written: list[str] = []
    modes = TerminalModes(written.append)
    modes.enable_color_scheme_reports()
    modes.enable_color_scheme_reports()
    modes.restore()
    assert written == [COLOR_SCHEME_REPORTS_ON, COLOR_SCHEME_REPORTS_OFF]
