"""The listening socket ``pi serve`` and ``pi web`` bind (issue 24): connections it accepts have
Nagle's algorithm off, as asyncio does for TCP sockets, so a response written in two pieces on a
kept-alive connection does not wait for the client's delayed ACK (it cost ~40 ms a request)."""

from __future__ import annotations

import asyncio
import socket

from pi_app.shells.server.command import bind


async def test_accepted_connections_have_tcp_nodelay() -> None:
    listener = bind("127.0.0.1", 0)
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=listener)
    try:
        _, writer = await asyncio.open_connection(*listener.getsockname())
        assert await asyncio.wait_for(seen, 10) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
