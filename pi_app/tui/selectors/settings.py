"""``/settings``: every interactive setting with its value; Enter or Space cycles it (R-SEL-06).

Changes apply at once and are saved to ``settings.json`` through the ``SettingsManager``. The theme
row opens a theme list where moving the selection previews the theme live; Enter keeps it, Escape
goes back to the theme that was active. A theme that fails to load shows
``Failed to load theme "<name>": …`` and the current theme stays (decision D-40).

``settings_rows(app)`` is the headless part: label, current value, the values to cycle through,
and how to apply one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.tui.input.keys import KeyPress
from pi_app.tui.selectors.select_list import SelectItem, SelectList

if TYPE_CHECKING:
    from pi_app.tui.host import CommandHost

TRANSPORTS = ("sse", "websocket", "auto")
QUEUE_MODES = ("one-at-a-time", "all")
DOUBLE_ESCAPE = ("tree", "fork", "none")
TREE_FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
PADDING = (0, 1, 2, 3)
MAX_ITEMS = (3, 5, 7, 10, 15, 20)
BOOLS = (True, False)
IDLE_TIMEOUTS_MS = (30_000, 60_000, 120_000, 300_000, 0)
"""pi 1.6.0's choices for ``httpIdleTimeoutMs`` (0: disabled); 300000 is the default."""
MERMAID = ("off", "final", "streaming")
PROJECT_TRUST = ("ask", "always", "never")
EXIT_OUTPUT = ("transcript", "resume-hint")


def idle_text(value: Any) -> str:
    ms = int(value or 0)
    if ms <= 0:
        return "disabled"
    if ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms / 1000:g} sec"


