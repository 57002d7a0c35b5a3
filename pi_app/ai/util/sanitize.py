"""``sanitize_surrogates``: drop lone UTF-16 surrogates before text goes on the wire (R-AI-94)."""

from __future__ import annotations

import re

_SURROGATES = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Remove every code point in U+D800–U+DFFF; a valid emoji (one code point) is untouched."""
    if not text:
        return text
    return _SURROGATES.sub("", text)
