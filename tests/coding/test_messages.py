"""Coding-layer messages and their conversion for the LLM (spec 30 §2.5, §2.6)."""

from __future__ import annotations

from pi_app.ai.types import ImageContent, TextContent, UserMessage
from pi_app.coding.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    UnknownMessage,
    convert_to_llm,
    message_from_dict,
    message_to_dict,
)


def test_convert_to_llm_maps_every_kind() -> None:
    msgs = [
        UserMessage(content="hi", timestamp=1),
        BashExecutionMessage(command="ls", output="a.txt", exit_code=2, timestamp=2),
        BashExecutionMessage(command="secret", output="x", exclude_from_context=True, timestamp=3),
        CustomMessage(custom_type="c", content="custom text", details={"no": "send"}, timestamp=4),
        BranchSummaryMessage(summary="branch work", from_id="x", timestamp=5),
        CompactionSummaryMessage(summary="older work", tokens_before=10, timestamp=6),
        UnknownMessage(role="futureRole", raw={"role": "futureRole"}),
    ]
    out = convert_to_llm(msgs)
    assert [m.role for m in out] == ["user"] * 5
    bash = out[1].content[0].text
    assert "ls" in bash and "```\na.txt\n```" in bash and "2" in bash
    assert "secret" not in "".join(m.content[0].text for m in out[1:] if not isinstance(m.content, str))
    assert out[2].content == [TextContent(text="custom text")]
    assert out[3].content[0].text.endswith("<summary>\nbranch work</summary>")
    assert out[4].content[0].text.endswith("<summary>\nolder work\n</summary>")


def test_bash_markers_for_empty_cancelled_and_truncated() -> None:
    text = (
        convert_to_llm(
            [
                BashExecutionMessage(
                    command="x", output="", cancelled=True, truncated=True, full_output_path="/tmp/o"
                )
            ]
        )[0]
        .content[0]
        .text
    )
    assert "printed nothing" in text and "cancelled" in text and "/tmp/o" in text


def test_custom_content_with_images_passes_blocks() -> None:
    blocks = [TextContent(text="see"), ImageContent(data="AAAA", mime_type="image/png")]
    out = convert_to_llm([CustomMessage(custom_type="c", content=blocks)])
    assert out[0].content == blocks


def test_dict_round_trip_is_lossless_for_unknown_roles_and_keys() -> None:
    weird = {"role": "fromTheFuture", "x": [1, {"y": None}], "timestamp": 9}
    msg = message_from_dict(weird)
    assert isinstance(msg, UnknownMessage) and message_to_dict(msg) == weird
    bash = {
        "role": "bashExecution",
        "command": "k",
        "output": "",
        "exitCode": None,
        "cancelled": False,
        "truncated": False,
        "timestamp": 1,
        "newKey": "v",
    }
    assert message_to_dict(message_from_dict(bash)) == bash
    broken = {"role": "assistant", "content": 5, "usage": "nonsense"}
    assert message_from_dict(broken) is not None  # never raises
    assert message_from_dict("not a dict").role == "unknown"
