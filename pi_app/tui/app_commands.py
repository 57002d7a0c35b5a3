"""Built-in slash commands that belong to the app shell itself (spec 60 §3.9).

Navigation commands (``/tree``, ``/fork``, ``/resume``, …) register from their own selector
modules; see ``pi_app.tui.commands`` for the registry and what a handler may use on ``app``.
"""

from __future__ import annotations

from typing import Any

from pi_app.tui.commands import CommandRegistry, SlashCommand


def _quit(app: Any, args: str) -> None:
    app.shutdown()


def register(registry: CommandRegistry) -> None:
    registry.add(SlashCommand("quit", "Quit pi", _quit, aliases=("exit",)))
