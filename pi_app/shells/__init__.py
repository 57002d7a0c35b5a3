"""Shells beside the app and the headless modes, each a separate program over the public SDK.

``pi mom`` (the Slack bot) and ``pi pods`` (vLLM on GPU machines) live in their own packages and
need their own optional extras (``pip install 'pi-app[mom]'`` / ``'pi-app[pods]'``), so the core
install does not carry Slack or SSH libraries. They use only ``pi_app.ext``, never a session's or
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
}


def missing_extra(command: str) -> str | None:
    """The install hint when a module of ``command``'s extra cannot be imported, else None."""
    import importlib

    extra, modules = SHELL_COMMANDS[command]
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
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
    from pi_app.shells.mom.commands import main as mom_main

    return mom_main(rest)
