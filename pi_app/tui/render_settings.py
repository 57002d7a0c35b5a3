"""The settings that change how the app draws, handed to what draws with them (spec 60 §3.10).

``apply_render_settings`` runs once the session (and so its settings) is ready, before any stored
message is drawn: the editor's padding and autocomplete height, how mermaid diagrams are drawn,
the terminal's progress indicator and inline image width, the transcript's layout (output pad,
code block indent) and hidden thinking blocks, and OSC 8 links (``hyperlinks``: decided in a
thread, since tmux may be asked; the transcript redraws when the answer changes it). /settings
changes them one at a time afterwards (``selectors.settings``).

Links, mermaid and the layout are process-wide render options: ``reset_render_options`` puts them
back to their defaults when the app closes. Nothing here is imported before the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_app.tui.host import SessionHost

if TYPE_CHECKING:
    from pi_app.tui.terminal.probe import TerminalSetup


class RenderSettingsHost(SessionHost, Protocol):
    """What applying the render settings needs of the app: the settings, the widgets that draw
    with them (``SessionHost``), and the terminal (the links are decided on a thread)."""

    terminal: TerminalSetup

    @property
    def has_screen(self) -> bool: ...


def apply_render_settings(app: RenderSettingsHost) -> None:
    """Hand the session's settings to everything that draws with them."""
    settings = app.settings
    if settings is None:
        return
    from pi_app.tui.transcript.blocks import layout
    from pi_app.tui.transcript.blocks.diagrams import set_mermaid_mode

    editor = app.editor
    editor.padding_x = settings.get_editor_padding_x()  # typed and clamped by the manager
    editor.max_visible_items = settings.get_autocomplete_max_visible()
    set_mermaid_mode(settings.get_mermaid_mode())
    app.terminal.show_progress = settings.get_show_terminal_progress()
    app.terminal.set_busy(app.is_working)
    apply_hyperlinks(app)
    # before any message is drawn
    layout.configure(output_pad=settings.get_output_pad(), code_block_indent=settings.get_code_block_indent())
    if app.terminal.renderer is not None:
        app.terminal.renderer.max_width_cells = settings.get_image_width_cells()  # terminal.imageWidthCells
    app.transcript.set_hide_thinking(settings.get_hide_thinking_block())


def apply_hyperlinks(app: RenderSettingsHost) -> None:
    """Decide on OSC 8 links (``hyperlinks``; tmux is asked in a thread) and redraw if it changed."""
    setting = app.settings.get_hyperlinks() if app.settings is not None else "auto"
    capabilities = app.terminal.capabilities

    def decide() -> None:
        from pi_app.tui.terminal.hyperlinks import hyperlinks_enabled

        app.call_from_thread(
            _set_hyperlinks, app, hyperlinks_enabled(setting, capabilities)
        )  # a thread worker

    app.run_worker(decide, thread=True, group="hyperlinks", exit_on_error=False)


def _set_hyperlinks(app: RenderSettingsHost, enabled: bool) -> None:
    from pi_app.tui.terminal.hyperlinks import link_base, set_link_base

    base = app.cwd if enabled else None
    if base != link_base():
        set_link_base(base)
        if app.has_screen:
            app.transcript.invalidate_all()


def reset_render_options() -> None:
    """The process-wide render options back to their defaults (the app is closing)."""
    from pi_app.tui.terminal.hyperlinks import set_link_base
    from pi_app.tui.transcript.blocks import layout
    from pi_app.tui.transcript.blocks.diagrams import DEFAULT_MERMAID_MODE, set_mermaid_mode

    set_link_base(None)
    set_mermaid_mode(DEFAULT_MERMAID_MODE)
    layout.reset()
