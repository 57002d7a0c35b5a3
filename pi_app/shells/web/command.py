"""``pi web``: the command line of the browser app (issue 24).

Usage: ``pi web [--host H] [--port N] [--allow-remote] [-- <pi arguments>]``; arguments after
``--`` go to every app it starts (``--model``, ``--theme`` …). It prints one line with the address
to open, ``http://127.0.0.1:PORT/?token=…`` (the token of ``pi serve``, from the agent dir), and
serves until Ctrl+C.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pi_app.shells.server.command import (
    add_network_options,
    bind,
    check_host,
    exit_quietly_on_signals,
    split_child_args,
    url_of,
)
from pi_app.shells.server.security import is_loopback_host, load_or_create_token

DEFAULT_PORT = 8485


def main(argv: Sequence[str]) -> int:
    own, app_args = split_child_args(argv)
    parser = argparse.ArgumentParser(prog="pi web", description="The pi app in a browser tab.")
    add_network_options(parser, DEFAULT_PORT)
    args = parser.parse_args(own)
    problem = check_host("web", args.host, args.allow_remote)
    if problem:
        sys.stderr.write(problem + "\n")
        return 2

    exit_quietly_on_signals()
    from pi_app.coding.paths import agent_dir
    from pi_app.shells.web.server import PiWebServer

    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        sys.stderr.write(f"pi web: cannot listen on {args.host}:{args.port}: {exc.strerror}\n")
        return 1
    token = load_or_create_token(agent_dir())
    print(f"pi web: open {url_of(sock, args.host)}/?token={token.value}")
    if token.created:
        print(f"Token kept in {token.path} (pi serve uses it too)")
    sys.stdout.flush()
    PiWebServer(app_args, sock, token, loopback_only=is_loopback_host(args.host)).run()
    return 0
