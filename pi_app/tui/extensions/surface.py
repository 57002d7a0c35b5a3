"""What extensions put on the screen: statuses, widgets, footer, header, overlays (UI thread only).

``ExtensionSurface`` carries out the ``ctx.ui`` calls that ``ext_ui`` forwards to the UI thread
(spec 40 R-UI-03..05, spec 60 R-XUI-01..03):

* ``set_status``: footer line 3 (the built-in footer sorts, flattens and cuts them).
* ``set_widget``: a list of lines (shown verbatim, ANSI colours kept, cut to the width) or a factory
  ``(app, theme) -> Widget``, above or below the editor; the same key replaces in place, None removes.
* ``set_footer`` / ``set_header``: factories; the built-in element is hidden while a replacement is
  mounted and comes back on None. A header factory may return a Textual widget (mounted above the
  transcript) or a Rich renderable / string (drawn as the transcript's first block, scrolling away
  like pi's header) — a decision where the spec only says "factory".
* ``custom``: a question like the dialogs (the flow of the bridge's ``ask_user``, answered by the
  component's ``done(value)``): in the editor slot (queued with the dialogs) or, with
  ``overlay=True``, floating on the screen's overlay layer at the place ``overlay_layout`` computes. Overlays stack: the newest or
  re-focused one draws on top and has the keyboard; closing or hiding it gives the focus to the
  overlay or dialog below, else to the editor (``focus_layers``, R-OVL-02/03).
* ``reset``: everything above goes on ``/reload`` and when the session (and so the extension
  runtime) is replaced (R-XUI-02); the new runtime's ``session_start`` builds its own.

Removed widgets get their optional ``dispose()`` called (R-UI-04). A factory that raises is reported
as one ``Extension error (<file>): …`` line and the built-in element stays (R-XUI-03).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from pi_app.tui.extensions.queue import DialogRequest, build_widget, dispose_widget

if TYPE_CHECKING:
    from textual.screen import Screen

    from pi_app.tui.extensions.overlays import OverlayOptions
    from pi_app.tui.host import ExtensionHost
    from pi_app.tui.input.focus import FocusLayers


class FooterData:
    """Read-only footer facts for a custom footer: git branch and extension statuses."""

    def __init__(self, app: ExtensionHost) -> None:
        self._app = app

    @property
    def git_branch(self) -> str | None:
        return self._app.footer.state.branch

    @property
    def statuses(self) -> dict[str, str]:
        return dict(self._app.footer.state.statuses)

    def get_git_branch(self) -> str | None:
        return self.git_branch

    def get_extension_statuses(self) -> dict[str, str]:
        return self.statuses


class LinesWidget(Static):
    """``set_widget(key, [lines])``: the lines as given, one terminal row each."""

    DEFAULT_CSS = """
    LinesWidget { height: auto; padding: 0 1; }
    """

    def __init__(self, lines: list[str]) -> None:
        text = Text("\n").join(Text.from_ansi(line) for line in lines) if lines else Text("")
        text.no_wrap = True
        text.overflow = "ellipsis"
        super().__init__(text, classes="ext-lines")
        self.lines = lines


class ExtensionOverlay(Vertical):
    """A floating ``custom`` component on the overlay layer (R-UI-05, R-OVL-02)."""

    DEFAULT_CSS = """
    ExtensionOverlay { layer: overlay; position: absolute; height: auto; background: $background; }
    """

    def __init__(self, content: Widget, options: Any, layers: FocusLayers) -> None:
        super().__init__()
        self.content = content
        self.options = options
        self.focus_layers = layers
        """The app's focus order (``input.focus``): an overlay is one of its layers."""
        self.hidden = False

    @property
    def focus_target(self) -> Widget:
        return self.content

    @property
    def capturing(self) -> bool:
        return not self.resolved_options().non_capturing

    def resolved_options(self) -> OverlayOptions:
        from pi_app.tui.extensions.overlays import OverlayOptions  # not before the first frame

        return OverlayOptions.coerce(self.options() if callable(self.options) else self.options)

    def compose(self) -> ComposeResult:
        yield self.content

    def on_mount(self) -> None:
        self._placed_for = self.screen.size
        self.screen.screen_layout_refresh_signal.subscribe(self, self._screen_laid_out)
        self.place()

    def on_resize(self) -> None:
        self.place()

    def _screen_laid_out(self, screen: Screen[Any]) -> None:
        """The terminal changed size: re-resolve the layout and ``visible(w, h)`` (R-OVL-03)."""
        if screen.size != self._placed_for:
            self._placed_for = screen.size
            self.place()

    def place(self) -> None:
        from pi_app.tui.extensions.overlays import overlay_layout

        screen = self.screen.size
        resolved = self.resolved_options()
        height = max(1, self.content.virtual_size.height or self.content.size.height or 1)
        layout = overlay_layout(resolved, height, screen.width, screen.height)
        self.styles.width = layout.width
        self.styles.max_height = layout.max_height
        self.styles.offset = (layout.col, layout.row)
        visible = resolved.visible(screen.width, screen.height) if resolved.visible else True
        shown = visible and not self.hidden
        was_shown, self.display = self.display, shown
        if was_shown and not shown:
            self.focus_layers.hidden(self)  # R-OVL-03: an overlay that cannot show passes the focus on

    def bring_to_front(self) -> None:
        """Draw above the other overlays (R-OVL-02: stack order is focus order)."""
        parent = self.parent
        if isinstance(parent, Widget) and parent.children and parent.children[-1] is not self:
            parent.move_child(self, after=parent.children[-1])
        self.focus_layers.raise_(self)


