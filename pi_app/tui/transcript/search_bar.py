"""The transcript search bar: a small box floating at the top right of the transcript (pi 1.6.0).

``tui.altScreen.search`` (Ctrl+Shift+F) opens it with the keyboard; what is typed searches the
rendered transcript as it is typed (``Transcript.set_search``), ``tui.altScreen.searchNext``
(Enter, Ctrl+G) and ``searchPrevious`` (Shift+Enter, Ctrl+Shift+G) move between matches, wrapping,
and ``searchClose`` (Escape) closes it, leaving the view where it is. The transcript's scrolling
and prompt-jump keys keep working while it is open. The box shows the query, a ``3/10`` counter (or
``No matches``) and the keys of the two moves, read from the effective keybindings.

It sits on the overlay layer and registers with ``FocusLayers``, so closing it gives the focus
back to what had it (the editor, or a selector in the slot). ``open_search`` and ``close_search``
mount and remove it; ``search_key_elsewhere`` lets the search key open it whatever has the
keyboard (a selector, a dialog), as in 1.6.0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widget import Widget

from pi_app.tui.editor.widget import PromptEditor
from pi_app.tui.input.keybindings import TRANSCRIPT_SCROLL_ACTIONS, Keybindings, display_key
from pi_app.tui.input.keys import key_press
from pi_app.tui.transcript.blocks.theme import fg

if TYPE_CHECKING:
    from textual.screen import Screen

    from pi_app.tui.app import PiApp
    from pi_app.tui.input.focus import FocusLayers
    from pi_app.tui.transcript.view import Transcript

BAR_WIDTH = 48


class SearchHost(Protocol):
    """What opening and closing the search bar needs of the app."""

    focus_layers: FocusLayers

    @property
    def main_screen(self) -> Screen[None] | None: ...
    @property
    def transcript(self) -> Transcript: ...


class SearchKeyHost(SearchHost, Protocol):
    """What telling the search key apart needs of the app: who has the keyboard."""

    keybindings: Keybindings

    @property
    def screen(self) -> Screen[Any]: ...
    @property
    def focused(self) -> Widget | None: ...


def open_search(app: SearchHost) -> None:
    """Show the search bar (or focus it, when it is open) and start an empty search."""
    screen = app.main_screen
    if screen is None:
        return
    existing = screen.query(SearchBar)
    if existing:
        app.focus_layers.opened(existing.first())
        return
    bar = SearchBar()
    screen.mount(bar)
    app.transcript.set_search("")
    app.focus_layers.opened(bar)


def close_search(app: SearchHost) -> None:
    """Remove the search bar (the focus goes back) and the search's highlights."""
    screen = app.main_screen
    if screen is None:
        return
    for bar in list(screen.query(SearchBar)):
        app.focus_layers.closed(bar)
        bar.remove()
    app.transcript.set_search(None)


def search_key_elsewhere(app: SearchKeyHost, event: events.Key) -> bool:
    """Open the search for the search key pressed outside the editor and the bar (they handle it
    themselves), on the main screen; True when it did."""
    if app.main_screen is None or app.screen is not app.main_screen:
        return False
    focused = app.focused
    if focused is None or isinstance(focused, (PromptEditor, SearchBar)):
        return False
    if not app.keybindings.matches(key_press(event), "tui.altScreen.search"):
        return False
    open_search(app)
    return True


