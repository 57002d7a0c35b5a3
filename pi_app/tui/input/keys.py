"""Key normalisation: Textual key events (and raw terminal sequences) to pi ``KeyId``s.

This is the only module that knows Textual's key names (``pageup``, ``minus``,
``right_square_bracket``, …; spec 60 §2.3, R-KEY-02). Everything else speaks pi's grammar:
modifiers ``ctrl``, ``alt``, ``shift`` then a key, canonically ordered ``ctrl+alt+shift+key``.

* ``normalize(key, character)`` / ``key_press(event)`` — a Textual ``Key`` event to a ``KeyPress``.
* ``parse_key_id(text)`` — any spelling (``Shift+Ctrl+P``, ``ctrl+-``, ``return``) to the
  canonical ``KeyId``; ``None`` when it is not a key.
* ``to_textual_key(key_id)`` — the Textual key string for ``Binding`` / ``set_keymap``.
* ``PiXTermParser`` — Textual's input parser plus the legacy encodings it loses (R-KEY-02):
  xterm ``modifyOtherKeys`` (``CSI 27 ; mod ; code ~``, what tmux sends with extended keys),
  ``ESC`` + control character pairs as ``alt+…`` (``ESC CR`` = ``alt+enter``, ``ESC DEL`` =
  ``alt+backspace``, ``ESC ^]`` = ``ctrl+alt+]``). ``install_key_parser()`` makes Textual's Linux
  driver use it; Kitty keyboard protocol sequences (``CSI … u``) pass through Textual unchanged.

Legacy ambiguities kept on purpose: ``^H`` stays ``backspace`` (some terminals send it for
Backspace itself; ``ctrl+backspace`` needs the Kitty protocol), and ``^_`` is ``ctrl+-`` (pi's
undo key; terminals send the same byte for ``ctrl+_`` and often ``ctrl+/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from textual import events
from textual._xterm_parser import XTermParser
from textual.keys import Keys, _character_to_key

from pi_app.tui.input.typed_text import is_text

# ``super`` (pi 1.6.0: ``super+k``, ``ctrl+super+k``) arrives only from terminals that report it
# separately (the Kitty keyboard protocol); hyper and meta are still dropped
MODIFIERS = ("ctrl", "alt", "shift", "super")
_IGNORED_MODIFIERS = {"hyper", "meta"}

NAMED_KEYS = {
    "escape": "escape",
    "esc": "escape",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "space": "space",
    "backspace": "backspace",
    "delete": "delete",
    "insert": "insert",
    "clear": "clear",
    "home": "home",
    "end": "end",
    "pageup": "pageUp",
    "pagedown": "pageDown",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 13)},
}

# Textual's names for symbol keys -> the symbol pi writes
SYMBOL_NAMES = {
    "grave_accent": "`",
    "minus": "-",
    "equals_sign": "=",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "comma": ",",
    "full_stop": ".",
    "slash": "/",
    "exclamation_mark": "!",
    "at": "@",
    "number_sign": "#",
    "dollar_sign": "$",
    "percent_sign": "%",
    "circumflex_accent": "^",
    "ampersand": "&",
    "asterisk": "*",
    "left_parenthesis": "(",
    "right_parenthesis": ")",
    "underscore": "_",
    "plus": "+",
    "vertical_line": "|",
    "tilde": "~",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
    "colon": ":",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "question_mark": "?",
    "quotation_mark": '"',
}
_SYMBOL_TO_NAME = {symbol: name for name, symbol in SYMBOL_NAMES.items()}
_PI_TO_TEXTUAL_NAMED = {"pageUp": "pageup", "pageDown": "pagedown"}


@dataclass(frozen=True)
class KeyPress:
    """A normalised key: the canonical pi ``KeyId`` and the text it would insert, if any."""

    key_id: str
    character: str | None = None


def _canonical(modifiers: Iterable[str], key: str) -> str:
    present = set(modifiers)
    return "+".join([m for m in MODIFIERS if m in present] + [key])


def _key_name(name: str) -> tuple[str, bool] | None:
    """pi's name for a Textual key name, and whether it implies shift (``P`` -> ``p``, True)."""
    if name in NAMED_KEYS:
        return NAMED_KEYS[name], False
    if name in SYMBOL_NAMES:
        return SYMBOL_NAMES[name], False
    if len(name) == 1:
        if "A" <= name <= "Z":
            return name.lower(), True
        if name.isalnum() or name in _SYMBOL_TO_NAME:
            return name.lower(), False
        return name, False
    return None


