"""LaTeX math to one line of Unicode text: ``\\alpha + \\beta \\le \\sqrt{x_1^2}`` -> ``α + β ≤ √x₁²``.

Parsing is pylatexenc's (a maintained LaTeX parser, pure Python, MIT; imported only when a reply
contains math); its latex2text tables give the symbol of each macro (``\\le`` -> ``≤``,
``\\mathbb{R}`` -> ``ℝ``). On top of them this module lays out what those tables leave as
``x^2`` or ``a/b`` without grouping: scripts become Unicode superscripts and subscripts when every
character has one (``x^{-1}`` -> ``x⁻¹``) and ``^(…)`` / ``_(…)`` otherwise; ``\\frac`` becomes
``a/b`` with parentheses around a part of several terms; ``\\sqrt`` becomes ``√x`` or ``√(…)``;
``\\left`` / ``\\right`` and spacing macros disappear.

``latex_to_unicode`` returns None for anything it cannot draw faithfully — a macro the tables do
not know, an environment (matrices, ``align``), a parse error, unbalanced braces — and the caller
shows the LaTeX source instead (issue 17: degrade to the plain block).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rich.cells import cell_len

SUPERSCRIPTS = dict(
    zip(
        "0123456789+-−=()niabcdefghjklmoprstuvwxyzABDEGHIJKLMNOPRTUVW",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
        strict=True,
    )
)
SUPERSCRIPTS.update({"′": "′", "∗": "*", "*": "*", "'": "′"})
SUBSCRIPTS = dict(
    zip("0123456789+-−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True)
)

_FRACTIONS = frozenset({"frac", "dfrac", "tfrac", "cfrac"})
_DROPPED = frozenset(
    {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle"}
)
_SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "quad": "  ", "qquad": "   "}
_TEXT_ARG = frozenset(
    {
        "text",
        "textrm",
        "textit",
        "textbf",
        "mathrm",
        "mathit",
        "mathbf",
        "mathsf",
        "mathtt",
        "operatorname",
        "boldsymbol",
    }
)
_OPERATORS = re.compile(r"[\s+\-−=<>±∓,/·×≤≥≠≈]")


class _CannotDraw(Exception):
    """Something this renderer does not know: show the source."""


@lru_cache(maxsize=1)
def _tables() -> tuple[Any, Any]:
    from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

    return get_default_latex_context_db(), LatexNodes2Text(math_mode="text")


def latex_to_unicode(source: str) -> str | None:
    """One line of Unicode for the math ``source`` (no ``$``), or None when it cannot be drawn."""
    text = source.strip()
    if not text or "\n\n" in text:
        return None
    try:
        from pylatexenc.latexwalker import LatexWalker, LatexWalkerError

        walker = LatexWalker(text, tolerant_parsing=False)
        nodes, _pos, _len = walker.get_latex_nodes()
        out = _Converter().nodes(nodes)
    except (_CannotDraw, LatexWalkerError, IndexError, ValueError, TypeError):
        return None
    out = re.sub(r" {2,}", " ", out.replace("\n", " ")).strip()
    return out or None


def _script(text: str, table: dict[str, str], mark: str) -> str:
    compact = text.replace(" ", "")
    if compact and all(ch in table for ch in compact):
        return "".join(table[ch] for ch in compact)
    if len(compact) == 1:
        return mark + compact
    return f"{mark}({compact})"


def _several_terms(text: str) -> bool:
    """An operator or a space outside any parentheses (``n(n+1)`` is one term, ``n+1`` two)."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and _OPERATORS.match(ch):
            return True
    return False


def _grouped(text: str) -> str:
    """``text`` as one operand of ``/``: parenthesised when it has several terms."""
    stripped = text.strip()
    return f"({stripped})" if _several_terms(stripped) else stripped


def _tokens(nodes: list[Any]) -> list[Any]:
    """The nodes with each character of a text run on its own (a ``str``), comments dropped."""
    out: list[Any] = []
    for node in nodes or []:
        kind = type(node).__name__
        if kind == "LatexCharsNode":
            out.extend(node.chars)
        elif kind != "LatexCommentNode":
            out.append(node)
    return out


