"""Snapshots of the Line-API transcript's block kinds (dark fallback palette).

What a person should see, top to bottom: the muted header; a user message in a grey box with a
small gradient picture drawn in half-block cells under its text; an assistant reply in markdown
(bold word, bullet list, a highlighted Python code block); a finished bash tool block on a green
background showing its last 5 output lines and ``... (7 more lines, ctrl+o to expand)``; and a
yellow warning line. At 120x40 the same content, wrapped wider, with the view following the tail.
"""

from __future__ import annotations

import base64
import io

from PIL import Image
from textual.app import App, ComposeResult

from pi_app.ai.types import AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage
from pi_app.tui.terminal.images import ImageRenderer
from pi_app.tui.transcript.view import Transcript

REPLY = """Here is the **plan**:

- read the file
- fix the loop

```python
def total(items):
    return sum(item.price for item in items)
```

Done."""


def _picture() -> ImageContent:
    image = Image.new("RGB", (72, 36))
    for x in range(72):
        for y in range(36):
            image.putpixel((x, y), (x * 3, 120, y * 7))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return ImageContent(data=base64.b64encode(buffer.getvalue()).decode(), mime_type="image/png")


class TranscriptScreenApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()

    def on_mount(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.images = ImageRenderer("cells")
        transcript.add_header("pi v0.1.0\nescape interrupt · ctrl+c clear")
        transcript.add_user("What does this chart show?", [_picture()])
        call = ToolCall(id="call-1", name="bash", arguments={"command": "seq 1 12"})
        transcript.end_assistant(AssistantMessage(content=[TextContent(text=REPLY), call]))
        result = ToolResultMessage(content=[TextContent(text="\n".join(str(i) for i in range(1, 13)))])
        transcript.tool_updated("call-1", "bash", None, result, final=True, is_error=False)
        transcript.add_note("Warning: the context is 80% full", "warning")


def test_term_transcript_80x24(snap_compare) -> None:
    assert snap_compare(TranscriptScreenApp(), terminal_size=(80, 24))


def test_term_transcript_120x40(snap_compare) -> None:
    assert snap_compare(TranscriptScreenApp(), terminal_size=(120, 40))


TABLE_AND_LISTS = """The fruit **stock**:

| Name | Qty | Note |
|:-----|----:|:----:|
| apple | 3 | red fruit |
| banana | 12 | long yellow one |
| kiwi | 1 | x |

Steps:

- pick
  - ripe ones
    - not bruised
- pack

1. weigh
   1. in grams
2. label"""


class MarkdownLayoutApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()

    def on_mount(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.add_user("Show the stock as a table and the steps as a list")
        transcript.end_assistant(AssistantMessage(content=[TextContent(text=TABLE_AND_LISTS)]))


def test_term_markdown_table_and_nested_lists(snap_compare) -> None:
    """Issue 17, defect 8, as pi 1.6.0 draws it: the table in grey box-drawing lines with one space
    of padding in every cell, the header bold, a rule between every two rows;
    "ripe ones" four columns right of "pick", "not bruised" four more; "in grams" four columns
    right of "weigh"; bullets and numbers in the accent colour."""
    assert snap_compare(MarkdownLayoutApp(), terminal_size=(80, 30))
