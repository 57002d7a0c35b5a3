"""Fuzzy text matching for selectors: every query character must appear in order.

``fuzzy_match(query, text)`` returns ``(matches, score)``; a lower score is a better match.
Consecutive characters and characters at word starts (after space, ``-``, ``_``, ``.``, ``/``,
``:``) score better, gaps and late matches worse, and an exact match best of all. A query such as
``gpt4`` that fails also gets a try as ``4gpt`` (letters and digits swapped), slightly penalised,
so model-like names match either way round. Case is ignored.
"""

from __future__ import annotations

import re

_WORD_BREAK = frozenset(" \t\n-_./:")
_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def _score(query: str, text: str) -> float | None:
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    qi, score, last, run = 0, 0.0, -1, 0
    for i, ch in enumerate(text):
        if qi == len(query):
            break
        if ch != query[qi]:
            continue
        if last == i - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or text[i - 1] in _WORD_BREAK:
            score -= 10
        score += i * 0.1
        last = i
        qi += 1
    if qi < len(query):
        return None
    return score - 100 if query == text else score


def fuzzy_match(query: str, text: str) -> tuple[bool, float]:
    q, t = query.lower(), text.lower()
    score = _score(q, t)
    if score is not None:
        return True, score
    swapped = _LETTERS_DIGITS.match(q) or _DIGITS_LETTERS.match(q)
    if swapped:
        score = _score(swapped.group(2) + swapped.group(1), t)
        if score is not None:
            return True, score + 5
    return False, 0.0
