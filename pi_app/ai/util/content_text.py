"""The plain text of a message: the one helper every layer uses for it (issue 21).

Message content is a string or a list of blocks. A block is a ``TextContent`` (or another object
whose ``type`` is ``"text"`` and whose ``text`` is a string) or, where a session file's JSON is read
without decoding it, its JSON form ``{"type": "text", "text": ...}``. Only text blocks count:
thinking, images and tool calls give nothing. A string is returned as it is; anything else (None,
a number) gives ``""``.

Callers choose how the blocks are joined, because users see each choice: nothing between them for
a prompt restored to the editor or the queue lines, a newline for an extension's message card and
export, a space for the one-line session previews.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_app.ai.types import TextContent


def _block_text(block: object) -> str | None:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, dict):
        if block.get("type") != "text":
            return None
        value = block.get("text")
        return str(value) if value else ""
    if getattr(block, "type", None) == "text":
        value = getattr(block, "text", "")
        return value if isinstance(value, str) else ""
    return None


def text_blocks(content: object) -> list[str]:
    """The texts of the text blocks of ``content``, in order (a string is one block)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, Iterable) or isinstance(content, bytes | dict):
        return []
    texts = (_block_text(block) for block in content)
    return [text for text in texts if text is not None]


def content_text(content: object, separator: str = "") -> str:
    """The text blocks of ``content`` joined with ``separator`` (a string is returned as it is)."""
    if isinstance(content, str):
        return content
    return separator.join(text_blocks(content))


def message_text(message: object, separator: str = "") -> str:
    """``content_text`` of a message's ``content`` (an object with a ``content`` attribute)."""
    return content_text(getattr(message, "content", ""), separator)
