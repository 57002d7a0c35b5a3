"""Mermaid blocks drawn as diagrams and ``$…$`` math as Unicode, with the source on Ctrl+O and the
plain block for anything that cannot be drawn (issue 17, features)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.tui.transcript.blocks.diagrams import draw_mermaid, set_mermaid_mode
from pi_app.tui.transcript.blocks.math_text import latex_to_unicode
from pi_app.tui.transcript.blocks.md_render import SOURCE_ONLY, render_markdown_strips
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started

FLOW = "graph TD\n    A[开始，准备] --> B{Is it ok? 😀}\n    B -->|yes| C[Ship it]\n    B -->|no| D[Fix it]\n    D --> B"
REPLY = f"Plan：\n\n```mermaid\n{FLOW}\n```\n\nInline $E = mc^2$ and $$x_1^2$$, but $5 and $10 stay.\n\n$$\n\\sum_{{i=1}}^{{n}} i = \\frac{{n(n+1)}}{{2}}\n$$\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"E = mc^2", "E = mc²"),
        (r"\alpha + \beta \le \sqrt{x_1^2}", "α + β ≤ √x₁²"),
        (r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}", "∑ᵢ₌₁ⁿ i = n(n+1)/2"),
        (r"\frac{1}{x+1}", "1/(x+1)"),
        (r"\mathbb{R}^n \to \mathbb{R}", "ℝⁿ → ℝ"),
        (r"x^{2y+1}", "x²ʸ⁺¹"),
        (r"e^{i\pi}", "e^(iπ)"),
        (r"\sqrt[3]{8}", "∛8"),
        (r"\text{若 } x > 0", "若 x > 0"),
    ],
)
def test_latex_to_unicode(source: str, expected: str) -> None:
    assert latex_to_unicode(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"\frac{a+b}{2}", ["a+b", "───", " 2"]),
        (r"\lim_{h \to 0} \frac{1}{h}", ["      1", " lim  ─", "h → 0 h"]),
        (r"\frac{a}{b}\frac{c}{d}", ["a c", "─ ─", "b d"]),
        (r"E = mc^2", ["E = mc²"]),
        (r"x^{\frac{1}{2}}", ["x^(1/2)"]),
    ],
)
def test_display_formulas_stack_fractions_and_limits(source: str, expected: list[str]) -> None:
    from pi_app.tui.transcript.blocks.math_text import latex_to_lines

    assert latex_to_lines(source) == expected


@pytest.mark.parametrize(
    "source", [r"\frac{a}{b", r"\begin{pmatrix}1&2\end{pmatrix}", r"\unknownmacro{x}", "x^", "", "a & b"]
)
def test_what_cannot_be_drawn_is_none(source: str) -> None:
    assert latex_to_unicode(source) is None


def test_markdown_draws_mermaid_and_math_and_keeps_dollar_amounts() -> None:
    lines = [s.text.rstrip() for s in render_markdown_strips(REPLY, 90, FALLBACK_DARK)]
    joined = "\n".join(lines)
    assert "```mermaid" not in joined and "graph TD" not in joined
    assert any("开始，准备" in line and "│" in line for line in lines)  # a box around the CJK label
    assert "▼" in joined
    assert "Inline E = mc² and x₁², but $5 and $10 stay." in joined
    at = lines.index("   n      n(n+1)")  # a display formula: limits and the fraction stacked
    assert lines[at + 1 : at + 3] == ["   ∑  i = ──────", "  i=1       2"]
    narrow = [
        s.text.rstrip()
        for s in render_markdown_strips("$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$", 12, FALLBACK_DARK)
    ]
    assert "".join(narrow).replace(" ", "") == "∑ᵢ₌₁ⁿi=n(n+1)/2"  # too narrow to stack: one line, wrapped
    source = "\n".join(
        s.text.rstrip() for s in render_markdown_strips(REPLY, 90, FALLBACK_DARK, drawings=SOURCE_ONLY)
    )
    assert "```mermaid" in source and "graph TD" in source and "$E = mc^2$" in source and "\\frac" in source


def test_undrawable_mermaid_and_too_wide_diagrams_stay_code() -> None:
    bad = "```mermaid\nthis is not mermaid {{{\n```"
    assert "this is not mermaid" in "\n".join(s.text for s in render_markdown_strips(bad, 80, FALLBACK_DARK))
    wide = "graph LR\n" + "\n".join(
        f"    N{i}[a long label number {i}] --> N{i + 1}[a long label number {i + 1}]" for i in range(6)
    )
    assert draw_mermaid(wide, 40) is None
    assert draw_mermaid(FLOW, 80) is not None
    # an unclosed fence (still streaming) is never drawn
    assert "graph TD" in "\n".join(
        s.text for s in render_markdown_strips("```mermaid\n" + FLOW, 80, FALLBACK_DARK)
    )


async def test_reply_draws_and_ctrl_o_shows_the_source(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text(REPLY, chunks=6)]])
    async with app.run_test(size=(100, 50)) as pilot:
        await started(pilot, app)
        await pilot.press(*"draw", "enter")
        await wait_for(pilot, lambda: "stay" in notes(app) and not app.is_working)
        shown = notes(app)
        assert "开始，准备" in shown and "graph TD" not in shown and "E = mc²" in shown
        await pilot.press("ctrl+o")
        await pilot.pause()
        shown = notes(app)
        assert "```mermaid" in shown and "$E = mc^2$" in shown
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "graph TD" not in notes(app)


async def test_markdown_mermaid_off_keeps_the_code(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text(REPLY)]], settings={"markdown": {"mermaid": "off"}})
    try:
        async with app.run_test(size=(100, 50)) as pilot:
            await started(pilot, app)
            await pilot.press(*"draw", "enter")
            await wait_for(pilot, lambda: "stay" in notes(app) and not app.is_working)
            shown = notes(app)
            assert "graph TD" in shown and "E = mc²" in shown  # math is still drawn
    finally:
        set_mermaid_mode("streaming")
