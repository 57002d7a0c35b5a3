"""Shells beside the app and the headless modes, each a separate program over the public SDK.

``pi mom`` (the Slack bot), ``pi pods`` (vLLM on GPU machines), ``pi serve`` (``server``: one
``pi --mode rpc`` child per session behind HTTP + Server-Sent Events) and ``pi web`` (``web``: the
full-screen app in a browser tab with textual-serve) live in their own packages and need their own
optional extras (``pip install 'pi-app[mom]'`` / ``'pi-app[pods]'`` / ``'pi-app[serve]'``), so the
core install does not carry Slack, SSH or web-server libraries. They use only ``pi_app.ext``, never a session's or
agent's private attributes. ``run_shell_command`` is the ``pi`` command's door to them: without the
extra it says in one line how to install it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# command -> (extra, the modules the extra brings)
SHELL_COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pods": ("pods", ("asyncssh",)),
    "mom": ("mom", ("slack_bolt", "slack_sdk")),
    "serve": ("serve", ("starlette", "uvicorn")),
    "web": ("serve", ("textual_serve", "aiohttp")),
}
WEB_APP_ENV = "PI_WEB_APP"  # "1" in the environment of the app ``pi web`` serves (read by pi_app.cli)


def missing_extra(command: str) -> str | None:
    """The install hint when a module of ``command``'s extra is not installed, else None.

    Looked up, not imported: the shell imports its libraries itself, where it can quiet their
    import-time warnings (asyncssh's DSA deprecation under newer ``cryptography``)."""
    from importlib.util import find_spec

    extra, modules = SHELL_COMMANDS[command]
    for module in modules:
        if find_spec(module) is None:
            return f"pi {command} needs the '{extra}' extra ({module} is not installed): pip install 'pi-app[{extra}]'"
    return None


def run_shell_command(argv: Sequence[str]) -> int:
    command, rest = argv[0], list(argv[1:])
    hint = missing_extra(command)
    if hint:
        sys.stderr.write(hint + "\n")
        return 1
    if command == "pods":
        from pi_app.shells.pods.commands import main

        return main(rest)
    if command == "serve":
        from pi_app.shells.server.command import main as serve_main

        return serve_main(rest)
    if command == "web":
        from pi_app.shells.web.command import main as web_main

        return web_main(rest)
    from pi_app.shells.mom.commands import main as mom_main

    return mom_main(rest)
