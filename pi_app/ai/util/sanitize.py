"""Lone UTF-16 surrogates (U+D800–U+DFFF on their own), which JSON ``\\uXXXX`` escapes, Python's
``surrogateescape`` and some models produce but UTF-8 cannot carry.

- ``sanitize_surrogates`` drops them before text goes to a provider (R-AI-94, as pi does).
- ``replace_lone_surrogates`` turns each into U+FFFD for everything pi writes or shows (session
  lines, JSON/RPC output, the screen); a high and a low surrogate side by side become the character
  they encode, as JavaScript would join them.
- ``clean_json_value`` applies that to every string (and key) of a decoded JSON value, and
  ``loads_clean`` is ``json.loads`` plus that walk, done only when the text could hold a surrogate.
- ``utf8`` encodes text for a byte stream without ever raising for a surrogate.

What a terminal may be shown is ``pi_app.terminal_text``'s job.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATES = re.compile("[\ud800-\udfff]")
# What in a JSON document can decode to a lone surrogate: an escape D800-DFFF or a raw one.
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Remove every code point in U+D800–U+DFFF; a valid emoji (one code point) is untouched."""
    if not text:
        return text
    return _SURROGATES.sub("", text)


def replace_lone_surrogates(text: str) -> str:
    """Each lone surrogate -> U+FFFD; an adjacent high+low pair -> the character it encodes."""
    if text.isascii() or _SURROGATES.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_json_value(value: Any) -> Any:
    """``value`` with :func:`replace_lone_surrogates` applied to every string and key in it."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, list):
        return [clean_json_value(v) for v in value]
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): clean_json_value(v) for k, v in value.items()}
    return value


def loads_clean(text: str) -> Any:
    """``json.loads(text)`` whose strings hold no lone surrogate (raises what ``json.loads`` raises)."""
    value = json.loads(text)
    # an ASCII document (most stream events) can hold a surrogate only as an escape: two substring
    # searches are several times cheaper than the regular expression, once per streamed delta
    if text.isascii() and "\\ud" not in text and "\\uD" not in text:
        return value
    if _MAYBE_SURROGATE.search(text) is not None:
        value = clean_json_value(value)
    return value


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates written as U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return replace_lone_surrogates(text).encode("utf-8")