class _Converter:
    def nodes(self, nodes: list[Any]) -> str:
        return self.tokens(_tokens(nodes))

    def tokens(self, tokens: list[Any]) -> str:
        out: list[str] = []
        pending: str | None = None  # "^" or "_" waiting for its argument
        for token in tokens:
            if isinstance(token, str):
                if pending is not None:
                    if token.isspace():
                        continue
                    out.append(self._apply(pending, token))
                    pending = None
                elif token in "^_":
                    pending = token
                elif token in "{}$\\":
                    raise _CannotDraw(token)
                else:
                    out.append(token)
                continue
            text = self.node(token)
            if pending is not None:
                out.append(self._apply(pending, text))
                pending = None
            else:
                out.append(text)
        if pending is not None:
            raise _CannotDraw("script without an argument")
        return "".join(out)

    def _apply(self, mark: str, text: str) -> str:
        after = " " if text.endswith(" ") else ""  # a macro's trailing space stays after the script
        return _script(text.strip(), SUPERSCRIPTS if mark == "^" else SUBSCRIPTS, mark) + after

    def node(self, node: Any) -> str:
        kind = type(node).__name__
        if kind == "LatexGroupNode":
            return self.nodes(node.nodelist)
        if kind == "LatexMacroNode":
            return self.macro(node)
        if kind == "LatexSpecialsNode":
            if node.specials_chars == "~":
                return " "
            raise _CannotDraw(node.specials_chars)
        raise _CannotDraw(kind)  # environments, nested math

    def _args(self, node: Any) -> list[Any]:
        argd = getattr(node, "nodeargd", None)
        return list(argd.argnlist) if argd is not None and argd.argnlist else []

    def _arg_text(self, arg: Any) -> str:
        if arg is None:
            return ""
        return self.node(arg) if type(arg).__name__ != "LatexCharsNode" else self.nodes([arg])

    def macro(self, node: Any) -> str:
        name = node.macroname
        post = " " if node.macro_post_space else ""
        args = self._args(node)
        if name in _DROPPED:
            return ""
        if name in _SPACES:
            return _SPACES[name]
        if name in _FRACTIONS:
            if len(args) < 2 or args[0] is None or args[1] is None:
                raise _CannotDraw(name)
            top, bottom = self._arg_text(args[0]), self._arg_text(args[1])
            return f"{_grouped(top)}/{_grouped(bottom)}{post}"
        if name == "sqrt":
            body = self._arg_text(args[-1] if args else None)
            if not body:
                raise _CannotDraw(name)
            index = self._arg_text(args[0]) if len(args) > 1 and args[0] is not None else ""
            root = {"3": "∛", "4": "∜"}.get(index, (_script(index, SUPERSCRIPTS, "^") if index else "") + "√")
            inner = body.strip()
            return root + (f"({inner})" if _several_terms(inner) else inner) + post
        if name in _TEXT_ARG:
            return "".join(self._arg_text(a) for a in args if a is not None) + post
        db, to_text = _tables()
        spec = db.get_macro_spec(name)
        if spec is None:
            raise _CannotDraw(name)
        repl = spec.simplify_repl
        if isinstance(repl, str) and "%" not in repl:
            return repl + post
        if repl is None and not args:
            raise _CannotDraw(name)
        return str(to_text.node_to_text(node))


# -- display formulas ($$…$$): fractions stacked, limits above and below ------------------------

_BIG_OPERATORS = {
    "sum": "∑",
    "prod": "∏",
    "coprod": "∐",
    "bigcup": "⋃",
    "bigcap": "⋂",
    "bigoplus": "⨁",
    "bigotimes": "⨂",
    "lim": "lim",
    "max": "max",
    "min": "min",
    "sup": "sup",
    "inf": "inf",
}


class _Box:
    """Lines of equal width and the row that lines up with the text around it."""

    def __init__(self, lines: list[str], baseline: int = 0) -> None:
        width = max((cell_len(line) for line in lines), default=0)
        self.lines = [line + " " * (width - cell_len(line)) for line in lines]
        self.baseline = baseline
        self.width = width


