"""TUI helpers for extension authors (spec 40 §1.1): ``CustomEditor`` and ``key_hint``.

``ctx.ui.set_editor_component(factory)`` takes ``factory(app, theme, keybindings) -> CustomEditor``.
A ``CustomEditor`` is the app's own prompt editor: override ``handle_key(press)`` for the keys you
want and call ``super().handle_key(press)`` for the rest, so submit, escape/abort, ctrl+d, model
switching and every other app binding keep working (R-UI-06)::

    from pi_app.tui.ext import CustomEditor

    class ShoutingEditor(CustomEditor):
        def handle_key(self, press):
            if press.character and press.character.isalpha():
                self.insert(press.character.upper())
                return
            super().handle_key(press)

    ctx.ui.set_editor_component(lambda app, theme, keybindings: ShoutingEditor(app))

``key_hint(app, action, description)`` renders ``"<key> <description>"`` with the user's effective
binding of ``action`` (e.g. ``key_hint(app, "app.interrupt", "to stop")`` -> ``"escape to stop"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_app.tui.editor.widget import PromptEditor
from pi_app.tui.input.keys import KeyPress

if TYPE_CHECKING:
    from pi_app.tui.host import CommandHost, SelectorHost

__all__ = ["CustomEditor", "KeyPress", "key_hint"]


class CustomEditor(PromptEditor):
    def __init__(self, app: CommandHost, **kwargs: Any) -> None:
        kwargs.setdefault("keybindings", app.keybindings)
        kwargs.setdefault("autocomplete", app.autocomplete)
        kwargs.setdefault("theme", app.themes.current)
        kwargs.setdefault("id", "editor")
        super().__init__(**kwargs)


def key_hint(app: SelectorHost, action: str, description: str) -> str:
    key = app.keybindings.hint(action)
    return f"{key} {description}".strip()