class SearchBar(Widget, can_focus=True):
    DEFAULT_CSS = f"""
    SearchBar {{
        layer: overlay;
        position: absolute;
        width: {BAR_WIDTH};
        height: 3;
        background: $background;
    }}
    """

    def __init__(self) -> None:
        super().__init__(id="transcript-search")
        self.query_text = ""

    # -- placement ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._transcript.search_listener = self.refresh
        self.place()
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self.place())

    def place(self) -> None:
        width = self.screen.size.width
        self.styles.width = min(BAR_WIDTH, max(12, width - 2))
        self.styles.offset = (max(0, width - BAR_WIDTH - 1), 1)

    # -- drawing --------------------------------------------------------------------------------

    @property
    def _pi(self) -> PiApp:
        return cast("PiApp", self.app)

    @property
    def _transcript(self) -> Transcript:
        return self._pi.transcript

    def _move_hint(self) -> str:
        kb = self._pi.keybindings
        previous = kb.keys("tui.altScreen.searchPrevious")
        following = kb.keys("tui.altScreen.searchNext")
        parts = []
        if previous:
            parts.append(f"↑ {display_key(previous[0])}")
        if following:
            parts.append(f"↓ {display_key(following[0])}")
        return " · ".join(parts)

    def render(self) -> Text:
        theme = self._transcript.render_theme
        border = fg(theme, "borderAccent")
        muted = fg(theme, "muted")
        width = max(12, self.size.width or BAR_WIDTH)
        inner = width - 2
        search = self._transcript.search
        counter = search.counter() if search is not None else ""
        query = self.query_text
        room = inner - 2 - cell_len(counter) - 2  # a space each side, the caret, a gap
        while cell_len(query) > room and query:
            query = query[1:]  # keep the end of a long query in view
        text = Text(no_wrap=True, overflow="crop")
        text.append("┌" + "─" * inner + "┐\n", border)
        text.append("│", border)
        text.append(" " + query)
        text.append(" ", "reverse")
        gap = inner - 1 - cell_len(query) - 1 - cell_len(counter) - 1
        text.append(" " * max(1, gap))
        text.append(counter, muted)
        text.append(" ", None)
        text.append("│\n", border)
        hint = self._move_hint()
        hint_cells = cell_len(hint) + 2
        if hint and hint_cells + 1 <= inner:
            text.append("└" + "─" * (inner - hint_cells - 1), border)
            text.append(f" {hint} ", muted)
            text.append("─┘", border)
        else:
            text.append("└" + "─" * inner + "┘", border)
        return text

    # -- keys -----------------------------------------------------------------------------------

    def on_unmount(self) -> None:
        try:
            transcript = self._transcript
        except Exception:  # the app is shutting down: nothing to detach from
            return
        if transcript.search_listener == self.refresh:
            transcript.search_listener = None

    def set_query(self, query: str) -> None:
        self.query_text = query
        self._transcript.set_search(query)
        self.refresh()

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        first_line = event.text.replace("\r\n", "\n").split("\n", 1)[0]
        if first_line:
            self.set_query(self.query_text + first_line)

    async def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        press = key_press(event)
        kb = self._pi.keybindings
        if kb.matches(press, "tui.altScreen.searchClose") or kb.matches(press, "app.clear"):
            close_search(self._pi)
            return
        if kb.matches(press, "tui.altScreen.searchNext"):
            self._transcript.search_step(1)
        elif kb.matches(press, "tui.altScreen.searchPrevious"):
            self._transcript.search_step(-1)
        elif kb.matches(press, "tui.altScreen.search"):
            pass  # already open
        elif (action := kb.first_match(press, TRANSCRIPT_SCROLL_ACTIONS)) is not None:
            from pi_app.tui.commands.actions import run_action

            run_action(self._pi, action)
        elif kb.matches(press, "tui.editor.deleteCharBackward"):
            if self.query_text:
                from pi_app.tui.editor.cursor import graphemes

                clusters = graphemes().findall(self.query_text)
                self.set_query("".join(clusters[:-1]))
            return
        elif kb.matches(press, "tui.editor.deleteWordBackward") or kb.matches(
            press, "tui.editor.deleteToLineStart"
        ):
            self.set_query("")
            return
        elif press.character:
            self.set_query(self.query_text + press.character)
            return
        elif press.key_id == "space" or press.key_id == "shift+space":
            self.set_query(self.query_text + " ")
            return
        self.refresh()
