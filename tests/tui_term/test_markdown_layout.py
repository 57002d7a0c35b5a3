"""Markdown tables and nested lists laid out as pi 1.6.0 draws them (issue 17, defect 8): a space
of padding in every cell, a rule between body rows, a nested list four columns in."""

from __future__ import annotations

from pi_app.tui.transcript.blocks.md_render import render_markdown_strips
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK

TABLE = """| Name | Qty | Note |
|:-----|----:|:----:|
| apple | 3 | red fruit |
| banana | 12 | long yellow one |
| kiwi | 1 | x |
"""

LISTS = """- one
  - nested
    - deeper
- two

1. first
   1. sub
2. second

- one item with a long text that must wrap around the edge of the box because it is longer than sixty
  - nested
"""


def lines(markdown: str, width: int = 60) -> list[str]:
    return [strip.text.rstrip() for strip in render_markdown_strips(markdown, width, FALLBACK_DARK)]


def test_table_cells_are_padded_and_rows_ruled() -> None:
    assert lines(TABLE) == [
        "┌────────┬─────┬─────────────────┐",
        "│ Name   │ Qty │ Note            │",
        "├────────┼─────┼─────────────────┤",
        "│ apple  │ 3   │ red fruit       │",
        "├────────┼─────┼─────────────────┤",
        "│ banana │ 12  │ long yellow one │",
        "├────────┼─────┼─────────────────┤",
        "│ kiwi   │ 1   │ x               │",
        "└────────┴─────┴─────────────────┘",
    ]


def test_nested_lists_indent_four_columns_and_wrapped_text_stays_under_its_item() -> None:
    assert lines(LISTS) == [
        "- one",
        "    - nested",
        "        - deeper",
        "- two",
        "",
        "1. first",
        "    1. sub",
        "2. second",
        "",
        "- one item with a long text that must wrap around the edge",
        "  of the box because it is longer than sixty",
        "    - nested",
    ]
