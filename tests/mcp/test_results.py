"""MCP results as tool results (issue 22): long text keeps its ends around a marker and is saved
whole, isError fails the call, structured content without text reaches the model as JSON."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("mcp_types")

from mcp_types import CallToolResult, TextContent

from pi_app.coding.mcp.results import MAX_TEXT_CHARS, tool_result


def test_text_over_20_kb_keeps_both_ends_and_the_full_text_is_saved() -> None:
    text = "HEAD" + "x" * (3 * MAX_TEXT_CHARS) + "TAIL"
    result = tool_result(CallToolResult(content=[TextContent(type="text", text=text)]), "srv", "big")
    shown = result.content[0].text
    assert shown.startswith("HEAD") and "TAIL" in shown and len(shown) < MAX_TEXT_CHARS + 500
    removed = int(re.search(r"…(\d+) chars truncated…", shown).group(1))
    assert removed == len(text) - MAX_TEXT_CHARS
    saved = re.search(r"\[Full text saved to (.+)\]", shown).group(1)
    assert Path(saved).read_text() == text


def test_is_error_fails_the_call_with_the_servers_text() -> None:
    with pytest.raises(RuntimeError, match="no such city"):
        tool_result(
            CallToolResult(content=[TextContent(type="text", text="no such city")], is_error=True), "srv", "t"
        )


def test_structured_content_without_text_reaches_the_model_as_json() -> None:
    result = tool_result(CallToolResult(content=[], structured_content={"temperature": 21}), "srv", "t")
    assert '"temperature": 21' in result.content[0].text
    assert result.details["structuredContent"] == {"temperature": 21}