def _centre(text: str, width: int) -> str:
    gap = width - cell_len(text)
    return " " * (gap // 2) + text + " " * (gap - gap // 2)


def _join(boxes: list[_Box]) -> _Box:
    above = max((b.baseline for b in boxes), default=0)
    below = max((len(b.lines) - b.baseline - 1 for b in boxes), default=0)
    rows = ["" for _ in range(above + below + 1)]
    for box in boxes:
        top = above - box.baseline
        for r in range(len(rows)):
            i = r - top
            rows[r] += box.lines[i] if 0 <= i < len(box.lines) else " " * box.width
    return _Box(rows, above)


def _stack(top: str, middle: str, bottom: str, rule: bool) -> _Box:
    width = max(cell_len(top), cell_len(middle), cell_len(bottom))
    lines = [_centre(top, width)] if top else []
    lines.append("─" * width if rule else _centre(middle, width))
    lines += [_centre(bottom, width)] if bottom else []
    return _Box(lines, 1 if top else 0)


def latex_to_lines(source: str) -> list[str] | None:
    """A display formula laid out over several lines (``\\frac`` stacked over a rule, limits of
    ``\\sum``/``\\prod``/``\\lim`` above and below), or None when it cannot be drawn that way; a
    formula with neither is its one-line form. Nested fractions stay ``a/b`` inside."""
    one_line = latex_to_unicode(source)
    if one_line is None:
        return None
    try:
        from pylatexenc.latexwalker import LatexWalker, LatexWalkerError

        nodes, _pos, _len = LatexWalker(source.strip(), tolerant_parsing=False).get_latex_nodes()
        box = _display(_tokens(nodes))
    except (_CannotDraw, LatexWalkerError, IndexError, ValueError, TypeError):
        return [one_line]
    if box is None:
        return [one_line]
    lines = [line.rstrip() for line in box.lines]
    return lines


def _script_arg(tokens: list[Any], j: int) -> tuple[Any, int]:
    while j < len(tokens) and isinstance(tokens[j], str) and tokens[j].isspace():
        j += 1
    if j >= len(tokens):
        raise _CannotDraw("script without an argument")
    return tokens[j], j + 1


def _display(tokens: list[Any]) -> _Box | None:
    """The 2D box of a token run, or None when nothing in it is drawn in 2D."""
    convert = _Converter()
    boxes: list[_Box] = []
    run: list[Any] = []
    drawn = False
    tall: set[int] = set()  # indices of 2D boxes in ``boxes``

    def add_tall(box: _Box) -> None:
        if boxes and len(boxes) - 1 in tall:
            boxes.append(_Box([" "]))  # two stacked parts side by side keep a gap
        tall.add(len(boxes))
        boxes.append(box)

    def flush() -> None:
        if run:
            text = re.sub(r" {2,}", " ", convert.tokens(run))
            boxes.append(_Box([text]))
            run.clear()

    j = 0
    while j < len(tokens):
        token = tokens[j]
        name = getattr(token, "macroname", None) if not isinstance(token, str) else None
        if name in _BIG_OPERATORS:
            flush()
            limits = {"^": "", "_": ""}
            j += 1
            while True:
                k = j
                while k < len(tokens) and isinstance(tokens[k], str) and tokens[k].isspace():
                    k += 1
                if (
                    k < len(tokens)
                    and isinstance(tokens[k], str)
                    and tokens[k] in "^_"
                    and not limits[tokens[k]]
                ):
                    arg, j = _script_arg(tokens, k + 1)
                    limits[tokens[k]] = convert.tokens([arg]).strip()
                    continue
                break
            if limits["^"] or limits["_"]:
                add_tall(_stack(limits["^"], _BIG_OPERATORS[name], limits["_"], rule=False))
                drawn = True
            else:
                run.append(token)
            continue
        if name in _FRACTIONS:
            args = convert._args(token)
            if len(args) < 2 or args[0] is None or args[1] is None:
                raise _CannotDraw(name)
            flush()
            top, bottom = convert._arg_text(args[0]).strip(), convert._arg_text(args[1]).strip()
            add_tall(_stack(top, "", bottom, rule=True))
            drawn = True
            j += 1
            continue
        run.append(token)
        j += 1
    flush()
    return _join(boxes) if drawn else None
