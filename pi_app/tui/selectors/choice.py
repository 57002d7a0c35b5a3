"""Small dialogs for command flows: a titled list of choices and a multi-line text prompt.

``ChoiceSelector`` ("Summarize branch?" → No summary / Summarize / Summarize with custom prompt)
posts ``Chosen(index)``, or ``Chosen(None)`` on Escape. ``TextPrompt`` ("Custom summarization
instructions") posts ``Submitted(text)`` on Enter (Shift+Enter or Ctrl+J add a line) or
``Submitted(None)`` on Escape. Both take the editor's place through ``slot.ask``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.strip import Strip
from textual.widgets import Static, TextArea

from pi_app.tui.input.keys import key_press
from pi_app.tui.selectors.bindings import DEFAULT_SELECTOR_KEYS, KeyMap
from pi_app.tui.selectors.lines import LineView, rule, styled, theme_of
from pi_app.tui.selectors.list_cursor import ListCursor
from pi_app.tui.selectors.slot import Answer

CHOICE_ACTIONS = ("tui.select.up", "tui.select.down", "tui.select.confirm", "tui.select.cancel")


class ChoiceSelector(Vertical, can_focus=True):
    DEFAULT_CSS = """
    ChoiceSelector { height: auto; }
    """

    @dataclass
    class Chosen(Answer):
        selector: ChoiceSelector
        index: int | None

        @property
        def option(self) -> str | None:
            return None if self.index is None else self.selector.options[self.index]

    def __init__(
        self,
        title: str,
        options: Sequence[str],
        *,
        keys: KeyMap | None = None,
        message: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.message = message
        """Lines between the title and the options (a blank line follows them)."""
        self.options = list(options)
        self.cursor = ListCursor(len(self.options), page_size=max(1, len(self.options)))
        self.keys = keys or DEFAULT_SELECTOR_KEYS
        self.view = LineView(self._paint)

    def compose(self) -> ComposeResult:
        yield self.view

    def _paint(self, width: int) -> list[Strip]:
        theme = theme_of(self)
        lines = [rule(theme, width)]
        lines += [styled([(f"  {line}", None)], theme, width, bold=True) for line in self.title.split("\n")]
        if self.message:
            lines += [styled([(f"  {line}", None)], theme, width) for line in self.message.split("\n")]
            lines.append(styled([("", None)], theme, width))
        for i, option in enumerate(self.options):
            selected = i == self.cursor.selected
            runs = [("› " if selected else "  ", "accent"), (option, "accent" if selected else None)]
            lines.append(styled(runs, theme, width, bold=selected))
        hint = f"  ↑↓ choose · {self.keys.hint('tui.select.confirm')} select · {self.keys.hint('tui.select.cancel')} back"
        lines += [styled([(hint, "muted")], theme, width), rule(theme, width)]
        return lines

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        action = self.keys.first_match(key_press(event), CHOICE_ACTIONS)
        if action == "tui.select.confirm":
            self.post_message(self.Chosen(self, self.cursor.selected))
        elif action == "tui.select.cancel":
            self.post_message(self.Chosen(self, None))
        elif action in ("tui.select.up", "tui.select.down"):
            self.cursor.move(-1 if action == "tui.select.up" else 1)
            self.view.repaint()


class _PromptArea(TextArea):
    """Enter submits, Shift+Enter / Ctrl+J insert a newline, Escape cancels."""

    def __init__(self, owner: TextPrompt) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, compact=True)
        self.owner = owner

    async def _on_key(self, event: events.Key) -> None:
        key_id = key_press(event).key_id
        if key_id in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key_id == "enter":
            event.stop()
            event.prevent_default()
            self.owner.post_message(TextPrompt.Submitted(self.owner, self.text))
            return
        if key_id == "escape":
            event.stop()
            event.prevent_default()
            self.owner.post_message(TextPrompt.Submitted(self.owner, None))
            return
        await super()._on_key(event)


class TextPrompt(Vertical):
    DEFAULT_CSS = """
    TextPrompt { height: auto; border-top: solid $primary; border-bottom: solid $primary; }
    TextPrompt > Static { padding: 0 1; }
    TextPrompt > .-title { text-style: bold; }
    TextPrompt > .-hint { color: $text-muted; }
    TextPrompt _PromptArea { height: auto; min-height: 1; max-height: 8; padding: 0 1; }
    """

    @dataclass
    class Submitted(Answer):
        prompt: TextPrompt
        text: str | None

    def __init__(self, title: str, text: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.area = _PromptArea(self)
        self.area.text = text

    @property
    def focus_target(self) -> TextArea:
        return self.area

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="-title")
        yield self.area
        yield Static("enter submit · shift+enter newline · escape cancel", classes="-hint")

    def on_mount(self) -> None:
        self.area.focus()

    def focus(self, scroll_visible: bool = True) -> TextPrompt:
        self.area.focus(scroll_visible)
        return self


class BusyPanel(Vertical, can_focus=True):
    """A one-line spinner with a message in the editor slot; the interrupt key calls ``on_interrupt``."""

    DEFAULT_CSS = """
    BusyPanel { height: 1; padding: 0 1; color: $text-muted; }
    """
    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

    def __init__(
        self, text: str, on_interrupt: Callable[[], object], *, animate: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.text = text
        self.on_interrupt = on_interrupt
        self.animations = animate  # (not ``animate``: that is Textual's method)
        self._frame = 0
        self.label = Static(f"{self.FRAMES[0]} {text}")

    def compose(self) -> ComposeResult:
        yield self.label

    def on_mount(self) -> None:
        if self.animations:
            self.set_interval(0.08, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(self.FRAMES)
        self.label.update(f"{self.FRAMES[self._frame]} {self.text}")

    def on_key(self, event: events.Key) -> None:
        if key_press(event).key_id == "escape":
            event.stop()
            event.prevent_default()
            self.on_interrupt()
