"""The prompt router: where a submitted text goes (R-INT-01/02/03, R-INT-06, R-INT-09, R-TUI-14).

``PromptRouter`` owns the way from the editor's Enter to the session, and the one queue of
messages the session does not hold yet:

* a slash command runs (built-in first, then an extension's, at once even while busy); the
  built-ins' registry is built here on first use (``commands``), and autocomplete lists what
  would run (``command_infos``);
* ``!cmd`` / ``!!cmd`` runs the user's shell command (``commands.user_bash``);
* before the session is ready a message waits here and is sent, in order, after the command
  line's messages once it is (if the session cannot start, it goes back into the editor); a
  ``!`` command typed then stays in the editor with a status note;
* while the session compacts a message waits here ("Queued message for after compaction") and
  is sent when the compaction ends: as queued steering/follow-ups if a run continues, else the
  first as a prompt and the rest queued behind it; nothing typed is lost on failure;
* otherwise: a prompt when idle, a steering (Enter) or follow-up (Alt+Enter) message while the
  agent works.

This is the only owner of those waiting messages: the session never sees them until they are
sent. The pending area shows the session's queues as of the newest snapshot, then these. What the
router knows of the session comes from the app's snapshot (``PiApp.snapshot``), never from the
session itself. Its host is a ``CommandHost``: that is what the commands it runs receive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pi_app.tui.editor.autocomplete import CommandInfo

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.coding.agent_session import AgentSession
    from pi_app.tui.commands.registry import CommandRegistry
    from pi_app.tui.host import CommandHost

Behavior = Literal["steer", "followUp"]


class PromptRouter:
    """Routes submitted texts to the session and owns the messages waiting to be sent (UI thread)."""

    def __init__(self, host: CommandHost) -> None:
        self._host = host
        self.waiting: list[tuple[str, Behavior]] = []
        """Messages typed while starting or compacting: (text, "steer" | "followUp")."""
        self._initial_sent = False
        self._commands: CommandRegistry | None = None

    # -- commands -----------------------------------------------------------------------------------

    @property
    def commands(self) -> CommandRegistry:
        """The built-in slash commands, built on first use: their selector modules import the
        session layer, which would delay the first frame (the app's warm-up builds them)."""
        if self._commands is None:
            from pi_app.tui.commands.registry import builtin_registry
            from pi_app.tui.selectors.models import model_argument_completions
            from pi_app.tui.selectors.thinking import thinking_argument_completions

            self._commands = builtin_registry()
            model_command = self._commands.find("model")
            if model_command is not None:
                model_command.get_argument_completions = model_argument_completions(self._host)
            thinking = self._commands.find("thinking")
            if thinking is not None:
                thinking.get_argument_completions = thinking_argument_completions(self._host)
        return self._commands

    def command_infos(self) -> list[CommandInfo]:
        """What autocomplete offers after ``/``: the built-ins, then the prompt templates, extension
        commands and skills no built-in shadows."""
        from pi_app.tui.chrome.resources import extra_command_infos

        infos = [
            CommandInfo(c.name, c.description, c.argument_hint, c.get_argument_completions)
            for c in self.commands.visible()
        ]
        taken = {info.name for info in infos}
        infos.extend(info for info in extra_command_infos(self._host) if info.name not in taken)
        return infos

    def run_command(self, text: str) -> bool:
        """Run ``text`` if it is a built-in command, or (at once, even while busy; R-EXT-48) an
        extension's; True when it was one."""
        from pi_app.tui.commands.registry import parse as parse_command

        host = self._host
        parsed = parse_command(text)
        if parsed is not None and parsed[0] in self.commands:
            host.run_worker(self._run_command(text), group="command", exit_on_error=False)
            return True
        if host.session is not None and host.ext.is_command(text):
            host.ext.run_command(text)
            return True
        return False

    async def _run_command(self, text: str) -> None:
        try:
            await self.commands.run(self._host, text)
        except Exception as exc:  # a failing command reports itself and the app keeps running
            self._host.show_error(str(exc) or type(exc).__name__)

    def _flush_pending_bash(self) -> None:
        from pi_app.tui.commands.user_bash import flush_pending_bash

        flush_pending_bash(self._host)

    # -- submitting ---------------------------------------------------------------------------------

    def submit(self, text: str, *, follow_up: bool = False) -> None:
        """Route one submitted text (R-INT-01/02/03)."""
        host = self._host
        text = text.strip()
        if not text:
            return
        editor = host.editor
        editor.add_to_history(text)
        if self.run_command(text):
            return
        session = host.session
        if session is None:
            if text.startswith("!"):  # a shell command is not a message: it waits in the editor
                editor.set_text(text)
                host.show_status("Still starting up…")
            else:  # R-TUI-14: it waits in the pending area
                self.waiting.append((text, "followUp"))
                self.refresh_pending()
                host.show_status("Starting up: queued until the session is ready")
            return
        if text.startswith("!") and text.lstrip("!").strip():
            from pi_app.tui.commands.user_bash import run_user_bash

            if not host.is_working:
                self._flush_pending_bash()
            run_user_bash(host, text)
            return
        behavior: Behavior = "followUp" if follow_up else "steer"
        if host.run_status.is_compacting:
            self.waiting.append((text, behavior))
            self.refresh_pending()
            host.show_status("Queued message for after compaction")
            return
        if not host.snapshot.has_model:
            host.show_error(session.no_model_message + " Use /login or /model.")
            return
        if host.is_working or host.snapshot.streaming:
            self.send(text, behavior)
            return
        self._flush_pending_bash()
        self.send(text, None)

    def send(self, text: str, behavior: Behavior | None, images: list[ImageContent] | None = None) -> None:
        """A prompt (``behavior`` None), or a message queued while the agent works: ``steer`` or
        ``followUp`` (R-INT-01/02)."""
        bridge = self._host.bridge
        if behavior is None:
            bridge.call(lambda s: s.prompt(text, images) if images else s.prompt(text))
        elif behavior == "steer":
            bridge.call_soon(lambda s: s.steer(text))
        else:
            bridge.call_soon(lambda s: s.follow_up(text))

    # -- start-up -----------------------------------------------------------------------------------

    def send_initial_messages(self) -> None:
        """The command line's messages, then those typed before the session was ready, in order."""
        if self._initial_sent:
            return
        self._initial_sent = True
        from pi_app.coding.launch import LaunchError, first_message_parts

        host = self._host
        prompts: list[tuple[str, list[ImageContent] | None]] = []
        try:
            text, images = first_message_parts(host.options)
        except LaunchError as exc:
            host.show_error(str(exc).removeprefix("Error: "))
        else:
            if text is not None:
                prompts = [(text, images or None), *((item, None) for item in host.options.messages[1:])]
        early = self.take_early()
        if early and not host.snapshot.has_model:  # the no-model warning is on screen; nothing is lost
            self.restore_to_editor(early)
            early = []
        prompts += [(item, None) for item in early]
        if not prompts:
            return

        async def send_all(session: AgentSession) -> None:
            for item, item_images in prompts:
                await (session.prompt(item, item_images) if item_images else session.prompt(item))

        host.bridge.call(send_all)

    def take_early(self) -> list[str]:
        """The messages typed before the session was ready (they leave the pending area)."""
        early = [text for text, _ in self.waiting]
        self.clear()
        return early

    # -- after a compaction -------------------------------------------------------------------------

    def flush_after_compaction(self, *, will_retry: bool = False) -> None:
        """Send the messages typed during compaction (R-INT-09); nothing is lost on failure."""
        queued, self.waiting = self.waiting, []
        self.refresh_pending()
        if not queued or self._host.session is None:
            return
        if will_retry or self._host.is_working:
            for text, kind in queued:
                self.send(text, kind)
            return
        first, rest = queued[0], queued[1:]
        self.send(first[0], None)
        for text, kind in rest:
            self.send(text, kind)

    # -- the pending area ---------------------------------------------------------------------------

    def refresh_pending(self) -> None:
        """The session's queues as of the newest snapshot, then the messages waiting here."""
        snapshot = self._host.snapshot
        steer = [text for text, kind in self.waiting if kind == "steer"]
        follow = [text for text, kind in self.waiting if kind == "followUp"]
        self._host.pending.set_queues([*snapshot.steering, *steer], [*snapshot.follow_up, *follow])

    async def take_all(self) -> list[str]:
        """Remove every queued message (session and waiting here): steering first, then follow-ups."""
        host = self._host
        steering, follow_up = list(host.snapshot.steering), list(host.snapshot.follow_up)
        if steering or follow_up:
            await host.bridge.request(lambda s: s.clear_queue())
        steer = [text for text, kind in self.waiting if kind == "steer"]
        follow = [text for text, kind in self.waiting if kind == "followUp"]
        self.clear()
        return steering + steer + follow_up + follow

    def clear(self) -> None:
        """Forget the waiting messages and empty the pending area (``/new``, dequeue)."""
        self.waiting.clear()
        self._host.pending.set_queues([], [])

    def restore_to_editor(self, texts: list[str]) -> None:
        """Put ``texts`` before the editor's text, separated by blank lines (R-INT-06)."""
        editor = self._host.editor
        current = editor.text
        joined = "\n\n".join(texts)
        editor.set_text(f"{joined}\n\n{current}" if current.strip() else joined)
