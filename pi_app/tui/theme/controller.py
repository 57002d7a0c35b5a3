"""The theme controller: which pi theme the app draws with, and every way that changes (R-THEME-01…05).

``ThemeController`` owns the ``ThemeManager`` (the known themes and the current one) and what
moves it: the start-up choice (``--theme``, the ``theme`` setting, ``system`` following the
terminal's background; a theme only the session's resource loader knows waits for it), the
session's loader themes, ``/settings`` (switch, persisted), rediscovery of theme files, hot
reload of the active custom theme's file (watchfiles, D-40: a broken file keeps the theme), and
the terminal switching light/dark (DEC 2031). It paints a theme itself (``paint``): Textual's
theme (the ``$pi-…`` CSS variables), the transcript, the pending area, the editors and the footer.
The terminal's background is what the app is told, else what the start-up probe found, else
COLORFGBG's (``15;0`` is dark).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_app.tui.chrome.resources import ResourceHost
from pi_app.tui.chrome.resources import themes as loader_themes
from pi_app.tui.editor.widget import PromptEditor
from pi_app.tui.theme.themes import PiTheme, ThemeManager, discover_user_themes, textual_theme

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.theme import Theme

    from pi_app.tui.chrome.footer import Footer
    from pi_app.tui.chrome.status import PendingArea
    from pi_app.tui.terminal.probe import TerminalSetup
    from pi_app.tui.theme.watch import FileWatcher
    from pi_app.tui.transcript.view import Transcript


def light_background_from_env() -> bool:
    """COLORFGBG's background index (``15;0`` is dark); dark when unknown (R-TERM-02 fallback)."""
    value = os.environ.get("COLORFGBG", "")
    try:
        return int(value.rsplit(";", 1)[-1]) >= 8
    except ValueError:
        return False


class ThemeHost(ResourceHost, Protocol):
    """What the theme controller asks of the app: the loaded resources (the session's loader
    themes), the widgets it paints and Textual's theme."""

    theme: str
    """Textual's theme (``App.theme``)."""
    terminal: TerminalSetup
    """What the start-up probe found (the terminal's background)."""

    def register_theme(self, theme: Theme) -> None: ...
    @property
    def main_screen(self) -> Screen[None] | None: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def pending(self) -> PendingArea: ...
    @property
    def footer(self) -> Footer: ...
    def show_status(self, text: str) -> None: ...
    def show_warning(self, text: str) -> None: ...
    def show_error(self, text: str) -> None: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...


