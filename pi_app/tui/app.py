"""The full-screen Textual app: the interactive shell around one ``AgentSession`` (spec 60 §2.1, §3.1, §3.8).

``PiApp`` composes the screen, mounts the parts and routes messages to them; the parts own their
state and what they do. Layout, top to bottom (§2.1): the transcript (start-up header first), the
pending area (queued steering/follow-up messages), the status line (spinner), extension widgets
above the editor, the editor slot (the prompt editor, or a selector/dialog that temporarily
replaces it), extension widgets below, and the footer.

The parts: ``TranscriptFeed`` (messages, tools, what follows a compaction), ``RunStatus`` (run,
compaction, retry), ``PromptRouter`` (submit, commands, early prompts, the messages typed during a
compaction, the pending area), ``ThemeController`` (themes, painting, hot reload),
``StartupHeader`` (the header and its notices) and ``AppExtensions`` (the extensions' side). The
start-up after the first frame is ``startup``'s, leaving ``chrome.farewell``'s, key actions
``commands.actions``'. Commands and selectors see the app as the protocols of ``host`` and reach
the part they need through it.

Threads (decision D-13): the ``AgentSession`` runs on its own asyncio loop in a worker thread
(``bridge.session``). Each of its events arrives here as its own typed message
(``bridge.messages``), each batch followed by the ``SessionSnapshot`` taken with it; ``_route``
hands each message, in arrival order, to the part that owns it, and the snapshot goes to the
footer, the pending area, the editor border and the title. Why the app routes instead of each
part receiving its own messages: Textual gives every widget its own message queue, so parts fed
separately would apply one batch at different times, and a frame could show the transcript of
one moment beside the footer of another. One queue, in arrival order, with painting held from a
batch's first message to its snapshot, keeps every frame whole (``tests/tui/test_torn_state.py``).
The app calls in with ``bridge.call`` (fire and forget), ``bridge.request`` (await a result) or
``bridge.call_soon`` (abort, queue changes); it never reads the session's entries, usage or
queues itself. A question for the user from the agent thread (the trust question, a login prompt,
an extension's dialog) arrives as ``QuestionAsked`` (``SessionBridge.ask_user``): the app runs its
flow in a worker, which shows the question in the editor slot and answers the bridge. Typing and
painting never wait for the agent, a tool, or the network.

Keys: the editor turns every key into a pi action through the effective keybindings and posts app
actions here (``PromptEditor.ActionRequested``); the Textual defaults that clash with pi's keys
(command palette, Ctrl+Q, Tab focus cycling, Ctrl+C copy hint) are off (R-TUI-04). Hints in the
header and in status texts use pi's lowercase key spelling (``ctrl+o``), as the real pi's screens
show; ``/hotkeys`` capitalises (``Ctrl+O``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget

from pi_app.coding.launch import LaunchOptions, keep_startup_objects
from pi_app.coding.session_port import SessionSnapshot
from pi_app.tui.bridge import messages as msg
from pi_app.tui.bridge.session import SessionBridge, SessionFactory
from pi_app.tui.chrome.footer import Footer
from pi_app.tui.chrome.header import StartupHeader
from pi_app.tui.chrome.run_status import RunStatus
from pi_app.tui.chrome.status import PendingArea, StatusLine
from pi_app.tui.editor.autocomplete import PiAutocomplete
from pi_app.tui.editor.router import PromptRouter
from pi_app.tui.editor.slot import EditorSlot
from pi_app.tui.editor.widget import PromptEditor, thinking_border_token
from pi_app.tui.extensions.host import AppExtensions
from pi_app.tui.extensions.ui import RunOnUI
from pi_app.tui.input.focus import FocusLayers
from pi_app.tui.input.keybindings import Keybindings
from pi_app.tui.terminal.probe import TerminalSetup
from pi_app.tui.theme.controller import ThemeController
from pi_app.tui.theme.themes import ThemeManager, theme_variables
from pi_app.tui.transcript.view import Transcript

if TYPE_CHECKING:  # loaded after the first frame (the session layer, the feed, the commands)
    from textual.driver import Driver

    from pi_app.ai.types import Model
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.sdk import CreatedSession
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.commands.user_bash import UserBashRun
    from pi_app.tui.transcript.feed import TranscriptFeed

_W = TypeVar("_W", bound=Widget)


class MainScreen(Screen[None], inherit_bindings=False):
    """The one main screen; no inherited bindings, so Tab does not cycle focus."""

    DEFAULT_CSS = """
    MainScreen { layout: vertical; background: $background; }
    /* no scrollbar, like pi: the wheel and pageUp/pageDown scroll; two columns more text */
    MainScreen #transcript { scrollbar-size-vertical: 0; }
    #widgets-above, #widgets-below { height: auto; }
    """

    def compose(self) -> ComposeResult:
        app = self.app
        assert isinstance(app, PiApp)
        yield Transcript(id="transcript", theme=app.themes.current)
        yield PendingArea(id="pending")
        yield StatusLine(animate=app.animations, id="status")
        yield Vertical(id="widgets-above")
        yield EditorSlot(app.make_editor(), id="editor-slot")
        yield Vertical(id="widgets-below")
        yield Footer(app.cwd, id="footer")

    def on_mount(self) -> None:
        app = self.app
        assert isinstance(app, PiApp)
        app.start_session()


class PiApp(App[int], inherit_bindings=False):
    ENABLE_COMMAND_PALETTE = False
    TITLE = "pi"

    def __init__(
        self,
        options: LaunchOptions | None = None,
        *,
        session_factory: SessionFactory | None = None,
        cwd: str | None = None,
        animate: bool = True,
        agent_dir: str | Path | None = None,
        light_background: bool | None = None,
        terminal: TerminalSetup | None = None,
    ) -> None:
        from pi_app.coding import paths

        self.options = options or LaunchOptions()
        self.cwd = os.path.abspath(cwd or self.options.cwd or os.getcwd())
        self.options.cwd = self.cwd
        self.agent_dir = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
        self.animations = animate
        """Spinners move (False in tests); not ``animate``, which would hide Textual's ``App.animate``."""
        self.terminal = terminal or TerminalSetup.from_environment()
        """Capabilities probed before start (images, keyboard, cell size, background); ``terminal.py``."""
        self.keybindings = Keybindings.load(self.agent_dir / "keybindings.json")
        self.session: AgentSession | None = None
        """The session, once built: for calls through ``bridge``; its state is read from ``snapshot``."""
        self.settings: SettingsManager | None = None
        self.theme_controller = ThemeController(self, light_background=light_background)
        """The theme part: the known themes, the current one, and every way it changes."""
        super().__init__()
        self.bridge = SessionBridge(
            self.post_message,
            session_factory or self._default_factory,
            on_snapshot=self._adopt_snapshot,
        )
        self.snapshot = SessionSnapshot()
        """What the app shows of the session: the newest snapshot the bridge delivered."""
        self.run_status = RunStatus(self)
        """The status part: working, compacting, retrying (``chrome.run_status``)."""
        self._feed: TranscriptFeed | None = None
        self._held_paint: AbstractContextManager[None] | None = None
        """Painting is held while a batch of session messages is being applied (``_live``)."""
        self.router = PromptRouter(self)
        """The prompt router: where a submitted text goes, and the messages waiting to be sent."""
        self.autocomplete = PiAutocomplete(self.cwd, self.router.command_infos)
        self.last_press: dict[str, float] = {}
        """When a key action last ran, for the double presses (``commands.actions``)."""
        self._shutting_down = False
        self.farewell = ""
        """Printed on the normal screen after a user's quit (the conversation and how to resume)."""
        self.header = StartupHeader(self)
        """The start-up header part: its block at the top of the transcript and its notices."""
        self.tools_expanded = False
        self.interrupt_handlers: list[Callable[[], bool]] = []
        """Handlers that get Escape first (loaders, branch summaries); True means handled."""
        self.user_bash: UserBashRun | None = None
        """The running (or last) user ``!`` command (``user_bash.UserBashRun``)."""
        self.known_models: list[Model] = []
        """The available models as last fetched (``/model`` argument completion reads it)."""
        self.ext = AppExtensions(self)
        """The extensions' UI context, dialogs, widgets, commands and shortcuts (``ext_host``)."""
        self.focus_layers = FocusLayers(self, lambda: self.editor if self.has_screen else None)
        """The slot's widgets and the extension overlays, in show order (who gets the focus back)."""

    # -- construction helpers -------------------------------------------------------------------

    async def _default_factory(self) -> CreatedSession:
        from pi_app.tui.startup import build_session

        return await build_session(self)

    @property
    def themes(self) -> ThemeManager:
        """The known themes and the current one (the theme part's)."""
        return self.theme_controller.manager

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variables(self.themes.current)

    def make_editor(self) -> PromptEditor:
        editor = PromptEditor(
            keybindings=self.keybindings,
            autocomplete=self.autocomplete,
            theme=self.themes.current,
            id="editor",
        )
        editor.shortcut_handler = self.ext.handle_key
        return editor

    def on_mount(self) -> None:
        self.theme_controller.register(self.themes.current)

    def get_driver_class(self) -> type[Driver]:
        return self.terminal.driver_class(super().get_driver_class())

    def get_default_screen(self) -> Screen[None]:
        return MainScreen()

    # -- widget access --------------------------------------------------------------------------

    @property
    def main_screen(self) -> MainScreen | None:
        stack = self._screen_stacks.get(self._current_mode) or []
        return stack[0] if stack and isinstance(stack[0], MainScreen) else None

    def _query(self, kind: type[_W]) -> _W:
        screen = self.main_screen
        if screen is None:
            raise RuntimeError("the main screen is not mounted")
        return screen.query_one(kind)

    @property
    def transcript(self) -> Transcript:
        return self._query(Transcript)

    @property
    def editor(self) -> PromptEditor:
        editor = self.editor_slot.editor  # not "#editor": an extension may be swapping it (R-UI-06)
        assert isinstance(editor, PromptEditor)
        return editor

    @property
    def footer(self) -> Footer:
        return self._query(Footer)

    @property
    def status_line(self) -> StatusLine:
        return self._query(StatusLine)

    @property
    def pending(self) -> PendingArea:
        return self._query(PendingArea)

    @property
    def editor_slot(self) -> EditorSlot:
        return self._query(EditorSlot)

    # -- the API command handlers and selectors use ---------------------------------------------

    def show_in_editor_slot(self, widget: Widget, owner: str = "app") -> None:
        """Replace the editor with ``widget`` (a selector or dialog) until ``restore_editor``.

        A widget of another ``owner`` than the one shown goes on top of it (``editor_slot``)."""
        self.editor.close_autocomplete()
        self.editor_slot.show(widget, owner)

    def restore_editor(self, owner: str = "app") -> None:
        self.editor_slot.restore(owner)

    def show_status(self, text: str) -> None:
        self.transcript.add_note(text, "status")

    def show_warning(self, text: str) -> None:
        self.transcript.add_note(f"Warning: {text}", "warning")

    def show_error(self, text: str) -> None:
        self.transcript.add_note(f"Error: {text}", "error")

    def hint(self, action: str) -> str:
        """The first key of ``action`` as pi writes it in hints (``ctrl+o``)."""
        return self.keybindings.hint(action)

    def shutdown(self) -> None:
        """Leave the app, once (R-TUI-11): extensions hear ``session_shutdown`` first, then the
        farewell is prepared (``chrome.farewell.leave``)."""
        from pi_app.tui.chrome.farewell import leave

        if not self._shutting_down:
            self._shutting_down = True
            self.run_worker(leave(self), group="shutdown", exit_on_error=False)

    # -- start-up -------------------------------------------------------------------------------

    def start_session(self) -> None:
        """Called once the main screen is composed: header, then the agent thread (R-TUI-14)."""
        self.theme_controller.apply(self.themes.current)
        self.header.show()
        self.editor.focus()
        self.terminal.attach(self, self.transcript)
        self.pending.dequeue_hint = self.hint("app.message.dequeue")
        self.transcript.set_key_hints(self.keybindings)
        for warning in self.keybindings.warnings + self.themes.diagnostics:
            self.show_warning(warning)
        # the first frame goes out before the agent thread starts importing and building the
        # session (it would share the interpreter with the paint); the commands come next
        self.call_after_refresh(self._start_agent_thread)

    def _start_agent_thread(self) -> None:
        keep_startup_objects()
        self.run_worker(self.bridge.run, thread=True, group="agent", exit_on_error=False, name="agent")
        self.footer.watch_branch()
        # the UI's warm-up waits for the session (``_session_ready``): both are Python work under
        # one interpreter lock, and the session is what makes the app ready (issue 20)

    def on_unmount(self) -> None:
        self._release_paint()
        self.theme_controller.stop()
        self.bridge.stop()  # also gives the questions still waiting their default answers
        self.terminal.detach()
        from pi_app.tui.render_settings import reset_render_options

        reset_render_options()

    @on(msg.SessionReady)
    def _session_ready(self, message: msg.SessionReady) -> None:
        """The session is built (or could not be): the app adopts it and its transcript part;
        what shows it is the start-up's (``startup``)."""
        if not self.has_screen:
            return
        from pi_app.tui import startup

        self.footer.state.starting = False
        if message.created is None:
            startup.session_failed(self, message.error)
            return
        self.session = message.created.session
        self.settings = self.session.settings_manager
        self._adopt_snapshot(message.snapshot)
        from pi_app.tui.transcript.feed import TranscriptFeed

        self._feed = TranscriptFeed(self)
        startup.session_ready(self, message.created)

    # -- session events -------------------------------------------------------------------------

    @property
    def has_screen(self) -> bool:
        """False while starting or after the screens were closed (late messages are dropped)."""
        return self.main_screen is not None

    @on(msg.QuestionAsked)
    def _question_asked(self, message: msg.QuestionAsked) -> None:
        """The bridge's ``ask_user``: the question's flow runs in a worker (it shows the question
        in the editor slot and waits there while the app goes on taking keys)."""
        self.run_worker(message.flow(), group="ask-user", exit_on_error=False)

    @on(RunOnUI)
    def _run_on_ui(self, message: RunOnUI) -> None:
        message.stop()
        self.ext.run_guarded(message.fn, message.origin)

    @on(msg.SessionCallFailed)
    def _call_failed(self, message: msg.SessionCallFailed) -> None:
        if not self.has_screen:
            return
        self.show_error(message.error)

    @on(msg.StartupWarning)
    def _startup_warning(self, message: msg.StartupWarning) -> None:
        if self.has_screen:
            self.show_warning(message.text)

    # the bridge's messages, routed in arrival order to the part that owns each (one queue: the
    # parts never show two different moments of the session)

    @property
    def feed(self) -> TranscriptFeed:
        """The transcript part (``transcript.feed``); it exists once the session is ready."""
        assert self._feed is not None, "session messages arrive only after SessionReady"
        return self._feed

    def _live(self, message: msg.SessionMessage) -> bool:
        """Deliver ``message``? Not once the screens are closed (late messages are dropped).

        The first message of a batch holds painting until the batch's ``SnapshotPublished``: a
        frame shows all of a batch or none of it, never the transcript of one moment beside the
        footer of another (issue 21, acceptance 4)."""
        if not self.has_screen or self._feed is None:
            return False
        if self._held_paint is None:
            self._held_paint = self.batch_update()
            self._held_paint.__enter__()
        return True

    def _release_paint(self) -> None:
        held, self._held_paint = self._held_paint, None
        if held is not None:
            held.__exit__(None, None, None)

    @on(msg.SessionMessage)
    def _route(self, message: msg.SessionMessage) -> None:
        """The session's messages, each to the part that owns it, in arrival order."""
        if isinstance(message, msg.QueueUpdated) or not self._live(message):
            return  # the queues are shown from the batch's snapshot
        match message:
            case msg.AgentStarted():
                self.run_status.set_working(True)
            case msg.AgentEnded():
                self.feed.agent_ended(message)
                self.run_status.set_working(False)
                if self.ext.shutdown_requested and not self.is_working:  # asked for during the run
                    self.shutdown()
            case msg.MessageStarted():
                self.feed.message_started(message)
            case msg.MessageUpdated():
                self.feed.message_updated(message)
            case msg.MessageEnded():
                self.feed.message_ended(message)
            case msg.ToolStarted():
                self.feed.tool_started(message)
            case msg.ToolUpdated():
                self.feed.tool_updated(message)
            case msg.ToolEnded():
                self.feed.tool_ended(message)
            case msg.CompactionStarted():
                self.run_status.compaction_started(message.event.reason)
            case msg.CompactionEnded():
                self.run_status.compaction_ended()
                self.feed.compaction_ended(message)
                self.router.flush_after_compaction(will_retry=message.event.will_retry)
            case msg.RetryStarted():
                self.run_status.retry_started(message)
            case msg.RetryEnded():
                self.run_status.retry_ended(message)
            case msg.ThinkingLevelChanged() | msg.SessionInfoChanged():
                self._adopt_snapshot(message.snapshot)

    @on(msg.SnapshotPublished)
    def _snapshot_published(self, message: msg.SnapshotPublished) -> None:
        try:
            if self.has_screen:
                self._adopt_snapshot(message.snapshot)
        finally:
            self._release_paint()  # the batch is complete: paint it

    def _adopt_snapshot(self, snapshot: SessionSnapshot) -> None:
        """Show ``snapshot`` (footer, pending area, editor border, title) unless a newer one is shown."""
        if snapshot.seq < self.snapshot.seq:
            return  # a request's snapshot overtook the batch this one came with
        changed = snapshot != self.snapshot
        self.snapshot = snapshot
        if not self.has_screen:
            return
        self.refresh_footer()  # also when nothing shown changed: it names the moment it shows
        if changed:
            self.router.refresh_pending()
            self.update_title()

    # -- the status part's state, as commands and extensions read it ------------------------------

    @property
    def is_working(self) -> bool:
        """A run is on (the status part's)."""
        return self.run_status.working

    def refresh_footer(self) -> None:
        """Show the newest snapshot in the footer and the editor border (what the app knows
        itself: whether several providers have models)."""
        if self.session is None:
            return
        show_provider = len({m.provider for m in self.known_models}) > 1
        self.footer.show_snapshot(self.snapshot, show_provider=show_provider)
        self.editor.set_border_token(thinking_border_token(self.snapshot))

    def update_title(self) -> None:
        name = self.snapshot.session_name
        base = os.path.basename(self.cwd) or self.cwd
        self.title = f"π - {name} - {base}" if name else f"π - {base}"

    @on(PromptEditor.Submitted)
    def _submit(self, message: PromptEditor.Submitted) -> None:
        if message.editor is not self.editor:
            return
        message.stop()
        self.router.submit(message.text, follow_up=message.follow_up)

    # -- keys the app takes whatever has the keyboard ---------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """The terminal's light/dark reports go to the theme part; the search key opens the
        transcript search from a selector or dialog too (``search_bar.search_key_elsewhere``)."""
        if isinstance(event, events.Key) and event.key in ("pi-color-scheme-light", "pi-color-scheme-dark"):
            event.stop()
            event.prevent_default()
            self.theme_controller.appearance_changed(event.key == "pi-color-scheme-light")
            return
        if isinstance(event, events.Key) and not event.is_forwarded:
            from pi_app.tui.transcript.search_bar import search_key_elsewhere

            if search_key_elsewhere(self, event):
                event.stop()
                event.prevent_default()
                return
        await super().on_event(event)

    # -- app actions (keys) ---------------------------------------------------------------------

    @on(PromptEditor.ActionRequested)
    def _editor_action(self, message: PromptEditor.ActionRequested) -> None:
        from pi_app.tui.commands.actions import run_action

        message.stop()
        run_action(self, message.action)


def run_interactive(options: LaunchOptions) -> int:
    """``pi`` with a terminal: probe it, start the app, return its exit status."""
    from pi_app.tui.input.keys import install_key_parser

    install_key_parser()
    if options.resume:  # pi -r: the session picker runs before the app (R-LIST-09)
        keep_startup_objects()  # a picker the user may browse for long: collect as usual
        from pi_app.tui.selectors.resume_start import choose_session_to_resume

        if not choose_session_to_resume(options):
            print("No session selected")
            return 0
    terminal = TerminalSetup.detect()
    app = PiApp(options, terminal=terminal)
    try:
        result = app.run()
    finally:
        terminal.restore_after_crash()  # a no-op after a clean exit (on_unmount restored it all)
    if app.farewell:  # the normal screen is back: leave the conversation on it, as pi 1.6.0 does
        sys.stdout.write(app.farewell)
        sys.stdout.flush()
    return int(result or 0)
