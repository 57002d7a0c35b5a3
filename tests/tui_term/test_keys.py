"""Key normalisation (spec 60 §2.3, R-KEY-02): raw terminal bytes through Textual's parser (with
the legacy additions of ``PiXTermParser``) and the normaliser give pi ``KeyId``s."""

from __future__ import annotations

import pytest
from textual import events

from pi_app.tui.input.keys import (
    KeyPress,
    PiXTermParser,
    install_key_parser,
    key_press,
    matches,
    normalize,
    parse_key_id,
    to_textual_key,
)

# (terminal family, raw bytes, expected KeyId)
RAW_SEQUENCES = [
    # Kitty keyboard protocol (CSI u), as kitty / Ghostty / WezTerm / foot send with flag 1
    ("kitty", "\x1b[13;2u", "shift+enter"),
    ("kitty", "\x1b[13;3u", "alt+enter"),
    ("kitty", "\x1b[13;5u", "ctrl+enter"),
    ("kitty", "\x1b[112;6u", "ctrl+shift+p"),
    ("kitty", "\x1b[45;5u", "ctrl+-"),
    ("kitty", "\x1b[93;5u", "ctrl+]"),
    ("kitty", "\x1b[93;7u", "ctrl+alt+]"),
    ("kitty", "\x1b[121;3u", "alt+y"),
    ("kitty", "\x1b[98;3u", "alt+b"),
    ("kitty", "\x1b[102;3u", "alt+f"),
    ("kitty", "\x1b[100;3u", "alt+d"),
    ("kitty", "\x1b[127;3u", "alt+backspace"),
    ("kitty", "\x1b[127;5u", "ctrl+backspace"),
    ("kitty", "\x1b[32;2u", "shift+space"),
    ("kitty", "\x1b[57414u", "enter"),  # keypad Enter
    ("kitty", "\x1b[97;65u", "a"),  # Caps Lock bit ignored
    ("kitty", "\x1b[99;133u", "ctrl+c"),  # Num Lock bit ignored
    # xterm modifyOtherKeys mode 2 (tmux with extended-keys)
    ("modifyOtherKeys", "\x1b[27;2;13~", "shift+enter"),
    ("modifyOtherKeys", "\x1b[27;3;13~", "alt+enter"),
    ("modifyOtherKeys", "\x1b[27;6;80~", "ctrl+shift+p"),
    ("modifyOtherKeys", "\x1b[27;5;45~", "ctrl+-"),
    # legacy xterm / VT sequences
    ("legacy", "\x1b[1;3A", "alt+up"),
    ("legacy", "\x1b[1;5D", "ctrl+left"),
    ("legacy", "\x1b[1;3C", "alt+right"),
    ("legacy", "\x1b[1;2H", "shift+home"),
    ("legacy", "\x1b[5;2~", "shift+pageUp"),
    ("legacy", "\x1b[6;2~", "shift+pageDown"),
    ("legacy", "\x1b[3;2~", "shift+delete"),
    ("legacy", "\x1b[Z", "shift+tab"),
    ("legacy", "\x1f", "ctrl+-"),
    ("legacy", "\x1d", "ctrl+]"),
    ("legacy", "\x1b\x1d", "ctrl+alt+]"),
    ("legacy", "\x1b\r", "alt+enter"),
    ("legacy", "\x1b\x7f", "alt+backspace"),
    ("legacy", "\x1by", "alt+y"),
    ("legacy", "\x1bb", "alt+b"),
    ("legacy", "\n", "ctrl+j"),
    ("legacy", "\r", "enter"),
    ("legacy", "\x7f", "backspace"),
    ("legacy", "\x1b[15~", "f5"),
]


def parse(raw: str) -> list[events.Key]:
    parser = PiXTermParser()
    return [e for e in [*parser.feed(raw), *parser.feed("")] if isinstance(e, events.Key)]


@pytest.mark.parametrize(
    ("family", "raw", "expected"), RAW_SEQUENCES, ids=[f"{f}:{e}" for f, _, e in RAW_SEQUENCES]
)
def test_raw_sequences_normalise_to_pi_key_ids(family: str, raw: str, expected: str) -> None:
    keys = parse(raw)
    assert [key_press(k).key_id for k in keys] == [expected]


def test_printable_text_keeps_its_character_and_shifted_letters_get_shift() -> None:
    assert normalize("a", "a") == KeyPress("a", "a")
    assert normalize("A", "A") == KeyPress("shift+a", "A")
    assert normalize("你", "你") == KeyPress("你", "你")
    assert normalize("question_mark", "?") == KeyPress("?", "?")
    assert normalize("ctrl+a", "\x01") == KeyPress("ctrl+a", None)
    assert normalize("alt+x", "x").character is None  # a modified key inserts nothing


def test_key_id_spellings_are_canonical_and_case_insensitive() -> None:
    assert parse_key_id("Shift+Ctrl+P") == "ctrl+shift+p"
    assert parse_key_id("ctrl+-") == "ctrl+-"
    assert parse_key_id("return") == "enter"
    assert parse_key_id("esc") == "escape"
    assert parse_key_id("shift+PageUp") == "shift+pageUp"
    assert parse_key_id("ctrl++") == "ctrl++"
    assert parse_key_id("hyper+x") is None
    assert parse_key_id("ctrl+nonsense") is None
    assert matches(KeyPress("ctrl+shift+p"), "shift+ctrl+p")


def test_key_ids_translate_to_textual_names_that_round_trip() -> None:
    assert to_textual_key("ctrl+-") == "ctrl+minus"
    assert to_textual_key("shift+ctrl+p") == "ctrl+shift+p"
    assert to_textual_key("ctrl+alt+]") == "alt+ctrl+right_square_bracket"
    assert to_textual_key("shift+pageUp") == "shift+pageup"
    assert to_textual_key("?") == "question_mark"
    for key_id in ("ctrl+-", "ctrl+alt+]", "shift+pageUp", "alt+enter", "f12", "ctrl+shift+p"):
        assert normalize(to_textual_key(key_id)).key_id == parse_key_id(key_id)


def test_install_key_parser_replaces_the_linux_driver_parser() -> None:
    from textual.drivers import linux_driver

    original = linux_driver.XTermParser
    try:
        assert install_key_parser()
        assert linux_driver.XTermParser is not original
        parser = linux_driver.XTermParser()
        keys = [e for e in [*parser.feed("\x1b[27;2;13~"), *parser.feed("")] if isinstance(e, events.Key)]
        assert [k.key for k in keys] == ["shift+enter"]
    finally:
        linux_driver.XTermParser = original


def test_late_probe_replies_are_not_typed() -> None:
    """A Device Attributes or Kitty-flags reply arriving after start-up is swallowed."""
    assert [k.key for k in parse("\x1b[?62;22cx\x1b[?1uy\x1b[6;18;9t")] == ["x", "y"]
