"""The full-screen Textual app: header, transcript, status line, editor and footer.

The ``AgentSession`` runs in a worker thread on its own loop (``session_bridge``); its events
arrive as ``SessionEvent`` messages and update the transcript and footer. Typing and painting
never wait for the agent: submitting a prompt only schedules it on the agent loop.

Keys freed from Textual's defaults (R-TUI-04): no command palette, no Ctrl+Q quit, no Tab focus
cycling. Escape interrupts a run; Ctrl+C clears the editor (twice in a row exits); Ctrl+D exits
when the editor is empty.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from textual import on
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static

from pi_app import __version__
from pi_app.coding.launch import LaunchOptions
from pi_app.tui.commands import CommandRegistry, builtin_registry
from pi_app.tui.commands import parse as parse_command
from pi_app.tui.editor.widget import PromptEditor
from pi_app.tui.editor_slot import EditorSlot
from pi_app.tui.footer import Footer
from pi_app.tui.session_bridge import SessionBridge, SessionCallFailed, SessionEvent, SessionReady
from pi_app.tui.terminal import TerminalSetup
from pi_app.tui.transcript import Transcript

HEADER_HINTS = "escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · shift+enter newline"
SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
DOUBLE_PRESS_S = 0.5


class MainScreen(Screen[None], inherit_bindings=False):
    """The one main screen; no inherited bindings, so Tab does not cycle focus."""

    DEFAULT_CSS = """
    MainScreen { layout: vertical; }
    #status { height: 1; padding: 0 1; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        app = self.app
        assert isinstance(app, PiApp)
        yield Transcript(id="transcript")
        yield Static("", id="status")
        yield EditorSlot(PromptEditor(id="editor"), id="editor-slot")
        yield Footer(app.cwd, id="footer")

    def on_mount(self) -> None:
        app = self.app
        assert isinstance(app, PiApp)
        app.start_session()


