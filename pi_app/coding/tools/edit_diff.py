"""The edit engine: fuzzy matching, multi-edit application and diffs (spec 50 R-EDIT-07..19).

Pure functions over LF-normalised text, reused by the ``edit`` tool, by extensions and by the TUI's
pre-execution preview (``compute_edits_diff`` lives in ``edit.py`` because it needs file access).

Matching is exact first; only when some ``oldText`` is not found verbatim are *all* edits matched in
the fuzzy-normalised space (NFKC, trailing whitespace, quotes, dashes, special spaces). Uniqueness
is always judged in the normalised space. Fuzzy application rewrites only the lines a replacement
touches, so every other line keeps its original bytes. Normalisation works line by line, which
guarantees the original and the normalised text have the same number of lines.

``difflib`` is imported where a diff or a closest-match hint is computed: every session imports this
module (the ``edit`` tool's definition), few start-ups run an edit.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

_FUZZY_CHARS = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys([*map(chr, range(0x2010, 0x2016)), "\u2212"], "-"),
    **dict.fromkeys(["\u00a0", *map(chr, range(0x2002, 0x200B)), "\u202f", "\u205f", "\u3000"], " "),
}
_FUZZY_CHAR_RE = re.compile("[" + "".join(_FUZZY_CHARS) + "]")


class EditError(ValueError):
    """An edit could not be applied; the message is meant for the model."""


@dataclass
class Edit:
    old_text: str
    new_text: str


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def detect_line_ending(text: str) -> str:
    """``"\\r\\n"`` if the first line break is CRLF, else ``"\\n"``."""
    first_lf = text.find("\n")
    if first_lf > 0 and text[first_lf - 1] == "\r":
        return "\r\n"
    return "\n"


def _strip_trailing(line: str) -> str:
    """Drop trailing Unicode whitespace, U+FEFF included (``str.rstrip`` alone keeps it)."""
    line = line.rstrip()
    while line.endswith("\ufeff"):
        line = line[:-1].rstrip()
    return line


def normalize_for_fuzzy_match(text: str) -> str:
    """NFKC, strip trailing whitespace per line, straighten quotes/dashes, plain spaces.

    Works on the whole text at once (``"\n"`` is a normalisation boundary, so this equals doing it
    line by line) and never adds or removes a ``"\n"``.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = "\n".join([_strip_trailing(line) for line in text.split("\n")])
    if text.isascii():
        return text
    return _FUZZY_CHAR_RE.sub(lambda m: _FUZZY_CHARS[m.group()], text)


@dataclass
class FuzzyMatch:
    found: bool
    index: int = -1
    length: int = 0
    fuzzy: bool = False


def fuzzy_find_text(content: str, old_text: str) -> FuzzyMatch:
    index = content.find(old_text)
    if index >= 0:
        return FuzzyMatch(True, index, len(old_text), False)
    normalized_old = normalize_for_fuzzy_match(old_text)
    index = normalize_for_fuzzy_match(content).find(normalized_old)
    if index >= 0:
        return FuzzyMatch(True, index, len(normalized_old), True)
    return FuzzyMatch(False)


def _count(haystack: str, needle: str) -> int:
    return haystack.count(needle) if needle else 0


def _only_whitespace(text: str) -> bool:
    return normalize_for_fuzzy_match(text).strip("\n") == ""


@dataclass
class _Match:
    edit_index: int
    start: int
    length: int
    new_text: str


class _NotFound(Exception):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


_HINT_MAX_FILE_LINES = 50_000
_HINT_MAX_SHOWN = 6
_HINT_MIN_SIMILARITY = 0.6


def closest_match_hint(content: str, old_text: str) -> str:
    """``Closest match is around line N:`` plus a few numbered lines of the file, or "" (R-EDIT-12).

    Compares the first non-blank line of ``old_text`` with every line (whitespace-insensitive at
    the ends); skipped for very large files so a failing call stays cheap.
    """
    needle = next((line.strip() for line in old_text.split("\n") if line.strip()), "")
    lines = content.split("\n")
    if not needle or len(lines) > _HINT_MAX_FILE_LINES:
        return ""
    import difflib

    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(needle)
    best, best_ratio = -1, _HINT_MIN_SIMILARITY
    for number, line in enumerate(lines):
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() > best_ratio and matcher.quick_ratio() > best_ratio:
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = number, ratio
    if best < 0:
        return ""
    wanted = max(1, min(_HINT_MAX_SHOWN, old_text.strip("\n").count("\n") + 1))
    shown = lines[best : best + wanted]
    width = len(str(best + len(shown)))
    body = "\n".join(f"{best + 1 + k:>{width}}: {text}" for k, text in enumerate(shown))
    return f"\nClosest match is around line {best + 1}:\n{body}"


