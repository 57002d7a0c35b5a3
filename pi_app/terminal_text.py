"""Text safe to paint on a terminal (issue 19 item 5), importable by every layer at no cost.

Text that did not come from pi itself (model text and thinking, tool arguments, extension output)
must not drive the terminal. ``visible_controls`` replaces every C0/C1 control character except
newline and tab, and DEL, by a visible stand-in (ESC becomes ``␛``, so an OSC 52 clipboard write
shows as ``␛]52;c;…`` instead of running), and lone UTF-16 surrogates by U+FFFD. It lives outside
``pi_app.ai`` so the app's first frame can use it without loading the provider layer.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls (8-bit CSI/OSC), lone surrogates.
_TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ … ␛ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"  # a C1 control or a lone surrogate


def terminal_unsafe(text: str) -> bool:
    """True when ``text`` holds something :func:`visible_controls` would replace."""
    return not (text.isascii() and text.isprintable()) and _TERMINAL_UNSAFE.search(text) is not None


def visible_controls(text: str) -> str:
    """``text`` safe to show on a terminal: control characters (but ``\\n`` and ``\\t``) as visible
    stand-ins, ``\\r\\n`` as ``\\n``, lone surrogates as U+FFFD."""
    if not terminal_unsafe(text):
        return text
    return _TERMINAL_UNSAFE.sub(_stand_in, text.replace("\r\n", "\n"))
