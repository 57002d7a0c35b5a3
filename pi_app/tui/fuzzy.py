"""Fuzzy matching shared by every picker: slash commands, models, settings, sessions (R-AC-10).

A query matches when its characters appear in order in the text (case-insensitive). The score is
lower for better matches: runs of consecutive characters and matches at word starts earn a bonus,
skipped characters and late matches cost a little. A query such as ``gpt4`` that fails is tried
once more with its letter and digit parts swapped (``4gpt``), at a small penalty. Several
whitespace-separated tokens must all match; their scores add up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

_BOUNDARY_BEFORE = frozenset(" \t-_./:")
_SPLIT_ALNUM = re.compile(r"^([a-z]+)([0-9]+)$|^([0-9]+)([a-z]+)$")
SWAP_PENALTY = 5.0


def _score_token(token: str, text: str) -> float | None:
    score = 0.0
    position = 0
    previous = -2
    run = 0
    for char in token:
        index = text.find(char, position)
        if index < 0:
            return None
        if index == previous + 1:
            run += 1
            score -= 5 * run
        else:
            run = 0
            if previous >= 0:
                score += 2 * (index - previous - 1)
        if index == 0 or text[index - 1] in _BOUNDARY_BEFORE:
            score -= 10
        score += 0.1 * index
        previous = index
        position = index + 1
    return score


def _token_score(token: str, text: str) -> float | None:
    score = _score_token(token, text)
    if score is not None:
        return score
    split = _SPLIT_ALNUM.match(token)
    if split is None:
        return None
    first, second = (split.group(1), split.group(2)) if split.group(1) else (split.group(3), split.group(4))
    swapped = _score_token(second + first, text)
    return None if swapped is None else swapped + SWAP_PENALTY


def fuzzy_score(query: str, text: str) -> float | None:
    """The score of ``text`` for ``query`` (lower is better), or None when it does not match."""
    tokens = query.lower().split()
    if not tokens:
        return 0.0
    lowered = text.lower()
    total = 0.0
    for token in tokens:
        score = _token_score(token, lowered)
        if score is None:
            return None
        total += score
    return total


def fuzzy_filter(items: Iterable[T], query: str, key: Callable[[T], str]) -> list[T]:
    """The items matching ``query``, best first; every item, unchanged, for an empty query."""
    items = list(items)
    if not query.strip():
        return items
    scored = []
    for order, item in enumerate(items):
        score = fuzzy_score(query, key(item))
        if score is not None:
            scored.append((score, order, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