def normalize(key: str, character: str | None = None) -> KeyPress:
    """A Textual key string (plus the event's character) as a pi ``KeyPress``.

    Textual names most characters after their Unicode name (``fullwidth_comma``,
    ``grinning_face``); a name pi does not know that carries a text character is that character,
    so every typed character keeps its text (issue 17, defect 1).
    """
    parts = key.split("+")
    name, modifiers = parts[-1], [p for p in parts[:-1] if p not in _IGNORED_MODIFIERS]
    if key == "ctrl+underscore" and character == "\x1f":
        return KeyPress("ctrl+-")  # the legacy byte for ctrl+- (pi's undo)
    resolved = _key_name(name)
    if resolved is None:
        if not is_text(character):  # an unknown Textual name: keep it readable rather than drop it
            return KeyPress(_canonical(modifiers, name), None)
        assert character is not None
        resolved = character, False
    pi_key, shifted = resolved
    if shifted:
        modifiers.append("shift")
    text = character if is_text(character) and not set(modifiers) - {"shift"} else None
    return KeyPress(_canonical(modifiers, pi_key), text)


def key_press(event: events.Key) -> KeyPress:
    """``normalize`` for a ``textual.events.Key``."""
    return normalize(event.key, event.character)


def parse_key_id(text: str) -> str | None:
    """The canonical ``KeyId`` for any spelling of a key, or None if it is not one (§2.3)."""
    text = text.strip()
    if not text:
        return None
    if text.endswith("++"):  # "ctrl++": the key is "+"
        parts = [*text[:-2].split("+"), "+"]
    else:
        parts = text.split("+")
    *modifiers, key = parts
    modifiers = [m.lower() for m in modifiers]
    if any(m not in MODIFIERS for m in modifiers) or not key:
        return None
    lowered = key.lower()
    if lowered in NAMED_KEYS:
        name = NAMED_KEYS[lowered]
    elif lowered in ("pageup", "pagedown"):
        name = NAMED_KEYS[lowered]
    elif len(key) == 1 and (key.isalnum() and key.isascii() or key in _SYMBOL_TO_NAME):
        name = key.lower()
    else:
        return None
    return _canonical(modifiers, name)


def to_textual_key(key_id: str) -> str:
    """The Textual key string matching ``key_id`` (modifiers in Textual's alphabetical order)."""
    canonical = parse_key_id(key_id)
    if canonical is None:
        raise ValueError(f"not a key: {key_id!r}")
    if canonical.endswith("++"):
        modifiers, key = canonical[:-2].split("+") if canonical != "++" else [], "+"
    else:
        *modifiers, key = canonical.split("+")
    if key in _SYMBOL_TO_NAME:
        name = _SYMBOL_TO_NAME[key]
    else:
        name = _PI_TO_TEXTUAL_NAMED.get(key, key)
    return "+".join(sorted(m for m in modifiers if m) + [name])


def matches(press: KeyPress | str, key_id: str) -> bool:
    """True when ``press`` is the key ``key_id`` names (any spelling, case-insensitive)."""
    pressed = press.key_id if isinstance(press, KeyPress) else parse_key_id(press)
    return pressed is not None and pressed == parse_key_id(key_id)


# -- raw sequences ------------------------------------------------------------------------------