class ThemeController:
    """The app's themes (UI thread; the file watcher calls back through ``call_from_thread``)."""

    def __init__(self, host: ThemeHost, *, light_background: bool | None) -> None:
        self._host = host
        if light_background is None and host.terminal.probe.color_scheme is not None:
            light_background = host.terminal.probe.color_scheme == "light"
        self.light_background = (
            light_background if light_background is not None else light_background_from_env()
        )
        self.manager = self._load()
        self._unresolved: str | None = None
        """A selected theme not known before the session's loader ran (a project or package theme)."""
        self._watcher: FileWatcher | None = None
        self._choose_startup_theme()

    @property
    def current(self) -> PiTheme:
        return self.manager.current

    # -- loading --------------------------------------------------------------------------------------

    def _load(self) -> ThemeManager:
        from pi_app.coding.resources.themes import ThemeError, load_theme_file

        host = self._host
        specs = []
        problems: list[str] = []
        for raw in host.options.themes:
            try:
                specs.append(load_theme_file(os.path.join(host.cwd, os.path.expanduser(raw))))
            except ThemeError as exc:
                problems.append(str(exc).splitlines()[0])
        if host.session is not None:
            specs.extend(loader_themes(host))
        if not host.options.no_themes:
            found, broken = discover_user_themes(host.agent_dir / "themes")
            specs.extend(found)
            problems.extend(broken)
        return ThemeManager(specs, diagnostics=problems)

    def discover_new(self) -> None:
        """Add the theme files that appeared in ``<agentDir>/themes`` since start-up (the /settings
        theme list calls it; issue 17, defect 10). Known names and broken files are left alone."""
        host = self._host
        if host.options.no_themes:
            return
        found, _broken = discover_user_themes(host.agent_dir / "themes")
        known = set(self.manager.names())
        self.manager.add_specs(spec for spec in found if spec.name not in known)

    def settings_theme(self) -> str | None:
        """The ``theme`` setting: the session's settings manager's once it exists; before that the
        same files read as the manager reads them (``startup_theme``, which the first frame uses)."""
        host = self._host
        if host.settings is not None:
            return host.settings.get_theme() or None
        from pi_app.coding.settings_files import startup_theme

        return startup_theme(host.cwd, host.agent_dir)

    def _choose_startup_theme(self) -> None:
        from pi_app.coding.resources.themes import SYSTEM_THEME
        from pi_app.coding.settings_files import startup_theme
        from pi_app.tui.theme.themes import resolve_selection

        host = self._host
        setting = host.options.use_theme or startup_theme(host.cwd, host.agent_dir)
        selected = resolve_selection(setting, self.light_background)
        if selected == SYSTEM_THEME:  # pi 1.6.0's default: follow the terminal's background
            selected = None
        if selected and selected not in self.manager.names():
            self._unresolved = selected
            selected = None
        warning = self.manager.initial(selected, self.light_background)
        if warning:
            self.manager.diagnostics.append(warning)

    def adopt_loader_themes(self) -> None:
        """Add the themes the session's resource loader found; select a theme that was waiting for them."""
        fresh = self._load()  # the loader's themes first: it already applied pi's precedence
        fresh.current = self.manager.current
        self.manager = fresh
        wanted, self._unresolved = self._unresolved, None
        if not wanted:
            return
        fallback = self.manager.current.name
        error = (
            self.switch(wanted, persist=False)
            if wanted in self.manager.names()
            else f'Failed to load theme "{wanted}": Theme "{wanted}" not found'
        )
        if error is not None:
            self._host.show_warning(f"{error}; using {fallback}")

    # -- switching ------------------------------------------------------------------------------------

    def apply(self, theme: PiTheme) -> None:
        """Draw everything with ``theme`` (R-TUI-06, R-THEME-04) and watch its file."""
        self.manager.activate_theme(theme)
        self.paint(theme)
        self._watch(theme)

    def paint(self, theme: PiTheme) -> None:
        """Every widget draws with ``theme`` now (it is already the current one)."""
        host = self._host
        self.register(theme)
        host.transcript.set_render_theme(theme)
        host.transcript.invalidate_all()
        host.pending.theme = theme
        host.pending.repaint()
        for editor in host.main_screen.query(PromptEditor) if host.main_screen else []:
            editor.set_theme(theme)
        host.footer.set_theme_styles({name: theme.fg[name] for name in ("dim", "warning", "error")})

    def register(self, theme: PiTheme) -> None:
        """Make ``theme`` Textual's theme too (the ``$pi-…`` CSS variables follow it)."""
        textual = textual_theme(theme)
        self._host.register_theme(textual)
        self._host.theme = textual.name

    def switch(self, name: str, *, persist: bool = True) -> str | None:
        """Switch to theme ``name``; on failure the current theme stays and the error is returned."""
        error = self.manager.activate(name)
        if error is not None:
            return error
        self.apply(self.manager.current)
        settings = self._host.settings
        if persist and settings is not None:
            try:
                settings.set_theme(name)
            except Exception as exc:
                return f"Theme applied but not saved: {exc}"
        return None

    def reload(self) -> None:
        """Rediscover theme files and re-apply the current theme; a broken file keeps it (D-40)."""
        name = self.manager.current.name
        fresh = self._load()
        fresh.current = self.manager.current
        self.manager = fresh
        for problem in fresh.diagnostics:
            self._host.show_warning(problem)
        error = self.manager.activate(name)
        if error is not None:
            self._host.show_error(error)
            return
        self.apply(self.manager.current)

    def appearance_changed(self, light: bool) -> None:
        """The terminal switched light/dark (DEC 2031): the ``system`` theme and ``light/dark``
        pairs follow it (pi 1.6.0); a theme chosen by name stays."""
        from pi_app.coding.resources.themes import SYSTEM_THEME
        from pi_app.tui.theme.themes import resolve_selection

        self.light_background = light
        self.manager.light_background = light
        setting = self.settings_theme() or SYSTEM_THEME
        if setting != SYSTEM_THEME and "/" not in setting:
            return
        wanted = resolve_selection(setting, light) or SYSTEM_THEME
        if wanted == SYSTEM_THEME:
            wanted = "light" if light else "dark"
        if wanted != self.manager.current.name:
            error = self.switch(wanted, persist=False)
            if error:
                self._host.show_warning(error)

    # -- hot reload -----------------------------------------------------------------------------------

    def _watch(self, theme: PiTheme) -> None:
        from pi_app.coding.resources.themes import BUILTIN_THEME_NAMES
        from pi_app.tui.theme.watch import FileWatcher

        if self._watcher is not None:
            if theme.source_path is not None and self._watcher.path == theme.source_path.resolve():
                return
            self._watcher.stop()
            self._watcher = None
        if theme.source_path is None or theme.name in BUILTIN_THEME_NAMES:
            return
        name = theme.name
        self._watcher = FileWatcher(
            theme.source_path, lambda _path: self._host.call_from_thread(self._file_changed, name)
        )

    def _file_changed(self, name: str) -> None:
        if self.manager.current.name != name:
            return
        error = self.manager.activate(name)
        if error is not None:
            self._host.show_error(error)
            return
        self.apply(self.manager.current)
        self._host.show_status(f"Theme reloaded: {name}")

    def stop(self) -> None:
        """Stop watching the theme file (the app is closing)."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
