"""What the app's commands, key actions, selectors and extension glue may use of the app.

Slash commands (``commands``), key actions (``actions``), the selectors' flows and the extension
host are free functions and small classes handed the app. They do not get ``PiApp`` itself: each
takes the narrowest of these protocols that covers what it reads or calls, so the type checker
shows (and keeps) the boundary, and ``PiApp`` satisfies every one of them structurally.

* ``Notes``: the one-line status, warning and error notes in the transcript.
* ``SelectorHost``: notes plus the editor slot, where selectors and dialogs replace the editor
  (R-SEL-00), and the worker a flow runs in.
* ``SessionHost``: a slot host that also reaches the session: ``session`` (the ``AgentSession``,
  None while starting; it lives on the agent loop, so calls go through ``bridge``) and ``settings``.
* ``CommandHost``: everything a built-in command or key action may use (the ``/`` commands,
  ``actions.ACTION_HANDLERS``); what belongs to a part it reaches through that part:
  ``router`` (the waiting messages, the pending area), ``run_status`` (compacting, retrying),
  ``theme_controller`` (switching, reloading), ``header``, ``feed`` (summary costs).
* ``ExtensionHost``: a command host plus what the extension glue (``pi_app.tui.extensions``) uses;
  it is also the ``app`` extension factories receive (``factory(app, theme, keybindings)``).
* ``HistoryHost``: what drawing stored messages into the transcript needs (``history``);
  ``RebuildHost`` what drawing the session's context again needs.
* ``FeedHost``: what the transcript part (``transcript.feed.TranscriptFeed``) asks of the app.

The modules loaded before the first frame use these for annotations only, so the protocols cost
nothing at start-up; parts loaded after it build their own hosts on them (``startup``,
``render_settings``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.geometry import Size
    from textual.message import Message
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.worker import Worker

    from pi_app.ai.types import Model
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.launch import LaunchOptions
    from pi_app.coding.session_port import SessionSnapshot
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.bridge.session import SessionBridge
    from pi_app.tui.chrome.footer import Footer
    from pi_app.tui.chrome.header import StartupHeader
    from pi_app.tui.chrome.run_status import RunStatus
    from pi_app.tui.chrome.status import PendingArea, StatusLine
    from pi_app.tui.commands.user_bash import UserBashRun
    from pi_app.tui.editor.autocomplete import PiAutocomplete
    from pi_app.tui.editor.router import PromptRouter
    from pi_app.tui.editor.slot import EditorSlot
    from pi_app.tui.editor.widget import PromptEditor
    from pi_app.tui.extensions.host import AppExtensions
    from pi_app.tui.input.focus import FocusLayers
    from pi_app.tui.input.keybindings import Keybindings
    from pi_app.tui.terminal.probe import TerminalSetup
    from pi_app.tui.theme.controller import ThemeController
    from pi_app.tui.theme.themes import ThemeManager
    from pi_app.tui.transcript.feed import TranscriptFeed
    from pi_app.tui.transcript.view import Transcript

__all__ = [
    "CommandHost",
    "ExtensionHost",
    "FeedHost",
    "HistoryHost",
    "Notes",
    "RebuildHost",
    "SelectorHost",
    "SessionHost",
    "Workers",
]


class Notes(Protocol):
    """The transcript's one-line notes."""

    def show_status(self, text: str) -> None: ...
    def show_warning(self, text: str) -> None: ...
    def show_error(self, text: str) -> None: ...


class Workers(Protocol):
    """Textual's workers: a flow, a background job or a thread's work runs as one."""

    def run_worker(
        self,
        work: Coroutine[Any, Any, Any] | Callable[[], Any],
        name: str | None = "",
        group: str = "default",
        *,
        exit_on_error: bool = True,
        thread: bool = False,
    ) -> Worker[Any]: ...


class HistoryHost(Protocol):
    """Drawing finished messages into the transcript (``history.add_message``)."""

    ext: AppExtensions
    """The custom message renderers come from the extensions' side (``extensions.host``)."""

    @property
    def transcript(self) -> Transcript: ...
    def hint(self, action: str) -> str: ...


