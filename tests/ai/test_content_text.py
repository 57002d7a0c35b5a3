"""The one "text of a message" helper (issue 21): what every layer shows as a message's text."""

from __future__ import annotations

from pi_app.ai.types import ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage
from pi_app.ai.util.content_text import content_text, message_text, text_blocks
from pi_app.coding.session.listing import build_session_info


def test_a_string_is_its_own_text_and_only_text_blocks_count() -> None:
    assert content_text("  as typed\n") == "  as typed\n"
    blocks = [
        TextContent(text="one"),
        ThinkingContent(thinking="hidden"),
        ImageContent(data="AAAA"),
        ToolCall(id="c1", name="read", arguments={}),
        TextContent(text="two"),
    ]
    assert content_text(blocks) == "onetwo"
    assert content_text(blocks, "\n") == "one\ntwo"
    assert text_blocks(blocks) == ["one", "two"]


def test_json_blocks_read_from_a_session_file_count_like_decoded_ones() -> None:
    raw = [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}, {"type": "text", "text": None}]
    assert content_text(raw, " ") == "a "
    assert content_text([{"type": "text", "text": "b"}, TextContent(text="c")]) == "bc"


def test_nothing_that_is_not_content_raises() -> None:
    assert content_text(None) == ""
    assert content_text(42) == ""
    assert content_text({"type": "text", "text": "not a list"}) == ""
    assert message_text(object()) == ""
    assert message_text(UserMessage(content=[TextContent(text="hi"), TextContent(text="!")])) == "hi!"


def test_session_previews_join_the_blocks_of_a_message_with_a_space(tmp_path) -> None:
    """/resume's first-message preview (pi 1.6.0 joins text blocks with a space there)."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
        '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":[{"type":"text","text":"fix"},{"type":"text","text":"the bug"}],'
        '"timestamp":1}}\n',
        encoding="utf-8",
    )
    info = build_session_info(str(path))
    assert info is not None
    assert info.first_message == "fix the bug"