@dataclass
class SettingRow:
    key: str
    label: str
    get: Callable[[], Any]
    values: Callable[[], list[Any]]
    apply: Callable[[Any], str | None]
    """Apply and save a value; returns an error text or None."""
    opens_list: bool = False
    show: Callable[[Any], str] | None = None
    """How the value reads in the list (default: ``true``/``false`` or the value)."""

    def text(self) -> str:
        value = self.get()
        return self.show(value) if self.show is not None else _text(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def settings_rows(app: CommandHost) -> list[SettingRow]:
    s = app.settings
    if s is None:  # still starting up
        return []

    def saver(
        setter: Callable[[Any], None], after: Callable[[Any], None] | None = None
    ) -> Callable[[Any], str | None]:
        def apply(value: Any) -> str | None:
            try:
                setter(value)
            except Exception as exc:
                return f"Could not save the setting: {exc}"
            if after is not None:
                after(value)
            return None

        return apply

    def thinking_levels() -> list[str]:
        return list(app.snapshot.thinking_levels)

    chosen_level: list[str] = []
    """The level chosen here: shown at once, before the session's next snapshot says so."""

    def thinking_level() -> str:
        return chosen_level[-1] if chosen_level else app.snapshot.thinking_level

    def set_thinking(level: str) -> str | None:
        chosen_level.append(level)
        app.bridge.call_soon(lambda session: session.set_thinking_level(level))
        return None

    def set_hide_thinking(hide: bool) -> None:
        app.transcript.set_hide_thinking(hide)

    def set_padding(value: int) -> None:
        app.editor.padding_x = value
        app.editor.refresh(layout=True)

    def set_max_items(value: int) -> None:
        app.editor.max_visible_items = value

    def set_show_images(value: bool) -> None:
        app.terminal.show_images = value
        renderer = app.terminal.renderer
        if renderer is not None:
            renderer.set_mode(app.terminal.image_mode())
        app.transcript.invalidate_all()

    def set_quiet(value: bool) -> None:
        app.header.show()

    def set_auto_compact(value: bool) -> None:
        app.bridge.call_soon(lambda session: session.set_auto_compaction_enabled(value))
        app.refresh_footer()

    def theme_value() -> str:
        return app.themes.current.name

    def set_progress(value: bool) -> None:
        app.terminal.show_progress = value
        app.terminal.set_busy(app.is_working)

    def set_mermaid(mode: str) -> None:
        from pi_app.tui.transcript.blocks.diagrams import set_mermaid_mode

        set_mermaid_mode(mode)
        app.transcript.invalidate_all()

    def idle_value() -> int:
        value = s.get_http_idle_timeout_ms()
        return 300_000 if value is None else int(value)

    return [
        SettingRow(
            "autoCompact",
            "Auto-compact",
            s.get_compaction_enabled,
            lambda: list(BOOLS),
            saver(lambda v: None, set_auto_compact),
        ),
        SettingRow(
            "steeringMode",
            "Steering mode",
            s.get_steering_mode,
            lambda: list(QUEUE_MODES),
            saver(s.set_steering_mode),
        ),
        SettingRow(
            "followUpMode",
            "Follow-up mode",
            s.get_follow_up_mode,
            lambda: list(QUEUE_MODES),
            saver(s.set_follow_up_mode),
        ),
        SettingRow(
            "transport", "Transport", s.get_transport, lambda: list(TRANSPORTS), saver(s.set_transport)
        ),
        SettingRow(
            "httpIdleTimeoutMs",
            "HTTP idle timeout",
            idle_value,
            lambda: list(IDLE_TIMEOUTS_MS),
            saver(s.set_http_idle_timeout_ms),
            show=idle_text,
        ),
        SettingRow(
            "hideThinkingBlock",
            "Hide thinking",
            s.get_hide_thinking_block,
            lambda: list(BOOLS),
            saver(s.set_hide_thinking_block, set_hide_thinking),
        ),
        SettingRow(
            "markdown.mermaid",
            "Mermaid diagrams",
            s.get_mermaid_mode,
            lambda: list(MERMAID),
            saver(s.set_mermaid_mode, set_mermaid),
        ),
        SettingRow(
            "collapseChangelog",
            "Collapse changelog",
            s.get_collapse_changelog,
            lambda: list(BOOLS),
            saver(s.set_collapse_changelog),
        ),
        SettingRow(
            "quietStartup",
            "Quiet startup",
            s.get_quiet_startup,
            lambda: list(BOOLS),
            saver(s.set_quiet_startup, set_quiet),
        ),
        SettingRow(
            "defaultProjectTrust",
            "Default project trust",
            s.get_default_project_trust,
            lambda: list(PROJECT_TRUST),
            saver(s.set_default_project_trust),
            show=lambda v: str(v).capitalize(),
        ),
        SettingRow(
            "doubleEscapeAction",
            "Double-escape action",
            s.get_double_escape_action,
            lambda: list(DOUBLE_ESCAPE),
            saver(s.set_double_escape_action),
        ),
        SettingRow(
            "treeFilterMode",
            "Tree filter mode",
            s.get_tree_filter_mode,
            lambda: list(TREE_FILTERS),
            saver(s.set_tree_filter_mode),
        ),
        SettingRow(
            "thinkingLevel",
            "Thinking level",
            thinking_level,
            thinking_levels,
            set_thinking,
        ),
        SettingRow(
            "theme", "Theme", theme_value, lambda: app.themes.names(), lambda v: None, opens_list=True
        ),
        SettingRow(
            "showImages",
            "Show images",
            s.get_show_images,
            lambda: list(BOOLS),
            saver(s.set_show_images, set_show_images),
        ),
        SettingRow(
            "autoResizeImages",
            "Auto-resize images",
            s.get_image_auto_resize,
            lambda: list(BOOLS),
            saver(s.set_image_auto_resize),
        ),
        SettingRow(
            "blockImages", "Block images", s.get_block_images, lambda: list(BOOLS), saver(s.set_block_images)
        ),
        SettingRow(
            "enableSkillCommands",
            "Skill commands",
            s.get_enable_skill_commands,
            lambda: list(BOOLS),
            saver(s.set_enable_skill_commands),
        ),
        SettingRow(
            "showHardwareCursor",
            "Show hardware cursor",
            lambda: bool(s.get_show_hardware_cursor()),
            lambda: list(BOOLS),
            saver(s.set_show_hardware_cursor),
        ),
        SettingRow(
            "editorPaddingX",
            "Editor padding",
            s.get_editor_padding_x,
            lambda: list(PADDING),
            saver(s.set_editor_padding_x, set_padding),
        ),
        SettingRow(
            "autocompleteMaxVisible",
            "Autocomplete max items",
            s.get_autocomplete_max_visible,
            lambda: list(MAX_ITEMS),
            saver(s.set_autocomplete_max_visible, set_max_items),
        ),
        SettingRow(
            "terminal.showTerminalProgress",
            "Terminal progress",
            s.get_show_terminal_progress,
            lambda: list(BOOLS),
            saver(s.set_show_terminal_progress, set_progress),
        ),
        SettingRow(
            "fullscreenExitOutput",
            "Fullscreen exit output",
            s.get_fullscreen_exit_output,
            lambda: list(EXIT_OUTPUT),
            saver(s.set_fullscreen_exit_output),
        ),
    ]


def next_value(values: list[Any], current: Any) -> Any:
    if not values:
        return current
    return values[(values.index(current) + 1) % len(values)] if current in values else values[0]


class SettingsList(SelectList):
    """The settings list: Space cycles like Enter while the search is empty; after a letter it is
    part of the search (``exit output``), as in pi 1.6.0."""

    def handle_key(self, press: KeyPress) -> None:  # type: ignore[override]  # SelectList's, not Widget's
        if press.key_id == "space" and not self.model.query:
            item = self.model.current()
            if item is not None and self.on_select is not None:
                self.on_select(item)
            return
        super().handle_key(press)


def open_settings(app: CommandHost, selected: str | None = None) -> None:
    """The /settings list; ``selected`` is the row to start on (the one a sub-list returns to)."""
    if app.settings is None:
        app.show_status("Still starting up…")
        return
    rows = {row.key: row for row in settings_rows(app)}

    def items() -> list[SelectItem]:
        return [SelectItem(row.key, row.label, row.text(), search_text=row.label) for row in rows.values()]

    def choose(item: SelectItem) -> None:
        row = rows[item.value]
        if row.opens_list:  # coming back lands on this row again, not on the first one
            open_theme_list(app, back=lambda: open_settings(app, selected=item.value))
            return
        value = next_value(row.values(), row.get())
        error = row.apply(value)
        if error:
            app.show_error(error)
        selector.set_items(items(), keep=item.value)

    selector = SettingsList(
        items(),
        title="Settings",
        keybindings=app.keybindings,
        theme=app.themes.current,
        hint="enter/space change · type to search · esc close",
        max_visible=12,
        on_select=choose,
        on_cancel=app.restore_editor,
        id="settings-selector",
    )
    if selected is not None:
        selector.model.select_value(selected)
    app.show_in_editor_slot(selector)


def open_theme_list(app: CommandHost, back: Callable[[], None] | None = None) -> None:
    """Pick a theme with live preview; Escape restores the theme that was active. Theme files
    added to the themes folder since start-up are offered too (no /reload needed)."""
    app.theme_controller.discover_new()
    original = app.themes.current

    def preview(item: SelectItem) -> None:
        error = app.themes.activate(item.value)
        if error is None:
            app.theme_controller.apply(app.themes.current)
            selector.pi_theme = app.themes.current
            selector.notice = None
        else:
            selector.notice = error.splitlines()[0]

    def choose(item: SelectItem) -> None:
        error = app.theme_controller.switch(item.value)
        if error is not None:
            app.theme_controller.apply(original)
            app.show_error(error)
        else:
            app.show_status(f"Theme: {item.value}")
        (back or app.restore_editor)()

    def cancel() -> None:
        app.theme_controller.apply(original)
        (back or app.restore_editor)()

    names = [*app.themes.names(), "system"]  # pi 1.6.0's system: follows the terminal's background
    selector = SelectList(
        [SelectItem(name, name, marker="✓ " if name == original.name else "  ") for name in names],
        title="Theme",
        keybindings=app.keybindings,
        theme=app.themes.current,
        hint="enter select · esc back",
        on_select=choose,
        on_cancel=cancel,
        on_highlight=preview,
        id="theme-selector",
    )
    selector.model.select_value(original.name)
    app.show_in_editor_slot(selector)