class RebuildHost(HistoryHost, Protocol):
    """Drawing the session's context again (``history.rebuild_transcript``): the header first,
    then the context; a reply still streaming stays at the bottom."""

    session: AgentSession | None
    header: StartupHeader

    @property
    def is_working(self) -> bool: ...


class FeedHost(RebuildHost, Notes, Workers, Protocol):
    """What the transcript part asks of the app: the lookups it draws with, notes, the agent loop
    (an edit's diff preview), the settings (``showCacheMissNotices``) and a worker."""

    bridge: SessionBridge
    settings: SettingsManager | None


class SelectorHost(Notes, Workers, Protocol):
    """Notes, the editor slot (selectors and dialogs in place of the editor) and workers."""

    keybindings: Keybindings

    @property
    def themes(self) -> ThemeManager: ...

    @property
    def editor(self) -> PromptEditor: ...
    @property
    def editor_slot(self) -> EditorSlot: ...
    @property
    def has_screen(self) -> bool: ...
    def show_in_editor_slot(self, widget: Widget, owner: str = "app") -> None: ...
    def restore_editor(self, owner: str = "app") -> None: ...
    def hint(self, action: str) -> str: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...


class SessionHost(SelectorHost, Protocol):
    """A slot host that also reaches the session (through ``bridge`` for anything it does)."""

    session: AgentSession | None
    settings: SettingsManager | None
    bridge: SessionBridge
    cwd: str
    animations: bool
    """Spinners move (off in tests and snapshots)."""
    known_models: list[Model]
    """The available models as last fetched (``actions.available_models`` keeps it)."""

    @property
    def transcript(self) -> Transcript: ...
    @property
    def is_working(self) -> bool: ...

    snapshot: SessionSnapshot
    """What the app shows of the session (the newest snapshot the bridge delivered)."""

    def refresh_footer(self) -> None: ...


class CommandHost(SessionHost, RebuildHost, Protocol):
    """What a built-in slash command or a key action may use of the app."""

    options: LaunchOptions
    agent_dir: Path
    terminal: TerminalSetup
    autocomplete: PiAutocomplete
    router: PromptRouter
    """The prompt router: the messages waiting to be sent, the pending area, the editor's text."""
    run_status: RunStatus
    """The status part: working, compacting, retrying, an extension's working message."""
    theme_controller: ThemeController
    """The theme part: switching, applying, reloading and rediscovering themes."""
    focus_layers: FocusLayers
    interrupt_handlers: list[Callable[[], bool]]
    last_press: dict[str, float]
    """When a key action last ran (``time.monotonic``), for the double presses."""
    user_bash: UserBashRun | None
    tools_expanded: bool
    header: StartupHeader
    """The start-up header part (``show()`` draws it again)."""

    @property
    def pending(self) -> PendingArea: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def status_line(self) -> StatusLine: ...
    @property
    def size(self) -> Size: ...
    @property
    def screen(self) -> Screen[Any]: ...
    @property
    def main_screen(self) -> Screen[None] | None: ...

    @property
    def feed(self) -> TranscriptFeed:
        """The transcript part (once the session is ready)."""
        ...

    def shutdown(self) -> None: ...
    def update_title(self) -> None: ...
    def copy_to_clipboard(self, text: str) -> None: ...
    def batch_update(self) -> AbstractContextManager[None]: ...
    def suspend(self) -> AbstractContextManager[None]: ...
    def action_suspend_process(self) -> None: ...
    def refresh(self, *, repaint: bool = True, layout: bool = False) -> object: ...


class ExtensionHost(CommandHost, Protocol):
    """What the extension glue uses of the app, and the ``app`` extension factories receive."""

    _thread_id: int
    """Textual's UI thread (``App._thread_id``): calls from any other thread are posted."""
    title: str

    @property
    def focused(self) -> Widget | None: ...
    def post_message(self, message: Message) -> bool: ...
    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...
    def make_editor(self) -> PromptEditor: ...
