"""The prompt router: where a submitted text goes (R-INT-01/02/03, R-INT-06, R-INT-09, R-TUI-14).

``PromptRouter`` owns the way from the editor's Enter to the session, and the one queue of
messages the session does not hold yet:

* a slash command runs (built-in first, then an extension's, at once even while busy);
* ``!cmd`` / ``!!cmd`` runs the user's shell command;
* before the session is ready a message waits here and is sent, in order, after the command
  line's messages once it is (if the session cannot start, it goes back into the editor);
* while the session compacts a message waits here ("Queued message for after compaction") and
  is sent when the compaction ends: as queued steering/follow-ups if a run continues, else the
  first as a prompt and the rest queued behind it; nothing typed is lost on failure;
* otherwise: a prompt when idle, a steering (Enter) or follow-up (Alt+Enter) message while the
  agent works.

This is the only owner of those waiting messages: the session never sees them until they are
sent. The pending area shows the session's queues as of the newest snapshot, then these. What the
router knows of the session comes from the app's snapshot (``PiApp.snapshot``), never from the
session itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.launch import LaunchOptions
    from pi_app.coding.session_port import SessionSnapshot
    from pi_app.tui.bridge.session import SessionBridge
    from pi_app.tui.chrome.status import PendingArea
    from pi_app.tui.editor.widget import PromptEditor

Behavior = Literal["steer", "followUp"]


class RouterHost(Protocol):
    """What the prompt router asks of the app."""

    session: AgentSession | None
    snapshot: SessionSnapshot
    bridge: SessionBridge
    options: LaunchOptions

    @property
    def editor(self) -> PromptEditor: ...
    @property
    def pending(self) -> PendingArea: ...
    @property
    def is_working(self) -> bool: ...
    @property
    def is_compacting(self) -> bool: ...
    def show_status(self, text: str) -> None: ...
    def show_error(self, text: str) -> None: ...
    def run_command_text(self, text: str) -> bool:
        """Run ``text`` if it is a built-in or extension command; True when it was one."""
        ...

    def run_user_bash(self, text: str) -> None: ...
    def flush_pending_bash(self) -> None: ...


class PromptRouter:
    """Routes submitted texts to the session and owns the messages waiting to be sent (UI thread)."""

    def __init__(self, host: RouterHost) -> None:
        self._host = host
        self.waiting: list[tuple[str, Behavior]] = []
        """Messages typed while starting or compacting: (text, "steer" | "followUp")."""
        self._initial_sent = False

    # -- submitting ---------------------------------------------------------------------------------

    def submit(self, text: str, *, follow_up: bool = False) -> None:
        """Route one submitted text (R-INT-01/02/03)."""
        host = self._host
        text = text.strip()
        if not text:
            return
        editor = host.editor
        editor.add_to_history(text)
        if host.run_command_text(text):
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
            if not host.is_working:
                host.flush_pending_bash()
            host.run_user_bash(text)
            return
        behavior: Behavior = "followUp" if follow_up else "steer"
        if host.is_compacting:
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
        host.flush_pending_bash()
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
