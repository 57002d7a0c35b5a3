"""Fuzzy matching, the one matcher of every picker and search (R-AC-10; issue 21).

Slash commands, ``/model`` and its completions, settings, thinking levels, every select list, the
``/resume`` session search and ``pi --list-models <search>`` all use it, as pi 1.6.0 uses its one
``fuzzyMatch`` everywhere.

A query matches when its characters appear in order in the text, case ignored; each character is
taken at its first occurrence after the previous one. The score is lower for better matches: a run
of consecutive characters earns more the longer it gets (a match at the very start of the text
counts as continuing a run, as in pi), a character at a word start (the text's start, or after white
space, ``-``, ``_``, ``.``, ``/`` or ``:``) earns a bonus, skipped characters and late matches cost a
little, and the whole text typed exactly earns most. A query such as ``gpt4`` that fails is tried
once more with its letter and digit parts swapped (``4gpt``), at a small penalty.

``fuzzy_score`` and ``fuzzy_filter`` take several whitespace-separated tokens, which must all match;
their scores add up. Unlike pi 1.6.0's filter they do not split at ``/``: ``/model fake/beta-2``
then offers no completion and Enter switches at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

_WORD_BREAK = frozenset("-_./:")
_SPLIT_ALNUM = re.compile(r"^([a-z]+)([0-9]+)$|^([0-9]+)([a-z]+)$")
SWAP_PENALTY = 5.0
EXACT_BONUS = 100.0


def _score(query: str, text: str) -> float | None:
    """``query``'s score in ``text`` (both lower-cased), or None when it does not match."""
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    score = 0.0
    position = 0
    previous = -1
    run = 0
    for char in query:
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
        if index == 0 or text[index - 1].isspace() or text[index - 1] in _WORD_BREAK:
            score -= 10
        score += 0.1 * index
        previous = index
        position = index + 1
    return score - EXACT_BONUS if query == text else score


def fuzzy_match(query: str, text: str) -> tuple[bool, float]:
    """Whether one token ``query`` matches ``text``, and its score (lower is better)."""
    lowered_query, lowered = query.lower(), text.lower()
    score = _score(lowered_query, lowered)
    if score is not None:
        return True, score
    split = _SPLIT_ALNUM.match(lowered_query)
    if split is not None:
        first, second = (
            (split.group(1), split.group(2)) if split.group(1) else (split.group(3), split.group(4))
        )
        swapped = _score(second + first, lowered)
        if swapped is not None:
            return True, swapped + SWAP_PENALTY
    return False, 0.0


def fuzzy_score(query: str, text: str) -> float | None:
    """The score of ``text`` for every token of ``query`` (lower is better), or None when one does
    not match; 0 for a blank query."""
    total = 0.0
    for token in query.split():
        matched, score = fuzzy_match(token, text)
        if not matched:
            return None
        total += score
    return total


def fuzzy_filter(items: Iterable[T], query: str, key: Callable[[T], str]) -> list[T]:
    """The items matching ``query``, best first (ties keep their order); every item, unchanged,
    for a blank query."""
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
