"""The slash-command registry of the interactive app (spec 60 §3.9).

A built-in command is a ``SlashCommand``: a name, the description shown in autocomplete, an
optional argument hint and argument completer, and a handler ``handler(app, args)`` (plain or
``async``). The app owns one ``CommandRegistry``; ``builtin_registry()`` fills it by calling
``register(registry)`` in every module of ``COMMAND_MODULES``, so a feature adds its commands
from its own module without touching this one:

    # pi_app/tui/selectors/tree.py
    def register(registry: CommandRegistry) -> None:
        registry.add(SlashCommand("tree", "Navigate session tree (switch branches)", open_tree))

What a handler may use on ``app`` is ``pi_app.tui.host.CommandHost`` (``PiApp`` satisfies it):
``app.session`` (the ``AgentSession``; call into it with ``app.bridge.call(fn)`` — it lives on
another loop), ``app.show_in_editor_slot(widget)`` / ``app.restore_editor()`` (selectors replace
the editor, R-SEL-00), ``app.show_status(text)``, ``app.show_warning(text)``,
``app.show_error(text)``, ``app.editor`` (the prompt editor),
``app.settings`` and ``app.keybindings``.

Submit routing (R-INT-01, R-CMD-19/20): ``parse`` splits ``/name args``; ``find`` returns the
built-in of that name. Anything that is not a built-in goes to ``session.prompt`` unchanged
(extension commands, ``/skill:<name>``, prompt templates, and unknown words, which pi sends to the
model as a normal message).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_app.tui.editor.autocomplete import AutocompleteItem

if TYPE_CHECKING:
    from pi_app.tui.host import CommandHost

CommandHandler = Callable[["CommandHost", str], "Awaitable[None] | None"]

COMMAND_MODULES: tuple[str, ...] = ("pi_app.tui.commands.builtin", "pi_app.tui.selectors.navigation")
"""Modules whose ``register(registry)`` adds built-in commands, in autocomplete order."""


@dataclass
class SlashCommand:
    name: str
    description: str | None = None
    handler: CommandHandler | None = None
    argument_hint: str | None = None
    """Shown after the name in the autocomplete list, e.g. ``<name>`` or ``[instructions]``."""
    get_argument_completions: Callable[[str], list[AutocompleteItem] | None] | None = None
    hidden: bool = False
    """Hidden commands run but are not offered by autocomplete (``/debug``)."""
    source: str = "builtin"
    """``builtin``, ``extension``, ``prompt`` or ``skill`` (only built-ins have a handler here)."""
    aliases: tuple[str, ...] = field(default_factory=tuple)


class CommandRegistry:
    """Named commands; a later ``add`` of the same name replaces the earlier one."""

    def __init__(self) -> None:
        self._commands: dict[str, SlashCommand] = {}
        self._aliases: dict[str, str] = {}

    def add(self, command: SlashCommand) -> SlashCommand:
        self._commands[command.name] = command
        for alias in command.aliases:
            self._aliases[alias] = command.name
        return command

    def remove(self, name: str) -> None:
        command = self._commands.pop(name, None)
        if command is not None:
            for alias in command.aliases:
                self._aliases.pop(alias, None)

    def find(self, name: str) -> SlashCommand | None:
        return self._commands.get(name) or self._commands.get(self._aliases.get(name, ""))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def visible(self) -> list[SlashCommand]:
        """The commands autocomplete offers, in registration order."""
        return [c for c in self._commands.values() if not c.hidden]

    def names(self) -> list[str]:
        return list(self._commands)

    async def run(self, app: CommandHost, text: str) -> bool:
        """Run ``text`` if it names a built-in command; False when it is not one of ours."""
        parsed = parse(text)
        if parsed is None:
            return False
        command = self.find(parsed[0])
        if command is None or command.handler is None:
            return False
        result = command.handler(app, parsed[1])
        if inspect.isawaitable(result):
            await result
        return True


def parse(text: str) -> tuple[str, str] | None:
    """``"/name  some args"`` -> ``("name", "some args")``; None when ``text`` is not a command."""
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) < 2 or stripped[1].isspace():
        return None
    head, _, rest = stripped[1:].partition(" ")
    if "\n" in head:
        head, _, more = head.partition("\n")
        rest = (more + " " + rest).strip()
    return head, rest.strip()


def builtin_registry(modules: Iterable[str] = COMMAND_MODULES) -> CommandRegistry:
    """A registry holding every built-in command of ``modules``."""
    registry = CommandRegistry()
    for module_name in modules:
        importlib.import_module(module_name).register(registry)
    return registry
