"""Which characters are typed text (issue 17, defect 1). No Textual import.

Wider than ``str.isprintable``: the joiners and selectors inside grapheme clusters (ZWJ U+200D,
variation selectors, emoji tag characters), no-break spaces, private-use glyphs (Nerd Font icons)
and code points newer than Python's Unicode tables are all text a user typed or pasted. Only
controls (C0/C1), surrogates and the line/paragraph separators U+2028/U+2029 (which would split
the editor's lines) are not.
"""

from __future__ import annotations

import unicodedata

_NOT_TEXT_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def is_text(character: str | None) -> bool:
    """True when ``character`` is one code point of typed text."""
    return (
        character is not None
        and len(character) == 1
        and unicodedata.category(character) not in _NOT_TEXT_CATEGORIES
    )


def keep_text(text: str) -> str:
    """``text`` without the code points that are not text."""
    return "".join(ch for ch in text if is_text(ch))
