"""The app's start-up after its first frame: building the session and getting ready (R-TUI-14).

Before the first frame, ``PiApp.start_session`` shows the header and focuses the editor; right
after it, the agent thread starts building the session. What follows is here, in order:

* ``build_session``, the default session factory (on the agent thread): the launch options, the
  project-trust question (asked in the editor slot through the bridge) and the start-up reports
  (a ``--models`` pattern matching nothing, ``--verbose`` diagnostics), one warning line each;
* ``session_ready``, once ``PiApp`` has adopted the session and its transcript part: the loader's
  themes, the render settings, the header, the session's warnings, the changelog since the last
  seen version (R-FOOT-07, only for a new conversation), the stored conversation and the
  editor's history from it, the no-model warning, the title and footer, the extensions and the
  command line's messages; ``session_failed`` when it could not be built (what was typed goes
  back into the editor);
* ``after_ready_frame``, after the frame that shows the model: the model list (the footer then
  names the provider when several have models) and the warm-ups (markdown, pygments, the slash
  commands, the grapheme splitter, the session pickers). Run before that frame, the warm-ups (a
  few hundred ms of Python work on both threads) delayed it (issue 20).

Nothing here is imported before the first frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_app.ai.util.content_text import message_text
from pi_app.tui.host import ExtensionHost
from pi_app.tui.render_settings import RenderSettingsHost, apply_render_settings
from pi_app.tui.transcript.history import context_messages, render_session_history

if TYPE_CHECKING:
    from pi_app.coding.sdk import CreatedSession
    from pi_app.coding.trust import TrustAnswer


class StartupHost(ExtensionHost, RenderSettingsHost, Protocol):
    """What the start-up needs of the app: what the extensions see, the render settings' needs,
    and a callback after the next frame."""

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...


async def build_session(app: ExtensionHost) -> CreatedSession:
    """The session the launch options ask for, built on the agent thread."""
    from pi_app.coding.launch import LaunchHost
    from pi_app.coding.launch import build_session as build
    from pi_app.coding.trust import NOT_TRUSTED_THIS_RUN
    from pi_app.tui.selectors.trust import ask_project_trust

    async def ask_trust(cwd: str) -> TrustAnswer:  # on the agent thread, while the session builds
        return await app.bridge.ask_user(lambda: ask_project_trust(app, cwd), NOT_TRUSTED_THIS_RUN)

    def report(line: str) -> None:
        """A start-up report: one warning line in the transcript. The fork question never comes
        here: ``pi`` asks it on the terminal before the app starts."""
        from pi_app.tui.bridge.messages import StartupWarning

        # posted, not call_from_thread: that waited for a UI that may be closing (the agent thread
        # then hung, e.g. a not-trusted notice after closing the app during the trust question)
        app.post_message(StartupWarning(line.removeprefix("Warning: ")))

    return await build(app.options, host=LaunchHost(report=report, ask_trust=ask_trust))


def session_failed(app: StartupHost, error: str | None) -> None:
    """The session could not be built: say why; what was typed meanwhile goes back to the editor."""
    app.footer.repaint()
    app.show_error(error or "could not start the session")
    early = app.router.take_early()
    if early:  # typed while it was starting: back in the editor, not lost
        app.router.restore_to_editor(early)


def session_ready(app: StartupHost, created: CreatedSession) -> None:
    """Everything that shows the new session, once ``PiApp`` has adopted it and its feed."""
    app.theme_controller.adopt_loader_themes()
    apply_render_settings(app)
    app.header.show()
    for warning in created.warnings:
        app.show_warning(warning)
    if created.model_fallback_message:
        app.show_warning(created.model_fallback_message)
    messages = context_messages(app.session)
    _show_whats_new(app, resumed=bool(messages))
    render_session_history(app, messages)
    for m in messages:
        if getattr(m, "role", None) == "user":
            app.editor.add_to_history(message_text(m))
    if not app.snapshot.has_model:
        app.transcript.add_note(
            f"{created.session.no_model_message.rstrip('.')}, or sign in with /login.", "warning"
        )
    app.update_title()
    app.refresh_footer()
    app.ext.bind()
    app.router.send_initial_messages()
    # the rest can wait for the frame that shows the model (issue 20)
    app.call_after_refresh(after_ready_frame, app)


def after_ready_frame(app: StartupHost) -> None:
    app.run_worker(_fetch_models(app), group="models", exit_on_error=False)
    app.bridge.warm_up()
    _warm_up(app)


def _show_whats_new(app: StartupHost, *, resumed: bool) -> None:
    """The changelog since the last seen version, once (R-FOOT-07); ``pi_app.tui.chrome.changelog``."""
    from pi_app import __version__
    from pi_app.tui.chrome.changelog import startup_changelog
    from pi_app.tui.transcript.blocks.info import InfoBlock

    settings = app.settings
    if resumed or settings is None:
        return
    last_seen = settings.get_last_changelog_version()
    quiet = bool(settings.get_quiet_startup())
    collapse = settings.get_collapse_changelog() or quiet
    shown = startup_changelog(last_seen, __version__, collapse=collapse)
    if shown.notice:
        app.header.notices.append(shown.notice)
        app.header.show()
    if shown.markdown:
        app.transcript.append_block(InfoBlock(shown.markdown))
    if last_seen != __version__:
        try:
            settings.set_last_changelog_version(__version__)
        except Exception as exc:  # an unwritable settings file must not stop the start-up
            app.show_warning(f"Could not save the setting: {exc}")


async def _fetch_models(app: StartupHost) -> None:
    from pi_app.tui.commands.actions import available_models

    try:
        await available_models(app)
    except Exception:
        return
    app.refresh_footer()  # "(provider) model" once several providers are known


def _warm_up(app: StartupHost) -> None:
    """Load what the first frame could do without (the markdown parser, pygments, the slash
    commands, the editor's grapheme splitter) before the first answer, ``/`` or a long line
    needs them."""
    from pi_app.tui.editor.cursor import graphemes
    from pi_app.tui.transcript.blocks.markdown import render_markdown

    render_markdown("*warm* `up`\n\n```python\nx = 1\n```", 40, app.transcript.render_theme)
    graphemes()
    app.router.commands  # noqa: B018
    # the session pickers: the first /resume showed its first row ~0.1 s later for these
    import pi_app.coding.session.listing
    import pi_app.tui.selectors.navigation
    import pi_app.tui.selectors.sessions  # noqa: F401
