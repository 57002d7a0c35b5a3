"""The Line-API transcript: only changed blocks re-render, the view follows the tail, resizes
re-wrap lazily, broken blocks do not break the app (spec 60 R-TR-01…05, R-TUI-12)."""

from __future__ import annotations

from textual.strip import Strip

from pi_app.ai.types import AssistantMessage, TextContent
from pi_app.tui.transcript.blocks import Block
from pi_app.tui.transcript.blocks.theme import BlockTheme
from tests.tui_term.helpers import TranscriptApp, assistant, fill


async def test_streaming_into_500_messages_rerenders_only_the_streaming_message() -> None:
    """Issue acceptance 1: 1,000 chunks into a transcript of 500 messages."""
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        fill(transcript, 500)
        await pilot.pause()
        finished = list(transcript.blocks)
        before = {block.key: block.render_count for block in finished}
        assert sum(before.values()) > 0  # what is on screen was rendered

        message = AssistantMessage(content=[TextContent(text="")])
        transcript.start_assistant(message)
        chunks = [f"word{i} " if i % 40 else f"\n\nParagraph {i}: " for i in range(1000)]
        for i, chunk in enumerate(chunks):
            message.content[0].text += chunk
            transcript.update_assistant(message)
            if i % 25 == 0:
                await pilot.pause()
        transcript.end_assistant(message)
        await pilot.pause()

        after = {block.key: block.render_count for block in finished}
        assert after == before, "a finished message was rendered again while another streamed"
        streaming = transcript.blocks[-1]
        assert streaming.render_count > 1
        assert transcript.following
        assert transcript.scroll_offset.y == transcript.max_scroll_y
        shown = "\n".join(
            line.rstrip() for line in streaming.plain_lines(transcript._width, transcript.render_theme)
        )
        assert "word999" in shown and "Paragraph 960:" in shown


async def test_streaming_renders_stable_chunks_once() -> None:
    """R-TR-09: only the unstable tail is rendered again per update."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.transcript
        message = AssistantMessage(content=[TextContent(text="")])
        block = transcript.start_assistant(message)
        updates = 0
        for paragraph in range(40):
            for word in range(10):
                message.content[0].text += f"p{paragraph}w{word} "
                transcript.update_assistant(message)
                transcript.flush()
                updates += 1
            message.content[0].text += "\n\n"
        await pilot.pause()
        # every update renders the tail once; each of the 40 paragraphs is rendered once more as a
        # stable chunk — far fewer than re-rendering every paragraph on every update
        assert block.chunk_renders <= updates + 40 + 5


async def test_follow_mode_stops_when_scrolled_up_and_resumes_at_bottom() -> None:
    """R-TR-03 / spec scenario 2."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        fill(transcript, 60)
        await pilot.pause()
        assert transcript.following
        transcript.scroll_page_up_lines()
        await pilot.pause()
        assert not transcript.following
        parked = transcript.scroll_offset.y
        message = AssistantMessage(content=[TextContent(text="")])
        transcript.start_assistant(message)
        for i in range(50):
            message.content[0].text += f"line {i}\n\n"
            transcript.update_assistant(message)
        await pilot.pause()
        assert transcript.scroll_offset.y == parked
        transcript.scroll_bottom()
        await pilot.pause()
        assert transcript.following
        message.content[0].text += "more\n\n" * 5
        transcript.update_assistant(message)
        await pilot.pause(0.05)
        assert transcript.scroll_offset.y == transcript.max_scroll_y


async def test_a_new_prompt_brings_a_scrolled_up_view_back_to_the_tail() -> None:
    """Submitting while reading older messages shows the prompt and then follows its answer."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        fill(transcript, 60)
        await pilot.pause()
        transcript.scroll_top()
        await pilot.pause()
        assert not transcript.following
        transcript.add_user("and now?")
        await pilot.pause()
        assert transcript.following and transcript.scroll_offset.y == transcript.max_scroll_y
        message = AssistantMessage(content=[TextContent(text="")])
        transcript.start_assistant(message)
        message.content[0].text = "answer\n\n" * 30
        transcript.update_assistant(message)
        await pilot.pause(0.05)
        assert transcript.scroll_offset.y == transcript.max_scroll_y > 0


async def test_resize_rewraps_only_visible_blocks_and_never_overflows() -> None:
    """R-TUI-07 / spec scenario 27: 120 -> 50 columns."""
    app = TranscriptApp()
    async with app.run_test(size=(120, 30)) as pilot:
        transcript = app.transcript
        fill(transcript, 400)
        transcript.add_note("x" * 300, "warning")
        await pilot.pause()
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        width = transcript._width
        assert width <= 50
        theme = transcript.render_theme
        rewrapped = [b for b in transcript.blocks if b.is_cached(width, theme)]
        assert 0 < len(rewrapped) < 20  # only what is on screen, not all 400
        for y in range(transcript.size.height):
            assert transcript.render_line(y).cell_length <= width
        for block in rewrapped:
            assert all(strip.cell_length <= width for strip in block.render(width, theme))


async def test_ten_thousand_blocks_cost_what_the_visible_ones_cost() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.transcript
        fill(transcript, 10_000)
        await pilot.pause()
        rendered = sum(1 for block in transcript.blocks if block.render_count)
        assert rendered < 20
        transcript.scroll_top()
        await pilot.pause()
        assert transcript.blocks[0].render_count == 1
        assert sum(1 for block in transcript.blocks if block.render_count) < 40


class ExplodingBlock(Block):
    kind = "exploding"

    def build(self, width: int, theme: BlockTheme) -> list[Strip]:
        raise RuntimeError("boom")


async def test_a_failing_block_shows_an_error_line_and_the_rest_keeps_working() -> None:
    """R-TUI-12."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        transcript = app.transcript
        transcript.add_user("before")
        transcript.append_block(ExplodingBlock())
        transcript.end_assistant(assistant("after the broken block"))
        await pilot.pause()
        screen = "\n".join(transcript.render_line(y).text for y in range(transcript.size.height))
        assert "exploding failed to render: RuntimeError: boom" in screen
        assert "after the broken block" in screen


