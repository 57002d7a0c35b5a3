"""Syntax highlighting with pygments, coloured by the theme's nine ``syntax*`` tokens (R-TR-07).

``highlight_lines(code, theme, language=None, filename=None)`` returns one ``rich.text.Text`` per
source line. The lexer comes from the language name (a code fence's info string) or the file
name (``read``/``write`` previews); unknown languages fall back to plain text in ``fallback``
(``mdCodeBlock`` for fences, ``toolOutput`` for tool previews). Lexers are cached by name.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from rich.style import Style
from rich.text import Text

from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

MAX_HIGHLIGHT_CHARS = 200_000
"""Longer inputs are shown plain: highlighting is for reading, not for megabyte dumps."""


@lru_cache(maxsize=128)
def _lexer_for(language: str | None, filename: str | None) -> Any:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        if language:
            return get_lexer_by_name(language.strip().split()[0].lower(), stripnl=False, ensurenl=False)
        if filename:
            return get_lexer_for_filename(filename, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return None


@cache  # asked for every token highlighted; pygments has a few dozen token types
def _token_name(token_type: Any) -> str | None:
    from pygments import token as t

    if token_type in t.Comment:
        return "syntaxComment"
    if token_type in t.Keyword.Type or token_type in t.Name.Builtin or token_type in t.Name.Class:
        return "syntaxType"
    if token_type in t.Keyword:
        return "syntaxKeyword"
    if token_type in t.Name.Function or token_type in t.Name.Decorator:
        return "syntaxFunction"
    if token_type in t.String:
        return "syntaxString"
    if token_type in t.Number:
        return "syntaxNumber"
    if token_type in t.Operator:
        return "syntaxOperator"
    if token_type in t.Punctuation:
        return "syntaxPunctuation"
    if token_type in t.Name.Variable or token_type in t.Name.Attribute or token_type in t.Name.Tag:
        return "syntaxVariable"
    return None


def highlight_lines(
    code: str,
    theme: BlockTheme,
    *,
    language: str | None = None,
    filename: str | None = None,
    fallback: str = "mdCodeBlock",
) -> list[Text]:
    lexer = _lexer_for(language, filename) if len(code) <= MAX_HIGHLIGHT_CHARS else None
    plain = fg(theme, fallback)
    if lexer is None:
        return [Text(line, plain) for line in code.split("\n")]
    base = fg(theme, "text")
    lines: list[Text] = [Text()]
    for token_type, value in lexer.get_tokens(code):
        name = _token_name(token_type)
        style: Style = fg(theme, name) if name else base
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append(Text())
            if part:
                lines[-1].append(part, style)
    if len(lines) > 1 and not lines[-1].plain and not code.endswith("\n"):
        lines.pop()
    return lines
