"""pi 1.6.0's ``outputPad`` and ``markdown.codeBlockIndent`` change how blocks are drawn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pi_app.tui.theme.themes import builtin_theme
from pi_app.tui.transcript.blocks import layout
from pi_app.tui.transcript.blocks.md_render import render_markdown_strips
from pi_app.tui.transcript.blocks.text import UserBlock


@pytest.fixture(autouse=True)
def _restore_layout() -> Iterator[None]:
    yield
    layout.configure(output_pad=1, code_block_indent="  ")


def _text(strip) -> str:  # type: ignore[no-untyped-def]
    return "".join(segment.text for segment in strip)


def test_output_pad_one_is_the_default_and_zero_removes_the_padding() -> None:
    theme = builtin_theme("dark")
    padded = [_text(s) for s in UserBlock("hello").build(20, theme)]
    assert padded[2].startswith(" hello")
    layout.configure(output_pad=0)
    flush = [_text(s) for s in UserBlock("hello").build(20, theme)]
    assert flush[2].startswith("hello") and len(flush[2]) == 20


def test_code_block_indent_prefixes_every_code_line() -> None:
    theme = builtin_theme("dark")
    text = "```\nprint(1)\nprint(2)\n```"
    default = [_text(s) for s in render_markdown_strips(text, 40, theme)]
    assert default[1:3] == ["  print(1)", "  print(2)"]
    layout.configure(code_block_indent="| ")
    custom = [_text(s) for s in render_markdown_strips(text, 40, theme)]
    assert custom[1:3] == ["| print(1)", "| print(2)"]
    layout.configure(code_block_indent="")
    assert [_text(s) for s in render_markdown_strips(text, 40, theme)][1] == "print(1)"


async def test_show_cache_miss_notices_warns_in_the_transcript(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pi_app.ai.testing import text, usage
    from tests.tui.helpers import wait_for
    from tests.tui.test_app_flows import make_app, notes, started

    script = [
        [text("first"), usage(input=1000, cache_read=50_000)],
        [text("second"), usage(input=52_000, cache_read=0)],
    ]
    for enabled in (True, False):
        app, _ = make_app(tmp_path, script, settings={"showCacheMissNotices": enabled})
        async with app.run_test(size=(100, 30)) as pilot:
            await started(pilot, app)
            for prompt, answer in (("one", "first"), ("two", "second")):
                await pilot.press(*prompt, "enter")
                await wait_for(pilot, lambda answer=answer, app=app: answer in notes(app))
            await pilot.pause(0.2)
            assert ("Cache miss: 51k prompt tokens billed again" in notes(app)) is enabled