async def test_status_lines_replace_each_other_and_notes_are_coloured() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        transcript = app.transcript
        transcript.add_note("Working 1", "status")
        transcript.add_note("Working 2", "status")
        transcript.add_note("Error: nope", "error")
        await pilot.pause()
        kinds = [(b.kind, getattr(b, "text", "")) for b in transcript.blocks]
        assert kinds == [("note", "Working 2"), ("note", "Error: nope")]
        error_row = transcript.render_line(3)
        assert "Error: nope" in error_row.text
        colours = {
            seg.style.color.name for seg in error_row if seg.style and seg.style.color and seg.text.strip()
        }
        assert colours == {"#cc6666"}


async def test_tool_blocks_follow_the_tool_lifecycle() -> None:
    from pi_app.ai.types import ToolCall, ToolResultMessage

    app = TranscriptApp()
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.transcript
        call = ToolCall(id="call-1", name="bash", arguments={"command": "seq 1 12"})
        message = AssistantMessage(content=[TextContent(text="Running it."), call])
        transcript.start_assistant(message)
        transcript.update_assistant(message)
        assert "call-1" in transcript.tools  # pending block shown while args stream
        transcript.end_assistant(message)
        result = ToolResultMessage(content=[TextContent(text="\n".join(str(i) for i in range(1, 13)))])
        transcript.tool_updated("call-1", "bash", None, result, final=True, is_error=False)
        await pilot.pause()
        tool = transcript.tools["call-1"]
        lines = [line.strip() for line in tool.plain_lines(transcript._width, transcript.render_theme)]
        assert "$ seq 1 12" in lines
        assert lines.index("8") < lines.index("12")  # bash shows the last 5 lines
        assert "7" not in lines
        assert any("7 earlier lines, ctrl+o to expand" in line for line in lines)  # R-RENDER-01 bash wording
        transcript.set_expand_all(True)
        await pilot.pause()
        lines = [line.strip() for line in tool.plain_lines(transcript._width, transcript.render_theme)]
        assert "1" in lines and not any("earlier lines" in line for line in lines)


async def test_resize_while_scrolled_up_keeps_the_same_text_at_the_top() -> None:
    """No jump on resize: the block at the top stays there, at the same relative position."""
    app = TranscriptApp()
    async with app.run_test(size=(100, 20)) as pilot:
        transcript = app.transcript
        long = "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(40))
        transcript.add_user("first")
        transcript.end_assistant(assistant(long))
        transcript.add_user("last")
        await pilot.pause()
        block = transcript.blocks[1]
        start, height = transcript.block_rows(block)
        transcript.scroll_to(y=start + height // 2, animate=False)
        await pilot.pause()
        top_text = transcript.render_line(0).text.strip()
        paragraph = top_text.split()[1] if top_text.startswith("Paragraph") else None
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.pause()
        start, new_height = transcript.block_rows(block)
        assert new_height > height
        offset = transcript.scroll_offset.y - start
        assert abs(offset / new_height - 0.5) < 0.05
        if paragraph is not None:
            visible = " ".join(transcript.render_line(y).text for y in range(5))
            assert f"Paragraph {paragraph}" in visible


async def test_mouse_selection_copies_transcript_text_and_highlights_it() -> None:
    """R-TR-11: the transcript takes part in Textual's text selection."""
    from textual.geometry import Offset
    from textual.selection import Selection

    app = TranscriptApp()
    async with app.run_test(size=(60, 12)) as pilot:
        transcript = app.transcript
        transcript.add_note("alpha beta gamma", "warning")
        transcript.add_note("delta epsilon", "error")
        await pilot.pause()
        # rows: 0 blank, 1 " alpha beta gamma", 2 blank, 3 " delta epsilon"
        selection = Selection(Offset(7, 1), Offset(6, 3))
        assert transcript.get_selection(selection) == ("beta gamma\n\n delta", "\n")
        app.screen.selections = {transcript: selection}
        await pilot.pause()
        row = transcript.render_line(1)
        selected_bg = app.screen.get_component_rich_style("screen--selection").bgcolor
        highlighted = "".join(seg.text for seg in row if seg.style and seg.style.bgcolor == selected_bg)
        assert highlighted.strip() == "beta gamma"


async def test_ctrl_c_copies_a_transcript_selection_in_the_app(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from textual.geometry import Offset
    from textual.selection import Selection

    from pi_app import __version__
    from pi_app.tui.app import PiApp
    from tests.tui.fakes import fake_session_factory

    factory, _ = fake_session_factory(str(tmp_path))
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        app.editor.insert("draft")
        row = next(i for i, line in enumerate(app.transcript.plain_lines()) if line.startswith(" pi v"))
        app.screen.selections = {
            app.transcript: Selection(Offset(1, row), Offset(1 + len(f"pi v{__version__}"), row))
        }
        await pilot.press("ctrl+c")
        assert app.clipboard == f"pi v{__version__}"
        assert app.editor.text == "draft"  # copying does not clear the editor
        await pilot.press("ctrl+c")
        assert app.editor.text == ""