class PiApp(App[int], inherit_bindings=False):
    ENABLE_COMMAND_PALETTE = False
    TITLE = "pi"

    BINDINGS = [
        Binding("escape", "interrupt", "interrupt", show=False, id="app.interrupt"),
        Binding("ctrl+c", "clear", "clear", show=False, priority=True, id="app.clear"),
        Binding("ctrl+d", "exit_if_empty", "exit", show=False, priority=True, id="app.exit"),
        Binding("shift+pageup", "transcript('page_up')", show=False, id="app.transcript.pageUp"),
        Binding("shift+pagedown", "transcript('page_down')", show=False, id="app.transcript.pageDown"),
        Binding("ctrl+v", "paste_image", show=False, id="app.clipboard.pasteImage"),
    ]

    def __init__(
        self,
        options: LaunchOptions | None = None,
        *,
        session_factory: Callable[[], Awaitable[Any]] | None = None,
        cwd: str | None = None,
        animate: bool = True,
        terminal: TerminalSetup | None = None,
    ) -> None:
        super().__init__()
        self.terminal = terminal or TerminalSetup.from_environment()
        """Capabilities probed before start (images, keyboard, cell size); see ``terminal.py``."""
        import os

        self.options = options or LaunchOptions()
        self.cwd = os.path.abspath(cwd or self.options.cwd or os.getcwd())
        self.options.cwd = self.cwd
        self._factory = session_factory or self._default_factory
        self.bridge = SessionBridge(self.post_message, self._factory)
        self.session: Any = None
        self.animate = animate
        self._spinner_index = 0
        self._working = False
        self._last_clear = 0.0
        self._initial_messages_sent = False
        self.commands: CommandRegistry = builtin_registry()

    async def _default_factory(self) -> Any:
        from pi_app.coding.launch import build_session

        return await build_session(self.options)

    # -- layout ---------------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return MainScreen()

    @property
    def transcript(self) -> Transcript:
        return self.screen.query_one(Transcript)

    @property
    def editor(self) -> PromptEditor:
        return self.screen.query_one(PromptEditor)

    @property
    def footer(self) -> Footer:
        return self.screen.query_one(Footer)

    @property
    def editor_slot(self) -> EditorSlot:
        return self.screen.query_one(EditorSlot)

    def show_in_editor_slot(self, widget: Any) -> None:
        """Replace the editor with ``widget`` (a selector or dialog) until ``restore_editor``."""
        self.editor_slot.show(widget)

    def restore_editor(self) -> None:
        self.editor_slot.restore()

    def show_status(self, text: str) -> None:
        self.transcript.add_note(text, "status")

    def show_warning(self, text: str) -> None:
        self.transcript.add_note(f"Warning: {text}", "warning")

    def show_error(self, text: str) -> None:
        self.transcript.add_note(f"Error: {text}", "error")

    def shutdown(self) -> None:
        self.exit(0)

    def start_session(self) -> None:
        """Called once the main screen is composed: show the header and start the agent thread."""
        self.transcript.add_header(f"pi v{__version__}\n{HEADER_HINTS}")
        self.editor.cursor_blink = self.animate  # a blinking caret makes screenshots nondeterministic
        self.editor.focus()
        self.terminal.attach(self, self.transcript)
        self.run_worker(self.bridge.run, thread=True, group="agent", exit_on_error=False, name="agent")
        if self.animate:
            self.set_interval(0.08, self._tick_spinner)

    def on_unmount(self) -> None:
        self.bridge.stop()
        self.terminal.detach()

    # -- session events -------------------------------------------------------------------------

    @on(SessionReady)
    def _session_ready(self, message: SessionReady) -> None:
        if message.created is None:
            self.transcript.add_note(f"Error: {message.error}", "error")
            return
        self.session = message.created.session
        for warning in message.created.warnings:
            self.transcript.add_note(f"Warning: {warning}", "warning")
        if message.created.model_fallback_message:
            self.transcript.add_note(message.created.model_fallback_message, "warning")
        for m in self.session.messages:
            self._render_history(m)
        if self.session.model is None:
            self.transcript.add_note(f"{self.session.no_model_message} Or use /login.", "warning")
        self._refresh_footer()
        self._send_initial_messages()

    def _render_history(self, message: Any) -> None:
        role = getattr(message, "role", None)
        if role == "user":
            self.transcript.add_user(_plain_text(message), _images(message))
        elif role == "assistant":
            self.transcript.end_assistant(message)
        elif role == "toolResult":
            self.transcript.tool_updated(
                message.tool_call_id, message.tool_name, {}, message, final=True, is_error=message.is_error
            )

    def _send_initial_messages(self) -> None:
        if self._initial_messages_sent:
            return
        self._initial_messages_sent = True
        from pi_app.coding.launch import LaunchError, first_message_parts

        try:
            text, images = first_message_parts(self.options)
        except LaunchError as exc:
            self.transcript.add_note(str(exc), "error")
            return
        more = self.options.messages[1:] if text is not None else []
        if text is None:
            return

        async def send_all(session: Any) -> None:
            await session.prompt(text, images or None)
            for item in more:
                await session.prompt(item)

        self.bridge.call(send_all)

    @on(SessionCallFailed)
    def _call_failed(self, message: SessionCallFailed) -> None:
        self.transcript.add_note(f"Error: {message.error}", "error")

    @on(SessionEvent)
    def _session_event(self, message: SessionEvent) -> None:
        event = message.event
        t = event.type
        try:
            transcript = self.transcript
        except (NoMatches, ScreenStackError):
            return  # an event that arrived while the app shuts down
        if t == "agent_start":
            self._set_working(True)
        elif t == "agent_end":
            self._set_working(False)
        elif t == "message_start":
            role = getattr(event.message, "role", None)
            if role == "user":
                transcript.add_user(_plain_text(event.message), _images(event.message))
            elif role == "assistant":
                transcript.start_assistant(event.message)
        elif t == "message_update":
            transcript.update_assistant(event.message)
        elif t == "message_end" and getattr(event.message, "role", None) == "assistant":
            transcript.end_assistant(event.message)
        elif t == "tool_execution_start":
            transcript.tool_started(event.tool_call_id, event.tool_name, event.args)
        elif t == "tool_execution_update":
            transcript.tool_updated(event.tool_call_id, event.tool_name, event.args, event.partial_result)
        elif t == "tool_execution_end":
            transcript.tool_updated(
                event.tool_call_id, event.tool_name, None, event.result, final=True, is_error=event.is_error
            )
        elif t == "auto_retry_start":
            self._status(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {event.delay_ms // 1000}s... (escape to cancel)"
            )
        elif t == "auto_retry_end" and not event.success:
            transcript.add_note(f"Retry failed after {event.attempt} attempts: {event.final_error}", "error")
        elif t == "compaction_start":
            self._status("Compacting...")
        elif t == "compaction_end" and event.error_message:
            transcript.add_note(f"Error: {event.error_message}", "error")
        self._refresh_footer()

    def _refresh_footer(self) -> None:
        session = self.session
        if session is None:
            return
        self.footer.set_state(
            model=session.model,
            thinking_level=session.thinking_level,
            messages=list(session.messages),
            session_name=session.session_name,
        )

    # -- status line ----------------------------------------------------------------------------

    def _status(self, text: str) -> None:
        self.screen.query_one("#status", Static).update(text)

    def _set_working(self, working: bool) -> None:
        self._working = working
        self._status(f"{SPINNER_FRAMES[0]} Working..." if working else "")

    def _tick_spinner(self) -> None:
        if not self._working:
            return
        self._spinner_index = (self._spinner_index + 1) % len(SPINNER_FRAMES)
        self._status(f"{SPINNER_FRAMES[self._spinner_index]} Working...")

    # -- input ----------------------------------------------------------------------------------

    @on(PromptEditor.Submitted)
    def _submit(self, message: PromptEditor.Submitted) -> None:
        text = message.text.strip()
        if not text:
            return
        parsed = parse_command(text)
        if parsed is not None and parsed[0] in self.commands:
            message.editor.clear()
            self.run_worker(self._run_command(text), group="command", exit_on_error=False)
            return
        if self.session is None:
            self.transcript.add_note("Still starting up…", "status")
            return
        message.editor.clear()
        if self.session.model is None:
            self.transcript.add_note(f"Error: {self.session.no_model_message}", "error")
            return
        if self.session.is_streaming:
            self.bridge.call(lambda s: s.steer(text))
            return
        self.bridge.call(lambda s: s.prompt(text))

    async def _run_command(self, text: str) -> None:
        try:
            await self.commands.run(self, text)
        except Exception as exc:  # a failing command reports itself and the app keeps running
            self.show_error(str(exc) or type(exc).__name__)

    def action_interrupt(self) -> None:
        if self._working:
            self.bridge.abort()

    def action_clear(self) -> None:
        selected = self.screen.get_selected_text()
        if selected:  # R-TR-11: with a transcript selection, ctrl+c copies it (OSC 52)
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            return
        now = time.monotonic()
        if now - self._last_clear < DOUBLE_PRESS_S and not self.editor.text:
            self.exit(0)
            return
        self._last_clear = now
        self.editor.clear()

    def action_transcript(self, where: str) -> None:
        """Scroll the transcript (R-TR-04): page_up, page_down, top, bottom."""
        transcript = self.transcript
        {
            "page_up": transcript.scroll_page_up_lines,
            "page_down": transcript.scroll_page_down_lines,
            "top": transcript.scroll_top,
            "bottom": transcript.scroll_bottom,
        }[where]()

    def action_paste_image(self) -> None:
        """R-IMG-05: a clipboard image becomes a temp file whose path is typed at the cursor."""
        from pi_app.tui.images import save_clipboard_image

        def paste() -> None:
            path = save_clipboard_image()
            if path:
                self.call_from_thread(self.editor.insert, path)

        self.run_worker(paste, thread=True, group="clipboard", exclusive=True, exit_on_error=False)

    def action_exit_if_empty(self) -> None:
        if not self.editor.text:
            self.exit(0)


def _plain_text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


def _images(message: Any) -> list[Any]:
    content = getattr(message, "content", "")
    return [] if isinstance(content, str) else [b for b in content if getattr(b, "type", "") == "image"]


def run_interactive(options: LaunchOptions) -> int:
    from pi_app.tui.keys import install_key_parser

    install_key_parser()
    if options.resume:  # pi -r: the session picker runs before the app (R-LIST-09)
        from pi_app.tui.selectors.resume_start import choose_session_to_resume

        if not choose_session_to_resume(options):
            print("No session selected")
            return 0
    app = PiApp(options, terminal=TerminalSetup.detect())
    result = app.run()
    return int(result or 0)