class OverlayHandle:
    """What ``on_handle`` receives for an overlay (spec 60 §2.8)."""

    def __init__(self, surface: ExtensionSurface, overlay: ExtensionOverlay) -> None:
        self._surface = surface
        self._overlay = overlay
        self._previous: Widget | None = None

    def hide(self) -> None:
        self._surface.run_on_ui(lambda: self._surface.remove_overlay(self._overlay))

    def set_hidden(self, hidden: bool) -> None:
        overlay = self._overlay

        def apply() -> None:
            if not overlay.is_mounted:
                return
            overlay.hidden = hidden
            overlay.place()
            if not hidden and overlay.display and overlay.capturing:
                overlay.bring_to_front()
                self._surface.app.focus_layers.opened(overlay)

        self._surface.run_on_ui(apply)

    def is_hidden(self) -> bool:
        return self._overlay.hidden

    def focus(self) -> None:
        overlay = self._overlay

        def apply() -> None:
            if overlay.is_mounted:
                overlay.bring_to_front()
                self._surface.app.focus_layers.focus(overlay)

        self._surface.run_on_ui(apply)

    def unfocus(self) -> None:
        overlay = self._overlay
        self._surface.run_on_ui(lambda: self._surface.app.focus_layers.hidden(overlay))

    def is_focused(self) -> bool:
        focused = self._surface.app.focused
        return focused is not None and (focused is self._overlay or self._overlay in focused.ancestors)


