"""MCP ``CallToolResult`` / ``ReadResourceResult`` -> pi tool results (issue 22).

Text stays text, images stay images, audio and other binary data are saved to temporary files
whose path the model gets, resource links name ``read_mcp_resource`` and the server, embedded
resources are inlined (text) or saved (binary). ``structuredContent`` is kept in ``details`` and,
when the server sent no text, reaches the model as JSON. Text over 20 KB reaches the model with its
middle replaced by ``…N chars truncated…`` and the full text saved to a file named in the result
(pi 1.6.0's rule).
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import tempfile
from typing import Any

from pi_app.agent.types import AgentToolResult
from pi_app.ai.types import ImageContent, TextContent
from pi_app.ai.util.content_text import content_text

MAX_TEXT_CHARS = 20 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _save(data: bytes, mime: str | None, stem: str) -> str:
    suffix = mimetypes.guess_extension(mime or "") or ".bin"
    fd, path = tempfile.mkstemp(prefix=f"pi-mcp-{stem}-", suffix=suffix)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def truncate_text(text: str, stem: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    path = _save(text.encode("utf-8"), "text/plain", stem)
    keep = MAX_TEXT_CHARS // 2
    removed = len(text) - 2 * keep
    return f"{text[:keep]}\n…{removed} chars truncated…\n{text[-keep:]}\n[Full text saved to {path}]"


def _blob(blob: str, mime: str | None, stem: str, uri: str | None = None) -> TextContent | ImageContent:
    if mime in IMAGE_TYPES:
        return ImageContent(data=blob, mime_type=mime or "image/png")
    try:
        data = base64.b64decode(blob)
    except ValueError:
        data = blob.encode()
    path = _save(data, mime, stem)
    where = f" {uri}" if uri else ""
    return TextContent(
        text=f"[Binary content{where} ({mime or 'unknown type'}, {len(data)} bytes) saved to {path}]"
    )


def map_content(blocks: list[Any], server: str, stem: str) -> list[TextContent | ImageContent]:
    out: list[TextContent | ImageContent] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append(TextContent(text=block.text))
        elif kind == "image":
            out.append(ImageContent(data=block.data, mime_type=block.mime_type))
        elif kind == "audio":
            out.append(_blob(block.data, block.mime_type, stem))
        elif kind == "resource_link":
            title = block.title or block.name
            mime = f", {block.mime_type}" if block.mime_type else ""
            out.append(
                TextContent(
                    text=f'Resource link: {title} <{block.uri}>{mime}. Read it with read_mcp_resource (server "{server}", uri "{block.uri}").'
                )
            )
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                out.append(TextContent(text=f"Resource {resource.uri}:\n{text}"))
            else:
                out.append(_blob(getattr(resource, "blob", ""), resource.mime_type, stem, str(resource.uri)))
        else:
            out.append(
                TextContent(text=json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True)))
            )
    return out


def tool_result(result: Any, server: str, tool: str) -> AgentToolResult:
    """A successful call's result; ``isError`` raises (the loop reports a failed tool call)."""
    stem = f"{server}-{tool}"[:40]
    content = map_content(list(result.content or []), server, stem)
    structured = result.structured_content
    if structured is not None and not any(isinstance(c, TextContent) for c in content):
        content.append(TextContent(text=json.dumps(structured, ensure_ascii=False, indent=2)))
    content = [
        TextContent(text=truncate_text(c.text, stem)) if isinstance(c, TextContent) else c for c in content
    ]
    if result.is_error:
        text = content_text(content, "\n") or f"{tool} failed"
        raise RuntimeError(text)
    if not content:
        content = [TextContent(text="(no output)")]
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        details["structuredContent"] = structured
    return AgentToolResult(content=content, details=details)


def resource_result(contents: list[Any], server: str, uri: str) -> AgentToolResult:
    stem = f"{server}-resource"
    out: list[TextContent | ImageContent] = []
    for item in contents:
        text = getattr(item, "text", None)
        if text is not None:
            out.append(TextContent(text=truncate_text(text, stem)))
        else:
            out.append(_blob(getattr(item, "blob", ""), item.mime_type, stem, str(item.uri)))
    return AgentToolResult(
        content=out or [TextContent(text="(empty resource)")], details={"server": server, "uri": uri}
    )
