"""``short_hash``: a short, deterministic, lowercase-alphanumeric digest for shortening ids (R-AI-98)."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def short_hash(text: str, length: int = 12) -> str:
    """Base-36 of the SHA-256 digest, at most ``length`` (≤ 16) characters of ``[0-9a-z]``."""
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:12], "big")
    digits = []
    while number:
        number, rest = divmod(number, 36)
        digits.append(_ALPHABET[rest])
    return ("".join(reversed(digits)) or "0")[: max(1, min(length, 16))]