class ExtensionSurface:
    def __init__(self, app: ExtensionHost) -> None:
        self.app = app
        self.widgets: dict[str, Widget] = {}
        self.footer_widget: Widget | None = None
        self.header_widget: Widget | None = None
        self.header_override: Callable[[int, Any], list[Any]] | None = None
        """Draws the transcript's header block instead of the built-in one (``set_header``)."""
        self.overlays: list[ExtensionOverlay] = []
        self.input_listeners: list[Callable[[str], Any]] = []
        self.editor_factory: Callable[..., Any] | None = None

    def run_on_ui(self, fn: Callable[[], Any]) -> None:
        self.app.ext.ui._run(fn)

    # -- simple state ----------------------------------------------------------------------------

    def notify(self, text: str, level: str) -> None:
        if level == "error":
            self.app.show_error(text)
        elif level == "warning":
            self.app.show_warning(text)
        else:
            self.app.show_status(text)

    def set_status(self, key: str, text: str | None) -> None:
        statuses = self.app.footer.state.statuses
        if text is None:
            statuses.pop(key, None)
        else:
            statuses[key] = text
        self.app.footer.repaint()
        refresh = getattr(self.footer_widget, "refresh_statuses", None)  # an extension's own widget
        if callable(refresh):
            refresh()

    def set_working_message(self, message: str | None) -> None:
        run_status = self.app.run_status
        run_status.working_message = message or None
        if self.app.is_working:
            run_status.set_working(True)

    def set_working_visible(self, visible: bool) -> None:
        self.app.status_line.display = visible

    def set_title(self, title: str) -> None:
        self.app.title = title

    def set_tools_expanded(self, expanded: bool) -> None:
        self.app.tools_expanded = expanded
        self.app.transcript.set_expand_all(expanded)

    def switch_theme(self, name: str) -> None:
        error = self.app.theme_controller.switch(name)
        if error:
            self.app.show_error(error)

    def editor_snapshot(self) -> str | None:
        if not self.app.has_screen:
            return None
        return self.app.editor.expanded_text()

    # -- widgets above / below the editor ---------------------------------------------------------

    def _screen(self) -> Screen[None]:
        screen = self.app.main_screen
        if screen is None:
            raise RuntimeError("the main screen is not mounted")
        return screen

    def set_widget(self, key: str, content: list[str] | Callable[..., Any] | None, below: bool) -> None:
        container = self._screen().query_one("#widgets-below" if below else "#widgets-above")
        existing = self.widgets.pop(key, None)
        if content is None:
            self._remove(existing)
            return
        if isinstance(content, list):
            widget: Widget = LinesWidget(content)
        else:
            built = content(self.app, self.app.themes.current)
            if not isinstance(built, Widget):
                raise TypeError(f"set_widget factory returned {type(built).__name__}, not a widget")
            widget = built
        if existing is not None and existing.parent is container:
            container.mount(widget, before=existing)
        else:
            container.mount(widget)
        self._remove(existing)
        self.widgets[key] = widget

    # -- footer and header ----------------------------------------------------------------------

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        footer = self.app.footer
        widget = None
        if factory is not None:
            widget = factory(self.app, self.app.themes.current, FooterData(self.app))
            if not isinstance(widget, Widget):
                raise TypeError(f"set_footer factory returned {type(widget).__name__}, not a widget")
        self._remove(self.footer_widget)
        self.footer_widget = widget
        if widget is not None:
            self._screen().mount(widget, after=footer)
        footer.display = widget is None

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        from pi_app.tui.transcript.blocks.base import render_rich

        result = factory(self.app, self.app.themes.current) if factory is not None else None
        self._remove(self.header_widget)
        self.header_widget = None
        if factory is None:
            self.header_override = None
        elif isinstance(result, Widget):
            self.header_widget = result
            self._screen().mount(result, before=self.app.transcript)
            self.header_override = lambda width, theme: []
        else:
            renderable: RenderableType = (
                Text(result) if isinstance(result, str) else result if result is not None else Text("")
            )
            self.header_override = lambda width, theme: render_rich(renderable, width)
        self.app.header.show()

    # -- custom components ----------------------------------------------------------------------

    async def custom(
        self,
        factory: Callable[..., Any],
        overlay: bool,
        overlay_options: Any,
        on_handle: Callable[[Any], None] | None,
    ) -> Any:
        """The flow of ``ctx.ui.custom`` (run by the bridge's ``ask_user``): the component in the
        editor slot, queued with the dialogs, or floating on the overlay layer, until its
        ``done(value)``; None when its factory fails or the asking side gives up."""
        app = self.app

        def build(request: DialogRequest) -> Any:
            def done(value: Any = None) -> None:
                self.run_on_ui(lambda: request.reply(value))

            return factory(app, app.themes.current, app.keybindings, done)

        request = DialogRequest("custom", "", build, origin=factory)
        if not overlay:
            return await app.ext.dialogs.ask(request)
        return await self._overlay(request, overlay_options, on_handle)

    async def _overlay(
        self, request: DialogRequest, options: Any, on_handle: Callable[[Any], None] | None
    ) -> Any:
        """An overlay's life: built, mounted, answered by ``done(value)`` (even after ``hide()``),
        removed."""
        built = await build_widget(self.app, request)
        if built is None:
            return None
        if request.replied_early is not None:
            dispose_widget(built)
            return request.replied_early[0]
        answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        request.reply_to = lambda value: None if answered.done() else answered.set_result(value)
        overlay = ExtensionOverlay(built, options, self.app.focus_layers)
        self.overlays.append(overlay)
        try:
            await self._screen().mount(overlay)
            self.app.focus_layers.opened(overlay, capturing=overlay.capturing, focus=overlay.display)
            if on_handle is not None:
                on_handle(OverlayHandle(self, overlay))
            return await answered
        finally:
            if self.app.has_screen:  # not while the app closes: the screen goes with it
                self.remove_overlay(overlay)

    def remove_overlay(self, overlay: ExtensionOverlay) -> None:
        if overlay in self.overlays:
            self.overlays.remove(overlay)
            dispose_widget(overlay.content)
            if self.app.has_screen:
                self.app.focus_layers.closed(overlay)  # to the overlay or dialog below, else the editor
            overlay.remove()

    # -- the editor ------------------------------------------------------------------------------

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """Swap the prompt editor (R-UI-06, R-ED-17); the text is carried over."""
        self.editor_factory = factory
        self.app.ext.swap_editor(factory)

    # -- reset -----------------------------------------------------------------------------------

    def reset(self) -> None:
        """Remove everything extensions put on screen (R-XUI-02)."""
        for widget in list(self.widgets.values()):
            self._remove(widget)
        self.widgets.clear()
        if self.app.has_screen:
            self.app.footer.state.statuses.clear()
            self.app.footer.repaint()
            if self.footer_widget is not None:
                self.set_footer(None)
            if self.header_widget is not None or self.header_override is not None:
                self.set_header(None)
            for overlay in list(self.overlays):
                self.remove_overlay(overlay)
            if self.editor_factory is not None:
                self.set_editor_component(None)
            self.app.run_status.working_message = None
            self.app.status_line.display = True
        self.input_listeners.clear()

    def _remove(self, widget: Widget | None) -> None:
        if widget is None:
            return
        dispose_widget(widget)
        if widget.is_mounted:
            widget.remove()