def _not_found(path: str, index: int, single: bool) -> EditError:
    if single:
        return EditError(
            f"Could not find the exact text in {path}. "
            "The old text must match exactly including all whitespace and newlines."
        )
    return EditError(
        f"Could not find edits[{index}] in {path}. "
        "The oldText must match exactly including all whitespace and newlines."
    )


def _duplicate(path: str, index: int, count: int, single: bool) -> EditError:
    if single:
        return EditError(
            f"Found {count} occurrences of the text in {path}. "
            "The text must be unique. Please provide more context to make it unique."
        )
    return EditError(
        f"Found {count} occurrences of edits[{index}] in {path}. "
        "Each oldText must be unique. Please provide more context to make it unique."
    )


def _locate(base: str, normalized_base: str, edits: list[Edit], path: str) -> list[_Match]:
    single = len(edits) == 1
    matches: list[_Match] = []
    for i, edit in enumerate(edits):
        if _only_whitespace(edit.old_text):
            # [DEV] R-EDIT-11: whitespace-only text is matched and counted exactly, never fuzzily.
            start, length = base.find(edit.old_text), len(edit.old_text)
            occurrences = _count(base, edit.old_text)
        else:
            found = fuzzy_find_text(base, edit.old_text)
            start, length = found.index, found.length
            occurrences = _count(normalized_base, normalize_for_fuzzy_match(edit.old_text))
        if start < 0:
            raise _NotFound(i)
        if occurrences > 1:
            raise _duplicate(path, i, occurrences, single)
        matches.append(_Match(i, start, length, edit.new_text))
    matches.sort(key=lambda m: m.start)
    for prev, cur in zip(matches, matches[1:], strict=False):
        if prev.start + prev.length > cur.start:
            raise EditError(
                f"edits[{prev.edit_index}] and edits[{cur.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    return matches


def _replace_all(text: str, matches: Sequence[_Match], offset: int = 0) -> str:
    for match in sorted(matches, key=lambda m: m.start, reverse=True):
        start = match.start - offset
        text = text[:start] + match.new_text + text[start + match.length :]
    return text


class _LineOffsets:
    """Where each ``"\n"``-separated line of a text starts (cumulative lengths, built in C)."""

    def __init__(self, text: str) -> None:
        self._cumulative = list(accumulate(map(len, text.split("\n"))))
        self._length = len(text)

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Offsets of lines ``first..last`` including the newline after ``last`` (if any)."""
        start = (self._cumulative[first - 1] + first) if first else 0
        end = self._cumulative[last] + last + 1
        return start, min(end, self._length)


def _apply_fuzzy(original: str, base: str, matches: list[_Match]) -> str:
    """Rewrite only the lines the replacements touch; the rest keep the original bytes."""
    base_offsets, orig_offsets = _LineOffsets(base), _LineOffsets(original)
    groups: list[tuple[int, int, list[_Match]]] = []
    for match in matches:  # sorted by position
        first = base.count("\n", 0, match.start)
        last = base.count("\n", 0, match.start + match.length - 1)
        if groups and first <= groups[-1][1]:
            g_first, g_last, members = groups[-1]
            groups[-1] = (g_first, max(g_last, last), [*members, match])
        else:
            groups.append((first, last, [match]))

    result = original
    for first, last, members in reversed(groups):
        b_start, b_end = base_offsets.span(first, last)
        o_start, o_end = orig_offsets.span(first, last)
        segment = _replace_all(base[b_start:b_end], members, offset=b_start)
        result = result[:o_start] + segment + result[o_end:]
    return result


def apply_edits_to_normalized_content(content: str, edits: Sequence[Edit], path: str) -> tuple[str, str]:
    """Apply ``edits`` to LF ``content``; returns ``(content, new_content)`` or raises ``EditError``."""
    edits = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    single = len(edits) == 1
    for i, edit in enumerate(edits):
        if not edit.old_text:
            if single:
                raise EditError(f"oldText must not be empty in {path}.")
            raise EditError(f"edits[{i}].oldText must not be empty in {path}.")

    needs_fuzzy = any(content.find(e.old_text) < 0 and not _only_whitespace(e.old_text) for e in edits)
    normalized = normalize_for_fuzzy_match(content)
    base = normalized if needs_fuzzy else content
    try:
        matches = _locate(base, normalized, edits, path)
    except _NotFound as missing:
        message = str(_not_found(path, missing.index, single))
        raise EditError(message + closest_match_hint(content, edits[missing.index].old_text)) from None
    new_content = _apply_fuzzy(content, base, matches) if needs_fuzzy else _replace_all(content, matches)

    if new_content == content:
        if single:
            raise EditError(
                f"No changes made to {path}. The replacement produced identical content. "
                "This might indicate an issue with special characters or the text not existing as expected."
            )
        raise EditError(f"No changes made to {path}. The replacements produced identical content.")
    return content, new_content


# --- diffs -----------------------------------------------------------------------------------------


Opcode = tuple[str, int, int, int, int]


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """``SequenceMatcher`` opcodes, computed only on the region between the common prefix and
    suffix (an edit of one line in a 400k-line file stays fast)."""
    import difflib

    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    middle = difflib.SequenceMatcher(
        None, a[prefix : len(a) - suffix], b[prefix : len(b) - suffix], autojunk=False
    )
    codes: list[Opcode] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        codes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        codes.append(("equal", len(a) - suffix, len(a), len(b) - suffix, len(b)))
    merged: list[Opcode] = []
    for code in codes:  # adjacent "equal" runs (prefix + first middle block) become one
        if merged and code[0] == "equal" and merged[-1][0] == "equal":
            last = merged.pop()
            code = ("equal", last[1], code[2], last[3], code[4])
        merged.append(code)
    return merged


def _hunks(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """Group changes with up to ``context`` unchanged lines around them (unified-diff hunks)."""
    if not codes or all(c[0] == "equal" for c in codes):
        return []
    codes = list(codes)
    if codes[0][0] == "equal":
        _tag, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if codes[-1][0] == "equal":
        _tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    hunks: list[list[Opcode]] = []
    current: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context and current:
            current.append(("equal", i1, i1 + context, j1, j1 + context))
            hunks.append(current)
            current = [("equal", i2 - context, i2, j2 - context, j2)]
            continue
        current.append((tag, i1, i2, j1, j2))
    if current and not (len(current) == 1 and current[0][0] == "equal"):
        hunks.append(current)
    return hunks


def _split_keep(text: str) -> list[str]:
    return text.splitlines(keepends=True) if text else []


def _strip_eol(line: str) -> str:
    return line[:-1] if line.endswith("\n") else line


@dataclass
class LineDiff:
    """Both sides split into lines (newlines kept) and the opcodes between them."""

    old: str
    new: str
    old_lines: list[str]
    new_lines: list[str]
    opcodes: list[Opcode]

    @classmethod
    def of(cls, old: str, new: str) -> LineDiff:
        old_lines, new_lines = _split_keep(old), _split_keep(new)
        return cls(old, new, old_lines, new_lines, _opcodes(old_lines, new_lines))


def generate_diff_string(
    old: str, new: str, context_lines: int = 4, line_diff: LineDiff | None = None
) -> tuple[str, int | None]:
    """A line-numbered display diff and the new-file line number of the first change."""
    line_diff = line_diff or LineDiff.of(old, new)
    old_lines, new_lines, opcodes = line_diff.old_lines, line_diff.new_lines, line_diff.opcodes
    width = len(str(max(old.count("\n") + 1, new.count("\n") + 1)))
    out: list[str] = []
    first_changed: int | None = None
    elision = f" {' ' * width} ..."

    def context(i1: int, i2: int) -> None:
        for n in range(i1, i2):
            out.append(f" {n + 1:>{width}} {_strip_eol(old_lines[n])}")

    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            has_prev = k > 0
            has_next = k + 1 < len(opcodes)
            size = i2 - i1
            if has_prev and has_next:
                if size <= 2 * context_lines:
                    context(i1, i2)
                else:
                    context(i1, i1 + context_lines)
                    out.append(elision)
                    context(i2 - context_lines, i2)
            elif has_prev:
                context(i1, min(i2, i1 + context_lines))
                if size > context_lines:
                    out.append(elision)
            elif has_next:
                if size > context_lines:
                    out.append(elision)
                context(max(i1, i2 - context_lines), i2)
            continue
        if first_changed is None:
            first_changed = j1 + 1
        for n in range(i1, i2):
            out.append(f"-{n + 1:>{width}} {_strip_eol(old_lines[n])}")
        for n in range(j1, j2):
            out.append(f"+{n + 1:>{width}} {_strip_eol(new_lines[n])}")
    return "\n".join(out), first_changed


def _hunk_range(start: int, count: int) -> str:
    return f"{start + 1 if count else start},{count}"


def generate_unified_patch(
    path: str, old: str, new: str, context_lines: int = 4, line_diff: LineDiff | None = None
) -> str:
    """A standard unified diff (``--- path`` / ``+++ path``) that ``patch -p0`` / ``git apply`` accept."""
    line_diff = line_diff or LineDiff.of(old, new)
    old_lines, new_lines, opcodes = line_diff.old_lines, line_diff.new_lines, line_diff.opcodes
    out = [f"--- {path}", f"+++ {path}"]

    def emit(prefix: str, line: str) -> None:
        out.append(prefix + _strip_eol(line))
        if not line.endswith("\n"):
            out.append("\\ No newline at end of file")

    for group in _hunks(opcodes, context_lines):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_hunk_range(i1, i2 - i1)} +{_hunk_range(j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in old_lines[a1:a2]:
                    emit(" ", line)
                continue
            for line in old_lines[a1:a2]:
                emit("-", line)
            for line in new_lines[b1:b2]:
                emit("+", line)
    return "\n".join(out) + "\n"