_MODIFY_OTHER_KEYS = re.compile(r"\x1b\[27;(\d+);(\d+)~")
# Replies to the start-up probe (terminal.py) that arrive late, e.g. over a slow ssh link:
# Device Attributes, Kitty keyboard flags, cell size. They must not be typed into the editor.
_LATE_REPLY = re.compile(r"\x1b\[\?[\d;]*[cu]|\x1b\[6;\d+;\d+t")
# DEC 2031 appearance reports (1 dark, 2 light), delivered to the app as these pseudo keys
_COLOR_SCHEME_REPORT = re.compile(r"\x1b\[\?997;([12])n")
COLOR_SCHEME_KEYS = {"1": "pi-color-scheme-dark", "2": "pi-color-scheme-light"}
_CONTROL_NAMES = {
    "\r": "enter",
    "\n": "enter",
    "\t": "tab",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\x1b": "escape",
}


def _textual_name(modifier_bits: int, codepoint: int) -> tuple[str, str | None]:
    """Textual's key string for an xterm modifier mask and key code (modifyOtherKeys)."""
    character = chr(codepoint)
    tokens = []
    if modifier_bits & 1:
        tokens.append("shift")
    if modifier_bits & 2:
        tokens.append("alt")
    if modifier_bits & 4:
        tokens.append("ctrl")
    if character in _CONTROL_NAMES or codepoint == 32:
        name = "space" if codepoint == 32 else _CONTROL_NAMES[character]
        text = None
    else:
        name = _character_to_key(character.lower() if "shift" in tokens else character)
        text = character if not modifier_bits & ~1 and is_text(character) else None
    return "+".join(sorted(tokens) + [name]), text


def legacy_key(sequence: str, alt: bool = False) -> tuple[str, str | None] | None:
    """Textual key string for the legacy encodings Textual drops, or None for everything else."""
    match = _MODIFY_OTHER_KEYS.fullmatch(sequence)
    if match:
        return _textual_name(int(match.group(1)) - 1, int(match.group(2)))
    if sequence.startswith("\x1b") and len(sequence) == 2:
        second = sequence[1]
        # ESC + letter is alt+letter (Textual maps ESC b / ESC f to ctrl+arrows); ESC O starts SS3
        if second.isascii() and second.isalnum() and second != "O":
            return (f"alt+shift+{second.lower()}" if second.isupper() else f"alt+{second}"), None
        sequence, alt = second, True
    if alt and len(sequence) == 1:
        if sequence in _CONTROL_NAMES and sequence != "\x1b":
            return f"alt+{_CONTROL_NAMES[sequence]}", None
        code = ord(sequence)
        if code < 32 and sequence not in _CONTROL_NAMES:
            return f"alt+ctrl+{_character_to_key(chr(code + 96 if code < 27 else code + 64).lower())}", None
    return None


class PiXTermParser(XTermParser):
    """Textual's input parser plus modifyOtherKeys and ESC-prefixed control keys."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if _LATE_REPLY.fullmatch(sequence):
            yield events.Key(Keys.Ignore, sequence)  # dropped by the parser
            return
        scheme = _COLOR_SCHEME_REPORT.fullmatch(sequence)
        if scheme is not None:
            yield events.Key(COLOR_SCHEME_KEYS[scheme.group(1)], None)
            return
        legacy = legacy_key(sequence, alt)
        if legacy is not None:
            yield events.Key(*legacy)
            return
        yield from super()._sequence_to_key_events(sequence, alt)


def install_key_parser() -> bool:
    """Make Textual's Linux driver parse input with ``PiXTermParser``; False where impossible.

    The driver builds its parser from the module-level name ``XTermParser`` inside its input
    thread, so replacing that name is the one seam (checked by a test against the pinned Textual).
    """
    try:
        from textual.drivers import linux_driver
    except ImportError:  # Windows
        return False
    linux_driver.XTermParser = PiXTermParser  # type: ignore[misc]  # replacing Textual's parser on purpose
    return True
