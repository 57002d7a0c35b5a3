"""ACP's byte streams: stdin for the editor's messages, a private handle on stdout for pi's.

``guard_stdout`` (shared with RPC and JSON mode) first points fd 1 and ``sys.stdout`` at stderr, so
a stray ``print`` in an extension or a tool's child process never lands in the protocol stream.
"""

from __future__ import annotations

import asyncio
import sys

from pi_app.modes.output import guard_stdout

STDIO_LIMIT_BYTES = 50 * 1024 * 1024  # one message may carry a large file or image


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """A write pipe's protocol that lets ``StreamWriter.drain`` wait for the pipe."""


async def protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    out = guard_stdout()
    reader = asyncio.StreamReader(limit=STDIO_LIMIT_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(_WriteProtocol, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
