"""``pi serve``: parse the command line, apply the safety rules, run the API on uvicorn (issue 24).

Usage: ``pi serve [--host H] [--port N] [--allow-remote] [--idle-timeout S] [--max-body BYTES]
[-- <arguments for every child>]``. Arguments after ``--`` go to each ``pi --mode rpc`` child
(``--model``, ``--provider``, ``--no-extensions`` …).

Decision (stack): Starlette on uvicorn. Starlette is a small asyncio toolkit with streaming
responses (all SSE needs) and nothing more; uvicorn is the reference ASGI server and, run with its
h11 protocol, pure Python. Both stand on anyio and h11, which httpx already brings, so the
``serve`` extra adds little. FastAPI would add a second pydantic model layer over bodies that are
the RPC protocol's own; aiohttp would bring its own HTTP stack (it does come with textual-serve,
but only ``pi web`` needs it).

``pi_app.shells.run_shell_command`` has checked that the extra is installed before this runs. The
port is bound before uvicorn starts (``--port 0`` picks a free one) so the first line printed
names the real address: ``pi serve: listening on http://127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence

from pi_app.shells.server.security import Token, is_loopback_host, load_or_create_token

DEFAULT_PORT = 8484


def split_child_args(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1 :]
    return argv, []


def add_network_options(parser: argparse.ArgumentParser, default_port: int) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=default_port, help="port (0 picks a free one)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other than loopback (anyone with the token then controls pi)",
    )


def check_host(command: str, host: str, allow_remote: bool) -> str | None:
    """An error line when ``host`` is not loopback and ``--allow-remote`` is missing; prints the
    warning when it is given."""
    if is_loopback_host(host):
        return None
    if not allow_remote:
        return (
            f"pi {command}: --host {host} is reachable from other machines; "
            "add --allow-remote if that is what you want"
        )
    sys.stderr.write(
        f"Warning: pi {command} listens on {host}: anyone who can reach it and has the token "
        "can run commands on this machine. Plain HTTP: use it only on a network you trust.\n"
    )
    return None


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named explicitly: accepted sockets inherit it, and asyncio switches Nagle off
    # (TCP_NODELAY) only on sockets that say they are TCP; without it every response on a kept-alive
    # connection waited ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


def announce_token(token: Token) -> None:
    if token.created:
        print(f"Token (shown this once; kept in {token.path}): {token.value}")
    else:
        print(f"Token: in {token.path}")


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}"


def main(argv: Sequence[str]) -> int:
    own, child_args = split_child_args(argv)
    parser = argparse.ArgumentParser(prog="pi serve", description="Serve pi sessions over HTTP and SSE.")
    add_network_options(parser, DEFAULT_PORT)
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=900.0,
        help="stop a session's child after this many idle seconds (0: never; default 900)",
    )
    parser.add_argument("--max-body", type=int, default=None, help="largest request body in bytes")
    args = parser.parse_args(own)
    problem = check_host("serve", args.host, args.allow_remote)
    if problem:
        sys.stderr.write(problem + "\n")
        return 2

    exit_quietly_on_signals()
    import uvicorn

    from pi_app.coding.paths import agent_dir
    from pi_app.shells.server.host import ChildSpec
    from pi_app.shells.server.http_app import DEFAULT_MAX_BODY, ServerConfig, build_app
    from pi_app.shells.server.supervisor import Supervisor

    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        sys.stderr.write(f"pi serve: cannot listen on {args.host}:{args.port}: {exc.strerror}\n")
        return 1
    token = load_or_create_token(agent_dir())
    config = ServerConfig(
        token=token,
        loopback_only=is_loopback_host(args.host),
        max_body=args.max_body or DEFAULT_MAX_BODY,
    )
    supervisor = Supervisor(ChildSpec(args=child_args), idle_timeout=args.idle_timeout or None)
    app = build_app(supervisor, config)
    url = url_of(sock, args.host)
    print(f"pi serve: listening on {url}  (API description: {url}/api/openapi.json)")
    announce_token(token)
    sys.stdout.flush()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            http="h11",
            ws="none",
            loop="asyncio",
            lifespan="on",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
        )
    )
    server.run(sockets=[sock])
    return 0


def exit_quietly_on_signals() -> None:
    """SIGINT/SIGTERM end the command with status 0. While uvicorn runs it catches them itself, shuts
    down gracefully (children stopped), then raises the signal again, which lands here."""
    import signal

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGINT, leave)
