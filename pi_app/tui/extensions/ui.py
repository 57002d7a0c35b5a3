"""The interactive ``ExtensionUIContext`` (spec 40 §2.6, R-UI-01..06; spec 60 R-XUI-01..03).

Extensions call ``ctx.ui`` from the agent's worker thread (event handlers, tools, commands) and
sometimes from the UI thread (their own widgets' callbacks). ``TuiExtensionUI`` is the thread-safe
front: it never touches a widget itself. Every change is handed to the app's UI thread as a
``RunOnUI`` message (``post_message`` is thread-safe) or run at once when the caller already is
on the UI thread. Questions (``select``, ``confirm``, ``input``, ``editor``, ``custom``) are
asked the one way anything off the UI thread asks the user, the bridge's ``ask_user``: its flow
(``ExtensionDialogs.ask``, or ``ExtensionSurface.custom`` for components) shows the dialog in the
editor slot and answers; the caller's loop waits with ``settle_dialog`` (answer, timeout or abort,
whichever comes first; a timed dialog's title counts down). A timeout or abort cancels the wait,
and with it the flow: the dialog leaves the screen and the caller gets the cancel value. So a
dialog never blocks the UI thread and the agent loop keeps running while it waits (R-UI-02).

Reads (``get_editor_text``, ``theme``, ``get_tools_expanded``, themes) return plain values the UI
thread owns; reading them from another thread is safe (no widget method is called).

What the UI thread does with each call lives in ``ext_surface`` (widgets, statuses, footer,
header, overlays) and ``ext_dialogs`` (dialogs in the editor slot).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget

    from pi_app.ai.event_stream import AbortSignal
    from pi_app.tui.extensions.queue import DialogRequest
    from pi_app.tui.extensions.surface import ExtensionSurface
    from pi_app.tui.host import ExtensionHost
    from pi_app.tui.theme.themes import PiTheme


@dataclass
class RunOnUI(Message):
    """``fn()`` to run on the UI thread (posted from the agent thread)."""

    fn: Callable[[], Any]
    origin: Any = None
    """The extension callable the work came from (for the error line's file name)."""


class TuiExtensionUI:
    """``ctx.ui`` in the full-screen app. Safe to call from any thread."""

    def __init__(self, app: ExtensionHost) -> None:
        self._app = app
        self.working_visible = True

    # -- thread hopping -------------------------------------------------------------------------

    def _on_ui_thread(self) -> bool:
        return threading.get_ident() == self._app._thread_id

    def _run(self, fn: Callable[[], Any], origin: Any = None) -> None:
        """Run ``fn`` on the UI thread: now if we are there, else posted (never waits)."""
        if self._on_ui_thread():
            self._app.ext.run_guarded(fn, origin)
        else:
            self._app.post_message(RunOnUI(fn, origin))

    @property
    def _surface(self) -> ExtensionSurface:
        return self._app.ext.surface

    # -- dialogs (R-UI-01) ----------------------------------------------------------------------

    async def _ask(
        self,
        kind: str,
        title: str,
        build: Callable[[DialogRequest], Widget],
        cancel_value: None,
        *,
        timeout: float | None,
        signal: AbortSignal | None,
    ) -> str | None:
        """The dialog's answer (the chosen option or the typed text); ``cancel_value`` when it is
        cancelled, times out or the signal aborts (``settle_dialog`` then cancels the wait, and
        the bridge takes the dialog off the screen)."""
        from pi_app.coding.extensions.ui import countdown_title, settle_dialog  # not before the first frame
        from pi_app.tui.extensions.queue import DialogRequest

        if signal is not None and signal.aborted:
            return cancel_value
        request = DialogRequest(kind, title, build)
        dialogs = self._app.ext.dialogs
        if timeout is not None:
            request.title = countdown_title(title, timeout)

        def tick(remaining: float) -> None:
            text = countdown_title(title, remaining)
            self._run(lambda: dialogs.retitle(request, text))

        answer: str | None = await settle_dialog(
            self._app.bridge.ask_user(
                lambda: self._app.ext.run_guarded_question(lambda: dialogs.ask(request)), cancel_value
            ),
            cancel_value=cancel_value,
            timeout=timeout,
            signal=signal,
            on_tick=tick if timeout is not None else None,
        )
        return answer

    async def select(
        self,
        title: str,
        options: list[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        from pi_app.tui.extensions.dialogs import SelectDialog

        items = [str(option) for option in options]
        return await self._ask(
            "select",
            title,
            lambda request: SelectDialog(request, items),
            None,
            timeout=timeout,
            signal=signal,
        )

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool:
        from pi_app.tui.extensions.dialogs import SelectDialog

        answer = await self._ask(
            "confirm",
            title,
            lambda request: SelectDialog(request, ["Yes", "No"], message=message),
            None,
            timeout=timeout,
            signal=signal,
        )
        return answer == "Yes"

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        from pi_app.tui.extensions.dialogs import InputDialog

        return await self._ask(
            "input",
            title,
            lambda request: InputDialog(request, placeholder or ""),
            None,
            timeout=timeout,
            signal=signal,
        )

    async def editor(
        self,
        title: str,
        prefill: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        from pi_app.tui.extensions.dialogs import EditorDialog

        return await self._ask(
            "editor",
            title,
            lambda request: EditorDialog(request, prefill or ""),
            None,
            timeout=timeout,
            signal=signal,
        )

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], None] | None = None,
    ) -> Any:
        """The component's ``done(value)``; None when the factory fails or the app closes."""
        surface, ext = self._surface, self._app.ext
        return await self._app.bridge.ask_user(
            lambda: ext.run_guarded_question(
                lambda: surface.custom(factory, overlay, overlay_options, on_handle), factory
            ),
            None,
        )

    # -- fire and forget ------------------------------------------------------------------------

    def notify(self, message: str, level: str = "info") -> None:
        text = str(message)
        self._run(lambda: self._surface.notify(text, level))

    def set_status(self, key: str, text: str | None) -> None:
        self._run(lambda: self._surface.set_status(str(key), None if text is None else str(text)))

    def set_working_message(self, message: str | None = None) -> None:
        self._run(lambda: self._surface.set_working_message(message))

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None:
        below = placement == "belowEditor"
        if isinstance(content, list | tuple):
            content = [str(line) for line in content]
        self._run(lambda: self._surface.set_widget(str(key), content, below), content)

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        self._run(lambda: self._surface.set_footer(factory), factory)

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        self._run(lambda: self._surface.set_header(factory), factory)

    def set_title(self, title: str) -> None:
        text = str(title)
        self._run(lambda: self._surface.set_title(text))

    def paste_to_editor(self, text: str) -> None:
        self._run(lambda: self._app.editor.paste(str(text)))

    def set_editor_text(self, text: str) -> None:
        self._run(lambda: self._app.editor.set_text(str(text)))

    def get_editor_text(self) -> str:
        editor = self._surface.editor_snapshot()
        return editor if editor is not None else ""

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        self._run(lambda: self._surface.set_editor_component(factory), factory)

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        listeners = self._surface.input_listeners
        listeners.append(handler)

        def unsubscribe() -> None:
            if handler in listeners:
                listeners.remove(handler)

        return unsubscribe

    # -- themes and display state -----------------------------------------------------------------

    @property
    def theme(self) -> PiTheme:
        return self._app.themes.current

    def get_all_themes(self) -> list[dict[str, Any]]:
        """``[{name, path}]``; built-in themes have no path."""
        from pi_app.coding.resources.themes import BUILTIN_THEME_NAMES

        specs = self._app.themes.specs
        return [
            {"name": name, "path": None if name in BUILTIN_THEME_NAMES else specs[name].file_path}
            for name in list(specs)
        ]

    def get_theme(self, name: str) -> PiTheme | None:
        try:
            return self._app.themes.load(name)
        except Exception:
            return None

    def set_theme(self, name_or_theme: object) -> dict[str, Any]:
        """A known name switches (and is saved, R-XUI-01); a ``PiTheme`` is applied for this run."""
        from pi_app.tui.theme.themes import PiTheme

        themes = self._app.themes
        if isinstance(name_or_theme, str):
            if name_or_theme not in themes.names():
                return {"success": False, "error": f"Theme not found: {name_or_theme}"}
            name = name_or_theme
            self._run(lambda: self._surface.switch_theme(name))
            return {"success": True}
        if isinstance(name_or_theme, PiTheme):
            theme = name_or_theme
            self._run(lambda: self._app.theme_controller.apply(theme))
            return {"success": True}
        return {"success": False, "error": "set_theme needs a theme name or a theme object"}

    def get_tools_expanded(self) -> bool:
        return bool(self._app.tools_expanded)

    def set_tools_expanded(self, expanded: bool) -> None:
        self._run(lambda: self._surface.set_tools_expanded(bool(expanded)))

    def set_working_visible(self, visible: bool) -> None:
        self.working_visible = bool(visible)
        self._run(lambda: self._surface.set_working_visible(bool(visible)))

    def set_working_indicator(self, frames: list[str] | None = None, interval_ms: int | None = None) -> None:
        return None  # MAY (newer pi): the status line keeps its own spinner

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        return None  # MAY (newer pi)
