"""``LineView``: one Line-API widget that paints a short list of lines for the selectors.

Selectors show a window of a possibly huge list (a 20,000-entry tree, hundreds of sessions), so
the rows are never widgets (style guide P7): the owner's ``painter(width)`` returns the strips of
what is on screen right now, ``LineView`` sizes itself to that many lines and serves them from
``render_line``. ``repaint()`` after every model change re-runs the painter once.

Also here: the theme lookup selectors share (pi colour tokens → Rich styles, spec 60 §2.6) and
``styled``, which turns ``(text, token)`` runs into a strip cropped or padded to the width.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from pi_app.tui.editor.segments import truncate_cells
from pi_app.tui.transcript.blocks.theme import FALLBACK_DARK, FALLBACK_LIGHT, BlockTheme

if TYPE_CHECKING:
    from pi_app.tui.theme.themes import ThemeManager

Painter = Callable[[int], list[Strip]]
Run = tuple[str, "str | Style | None"]
"""Text and its colour: a pi theme token, a ready Rich ``Style``, or None for plain text."""


@runtime_checkable
class ThemedApp(Protocol):
    """An app that draws with a pi theme (``PiApp``; the ``pi -r`` picker app has none)."""

    @property
    def themes(self) -> ThemeManager: ...


def theme_of(widget: Widget) -> BlockTheme:
    """The app's pi render theme, or the built-in palette matching Textual's dark/light mode."""
    app = widget.app
    if isinstance(app, ThemedApp):
        return app.themes.current
    return FALLBACK_DARK if app.current_theme.dark else FALLBACK_LIGHT


def fg(theme: BlockTheme, token: str | Style | None) -> Style:
    if isinstance(token, Style):
        return token
    return (theme.fg.get(token) or Style.null()) if token else Style.null()


def styled(
    runs: Iterable[Run],
    theme: BlockTheme,
    width: int,
    *,
    bold: bool = False,
    background: str | None = None,
) -> Strip:
    """A strip of ``runs`` (text, colour token) cropped or padded to ``width`` cells."""
    base = (theme.bg.get(background) or Style.null()) if background else Style.null()
    extra = Style(bold=True) if bold else Style.null()
    segments = []
    room = width  # a character takes at least one cell (zero-width marks aside): cut the rest early
    for text, token in runs:
        if not text:
            continue
        if len(text) > room:
            text = text[:room]
        segments.append(Segment(text, base + fg(theme, token) + extra))
        room -= len(text)
        if room <= 0:
            break
    return Strip(segments).crop_extend(0, width, base)


def fit(runs: list[Run], width: int, marker: str = "...") -> list[Run]:
    """``runs`` cut to ``width`` cells (a CJK character takes two), ending with ``marker`` when
    something was cut."""
    if sum(cell_len(text) for text, _ in runs) <= width:
        return runs
    room = max(0, width - cell_len(marker))
    out: list[Run] = []
    for text, token in runs:
        if room <= 0:
            break
        piece = truncate_cells(text, room, "")
        out.append((piece, token))
        room -= cell_len(piece)
    out.append((marker[: max(0, width)], out[-1][1] if out else None))
    return out


def rule(theme: BlockTheme, width: int, token: str = "border") -> Strip:
    """A full-width horizontal line in the colour of ``token``."""
    return Strip([Segment("─" * width, fg(theme, token))], width)


class LineView(Widget):
    """Paints the strips its owner computes; as tall as the number of strips."""

    DEFAULT_CSS = """
    LineView { height: auto; width: 1fr; }
    """

    def __init__(self, painter: Painter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._painter = painter
        self._strips: list[Strip] | None = None
        self._painted_width = -1
        self._on_render: list[Callable[[], object]] = []

    def when_rendered(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once, when the compositor next takes this view's lines for a frame
        (the frame is then being written, not merely scheduled)."""
        self._on_render.append(callback)
        self.refresh()

    def on_mount(self) -> None:
        self.repaint()

    def repaint(self) -> None:
        """The content changed: paint again (once) and resize to the new line count.

        Line counts never depend on the width (every line is cropped), so before the first
        layout the app's width is good enough to size the widget."""
        self._strips = None
        if self.is_mounted:
            self._paint(self.size.width or self.app.size.width)
        self.refresh()

    def _paint(self, width: int) -> list[Strip]:
        strips = self._painter(width)
        self._strips = strips
        self._painted_width = width
        height = self.styles.height
        if height is None or height.value != len(strips):
            self.styles.height = len(strips)
        return strips

    def on_resize(self) -> None:
        self.repaint()

    def render_line(self, y: int) -> Strip:
        if self._on_render:
            waiting, self._on_render = self._on_render, []
            for callback in waiting:
                callback()
        width = self.size.width
        strips = self._strips
        if strips is None or self._painted_width != width:
            strips = self._paint(width)
        return strips[y] if 0 <= y < len(strips) else Strip.blank(width)

    def lines(self) -> list[str]:
        """The painted lines as plain text (for tests)."""
        width = self.size.width or 80
        strips = self._strips if self._strips is not None and self._painted_width == width else None
        return [strip.text for strip in (strips or self._painter(width))]
