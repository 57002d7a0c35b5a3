"""Key → action lookup for the selectors (tree navigator, fork selector, session picker).

Selectors handle raw ``Key`` events themselves (printable keys type into their search), so they
match keys against pi's namespaced action ids instead of Textual ``Binding``s. ``SELECTOR_KEYS``
holds pi 0.73.1's defaults for those ids (spec 60 R-KEY-03, decisions D-41, D-42). An app with a
user ``keybindings.json`` passes its effective map (action id → pi key ids); ids it does not
mention keep these defaults. Hints shown on screen are built from the same map (R-KEY-06).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from pi_app.tui.input.keys import KeyPress, parse_key_id

SELECTOR_KEYS: dict[str, tuple[str, ...]] = {
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.select.pageUp": ("pageUp",),
    "tui.select.pageDown": ("pageDown",),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.deleteCharBackward": ("backspace",),
    "tui.input.tab": ("tab",),
    "app.tree.foldOrUp": ("ctrl+left", "alt+left"),
    "app.tree.unfoldOrDown": ("ctrl+right", "alt+right"),
    "app.tree.editLabel": ("shift+l",),
    "app.tree.toggleLabelTimestamp": ("shift+t",),
    "app.tree.filter.default": ("ctrl+d",),
    "app.tree.filter.noTools": ("ctrl+t",),
    "app.tree.filter.userOnly": ("ctrl+u",),
    "app.tree.filter.labeledOnly": ("ctrl+l",),
    "app.tree.filter.all": ("ctrl+a",),
    "app.tree.filter.cycleForward": ("ctrl+o",),
    "app.tree.filter.cycleBackward": ("shift+ctrl+o",),
    "app.session.toggleNamedFilter": ("ctrl+n",),
    "app.session.togglePath": ("ctrl+p",),
    "app.session.toggleSort": ("ctrl+s",),
    "app.session.rename": ("ctrl+r",),
    "app.session.delete": ("ctrl+d",),
    "app.session.deleteNoninvasive": ("ctrl+backspace",),
}


class KeyMap(Protocol):
    """What a selector asks of its keys: ``SelectorKeys`` or the app's ``Keybindings``."""

    def first_match(self, press: KeyPress, actions: Iterable[str]) -> str | None: ...
    def hint(self, action: str) -> str: ...


class SelectorKeys:
    """Resolves a key press to the first matching action among those a selector asks about.

    Selectors only call ``first_match`` and ``hint``, so the app's own keybindings object (with
    the same two methods) can be passed in its place.
    """

    def __init__(self, overrides: Mapping[str, str | Sequence[str]] | None = None) -> None:
        self._keys: dict[str, tuple[str, ...]] = {}
        for action, keys in {**SELECTOR_KEYS, **(overrides or {})}.items():
            listed = [keys] if isinstance(keys, str) else list(keys)
            self._keys[action] = tuple(k for k in (parse_key_id(key) for key in listed) if k)

    def first_match(self, press: KeyPress, actions: Iterable[str]) -> str | None:
        for action in actions:
            if press.key_id in self._keys.get(action, ()):
                return action
        return None

    def hint(self, action: str) -> str:
        """The first key of ``action`` as users read it (``ctrl+o``); empty when unbound."""
        keys = self._keys.get(action, ())
        return keys[0] if keys else ""


DEFAULT_SELECTOR_KEYS = SelectorKeys()
