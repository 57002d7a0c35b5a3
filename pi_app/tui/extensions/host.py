"""The app's side of the extensions (spec 40 §2.8 step 7, R-EXT-20/21/48; spec 60 R-TUI-14, R-XUI).

``AppExtensions`` (``app.ext``) connects the session's ``ExtensionBinding``
(``session.extension_runner``) to the full-screen app:

* ``bind()`` once the session is ready: the load problems are listed (one line each, naming the
  file: ``Extension error (<path>): …``), then on the agent loop the error listener is added and
  ``set_ui_context(ui, "tui", has_ui=True)`` hands over ``TuiExtensionUI``, which starts the
  extensions (``session_start``); ``start()`` is awaited for bindings that do not start by
  themselves. Every later ``ExtensionError`` becomes one error line in the transcript.
* commands: extension commands typed in the editor run at once on the agent loop, even while the
  agent streams or compacts and without a model (R-EXT-48); autocomplete lists them with their
  argument completions (``command_infos``).
* keys: ``handle_key`` is the editor's ``shortcut_handler``. ``on_terminal_input`` listeners see
  every key first (consume or replace it), then extension shortcuts (R-KEY-05). A shortcut on a
  reserved app action is skipped with a warning; one on another built-in key takes it over with a
  warning (R-EXT-21). Handlers run on the agent loop.
* generations: ``/reload`` and session replacement build a new runtime; everything the old one
  put on screen is removed (R-XUI-02) and shortcuts are read again (``check_generation``).
* drawing: the transcript asks here for a tool's ``ToolDefinition`` (an extension's renderers, or
  an override drawn like the built-in it replaces) and for a custom message type's renderer.

Decisions where the spec is silent: a failed ``custom``/widget factory is reported with the file
that defined the factory; ``command:<name>`` error paths are shown with the command's file.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pi_app.tui.editor.autocomplete import AutocompleteItem, CommandInfo
from pi_app.tui.extensions.queue import ExtensionDialogs
from pi_app.tui.extensions.surface import ExtensionSurface
from pi_app.tui.extensions.ui import TuiExtensionUI
from pi_app.tui.input.keys import KeyPress

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.extensions.runner import ExtensionRunner
    from pi_app.coding.extensions.session_binding import ExtensionBinding
    from pi_app.coding.extensions.types import ExtensionError, RegisteredCommand, RegisteredShortcut
    from pi_app.coding.tools.definition import ToolDefinition
    from pi_app.tui.host import ExtensionHost

log = logging.getLogger(__name__)
T = TypeVar("T")

RESERVED_APP_ACTIONS = frozenset(
    {
        "app.interrupt",
        "app.clear",
        "app.exit",
        "app.suspend",
        "app.thinking.cycle",
        "app.model.cycleForward",
        "app.model.cycleBackward",
        "app.model.select",
        "app.tools.expand",
        "app.thinking.toggle",
        "app.editor.external",
        "app.message.followUp",
        "tui.input.submit",
        "tui.select.confirm",
        "tui.select.cancel",
        "tui.input.copy",
        "tui.editor.deleteToLineEnd",
    }
)
"""Keys an extension shortcut may never take over (40 R-EXT-21, in this app's action names)."""


def source_file(origin: Any) -> str | None:
    """The file that defined ``origin`` (a function, lambda, class or bound method)."""
    target = getattr(origin, "__func__", origin)
    code = getattr(target, "__code__", None)
    if code is not None:
        return str(code.co_filename)
    try:
        return inspect.getsourcefile(target if inspect.isclass(target) else type(target))
    except (TypeError, OSError):
        return None


class AppExtensions:
    def __init__(self, app: ExtensionHost) -> None:
        self.app = app
        self.ui = TuiExtensionUI(app)
        self.surface = ExtensionSurface(app)
        self.dialogs = ExtensionDialogs(app)
        self.shortcuts: dict[str, RegisteredShortcut] = {}
        self.shutdown_requested = False
        """``ctx.shutdown()`` came while the agent was working: the app leaves once the run ends."""
        self._runner: ExtensionRunner | None = None
        self._warned_keys: set[str] = set()
        self._failed_renderers: set[Any] = set()

    # -- access ----------------------------------------------------------------------------------

    @property
    def binding(self) -> ExtensionBinding | None:
        session = self.app.session
        return session.extension_runner if session is not None else None

    def current_runner(self) -> ExtensionRunner | None:
        binding = self.binding
        return binding.runner if binding is not None else None

    # -- start-up --------------------------------------------------------------------------------

    def bind(self) -> None:
        """Called on the UI thread when the session is ready (R-TUI-14)."""
        binding = self.binding
        if binding is None:
            return
        self._runner = self.current_runner()
        self.show_load_problems()
        self.refresh_shortcuts()
        self.app.bridge.call(self._bind_on_agent_loop)

    async def _bind_on_agent_loop(self, session: AgentSession) -> None:
        binding = session.extension_runner
        if binding is None:
            return
        binding.on_error(self._error_from_any_thread)
        binding.on_shutdown_request = lambda: self.ui._run(self._shutdown_requested)
        binding.set_ui_context(self.ui, "tui", True)
        await binding.start()

    def show_load_problems(self) -> None:
        binding = self.binding
        session = self.app.session
        loader = session.resource_loader if session is not None else None
        loaded = loader.get_extensions() if loader is not None else None
        runner = self.current_runner()
        errors = list(
            (loaded.errors if loaded is not None else None) or (runner.load_errors if runner else [])
        )
        for problem in errors:
            self._line(f"Extension error ({problem.path}): {_first_line(problem.error)}", "error")
        for problem in runner.conflicts if runner is not None else []:
            self._line(f"Warning: {problem.path}: {_first_line(problem.error)}", "warning")
        for diagnostic in loaded.diagnostics if loaded is not None else []:
            self._line(f"Warning: {_first_line(diagnostic.one_line())}", "warning")
        for warning in binding.take_override_warnings() if binding is not None else []:
            self._line(f"Warning: {warning}", "warning")

    def _line(self, text: str, kind: str) -> None:
        if self.app.has_screen:
            self.app.transcript.add_note(text, kind)

    def _shutdown_requested(self) -> None:
        """``ctx.shutdown()``: now when idle, else once the run has ended (R-EXT-46, R-TUI-11)."""
        self.shutdown_requested = True
        if not self.app.is_working:
            self.app.shutdown()

    # -- errors ----------------------------------------------------------------------------------

    def _error_from_any_thread(self, error: ExtensionError) -> None:
        from pi_app.tui.extensions.ui import RunOnUI

        if self.ui._on_ui_thread():
            self.report(error)
        else:
            self.app.post_message(RunOnUI(lambda: self.report(error)))

    def report(self, error: ExtensionError) -> None:
        """One ``Extension error (<file>): <message>`` line for an ``ExtensionError``."""
        path = error.extension_path or "?"
        if path.startswith("command:"):
            command = self._command(path.removeprefix("command:"))
            path = (command.extension_path if command is not None else "") or path
        self._line(f"Extension error ({path}): {_first_line(str(error.error))}", "error")

    def report_exception(self, origin: Any, event: str, exc: BaseException) -> None:
        log.debug("extension UI callback failed (%s)", event, exc_info=exc)
        path = source_file(origin) or "extension"
        self._line(f"Extension error ({path}): {_first_line(str(exc) or type(exc).__name__)}", "error")

    def guard_renderer(self, renderer: Callable[..., Any]) -> Callable[..., Any]:
        """A message renderer whose first failure is reported as an error line; the block then
        falls back to the default look (R-XUI-03)."""

        def guarded(*args: Any) -> Any:
            try:
                return renderer(*args)
            except Exception as exc:
                if renderer not in self._failed_renderers:
                    self._failed_renderers.add(renderer)
                    # later: the transcript is drawing right now
                    self.app.call_later(self.report_exception, renderer, "message_renderer", exc)
                raise

        return guarded

    def run_guarded(self, fn: Callable[[], Any], origin: Any = None) -> None:
        """Run a UI-thread part of an extension call; a failure is one error line (R-XUI-03)."""
        if not self.app.has_screen:
            return
        self.check_generation()
        try:
            fn()
        except Exception as exc:
            self.report_exception(origin or fn, "ui", exc)

    async def run_guarded_question(self, flow: Callable[[], Awaitable[T]], origin: Any = None) -> T:
        """``run_guarded`` for the flow of an extension's question (run through ``ask_user``): a
        new runtime's clean screen first; a failure is one error line, then the asker gets its
        default answer."""
        if self.app.has_screen:
            self.check_generation()
        try:
            return await flow()
        except Exception as exc:
            self.report_exception(origin or flow, "ui", exc)
            raise

    # -- generations -----------------------------------------------------------------------------

    def check_generation(self) -> None:
        """A new runtime (reload, new/resume/fork session) starts from a clean screen."""
        runner = self.current_runner()
        if runner is self._runner:
            return
        previous, self._runner = self._runner, runner
        if previous is not None:
            self.surface.reset()
        self.refresh_shortcuts()

    async def reload(self) -> None:
        """``/reload`` of the extensions: old elements go, the new runtime starts (R-CMD-17). The
        caller lists the load problems (``show_load_problems``) once the transcript is rebuilt."""
        self.surface.reset()
        await self.app.bridge.request(lambda s: s.extension_runner.reload())
        self.check_generation()

    # -- commands --------------------------------------------------------------------------------

    def _command(self, name: str) -> RegisteredCommand | None:
        runner = self.current_runner()
        try:
            return runner.get_command(name) if runner is not None else None
        except Exception:
            return None

    def is_command(self, text: str) -> bool:
        from pi_app.tui.commands.registry import parse

        parsed = parse(text)
        return parsed is not None and self._command(parsed[0]) is not None

    def run_command(self, text: str) -> None:
        """Run an extension command now, whatever the agent is doing (R-EXT-48)."""
        line = text.strip()
        self.app.bridge.call(lambda s: s.extension_runner.execute_command(line))

    def command_infos(self) -> list[CommandInfo]:
        runner = self.current_runner()
        try:
            commands = list(runner.get_commands()) if runner is not None else []
        except Exception:
            return []
        return [
            CommandInfo(
                c.name, c.description, None, self._completer(c) if c.get_argument_completions else None
            )
            for c in commands
        ]

    def _completer(self, command: RegisteredCommand) -> Callable[[str], list[AutocompleteItem] | None]:
        completer = command.get_argument_completions
        assert completer is not None  # only commands with a completer get one

        def complete(prefix: str) -> list[AutocompleteItem] | None:
            try:
                found = completer(prefix)
            except Exception as exc:
                self.report_exception(completer, "autocomplete", exc)
                return None
            if inspect.isawaitable(found):  # the editor asks synchronously; async completers are skipped
                close = getattr(found, "close", None)
                if callable(close):
                    close()
                return None
            return [_item(raw) for raw in found or []] or None

        return complete

    # -- keys ------------------------------------------------------------------------------------

    def refresh_shortcuts(self) -> None:
        runner = self.current_runner()
        try:
            shortcuts = dict(runner.get_shortcuts()) if runner is not None else {}
        except Exception:
            shortcuts = {}
        keybindings = self.app.keybindings
        allowed: dict[str, RegisteredShortcut] = {}
        for key, shortcut in shortcuts.items():
            actions = set(keybindings.actions_for(key))
            reserved = actions & RESERVED_APP_ACTIONS
            if reserved:
                self._warn_key(
                    key,
                    f"Shortcut '{key}' from {shortcut.extension_path} is reserved for "
                    f"{sorted(reserved)[0]} and cannot be taken over. Skipping.",
                )
                continue
            if actions:
                self._warn_key(
                    key, f"Shortcut '{key}' from {shortcut.extension_path} takes over {sorted(actions)[0]}"
                )
            allowed[key.lower()] = shortcut
        self.shortcuts = allowed

    def shortcuts_table(self) -> list[tuple[str, str]]:
        """The extension shortcuts ``/hotkeys`` lists: (description, key), by key."""
        from pi_app.tui.input.keybindings import display_key

        return [(s.description or key, display_key(key)) for key, s in sorted(self.shortcuts.items())]

    def _warn_key(self, key: str, text: str) -> None:
        if key not in self._warned_keys:
            self._warned_keys.add(key)
            self._line(f"Warning: {text}", "warning")

    def handle_key(self, press: KeyPress) -> bool:
        """The editor's first look at every key (R-KEY-05, R-XUI-02); True means consumed."""
        for listener in list(self.surface.input_listeners):
            try:
                answer = listener(press.key_id)
            except Exception as exc:
                self.report_exception(listener, "terminal_input", exc)
                continue
            if isinstance(answer, dict) and answer.get("consume"):
                return True
            data = answer.get("data") if isinstance(answer, dict) else None
            if isinstance(data, str):
                self.app.editor.insert(data)
                return True
        key = press.key_id.lower()
        if key not in self.shortcuts:
            return False
        self._run_shortcut(key)
        return True

    def _run_shortcut(self, key: str) -> None:
        self.app.bridge.call(lambda s: s.extension_runner.run_shortcut(key))

    # -- what the transcript draws with ----------------------------------------------------------

    def tool_definition(self, name: str) -> ToolDefinition | None:
        """The session's ``ToolDefinition`` called ``name`` (for extension renderers), or None."""
        session = self.app.session
        if session is None:
            return None
        binding = session.extension_runner
        if binding is not None:  # the binding's registry: extension tools and overrides
            try:  # an override without renderers is drawn like the built-in it replaces (R-EXT-19)
                found: ToolDefinition | None = binding.tools.renderer_fallback(name) or binding.tools.get(
                    name
                )
            except Exception:
                found = None
            if found is not None:
                return found
        return next((d for d in session.tool_definitions if d.name == name), None)

    def message_renderer(self, message: Any) -> Callable[..., Any] | None:
        """The extension renderer for a custom message's type, if one is registered."""
        binding = self.binding
        if binding is None:
            return None
        try:
            renderer = binding.get_message_renderer(getattr(message, "custom_type", ""))
        except Exception:
            return None
        return self.guard_renderer(renderer) if renderer is not None else None

    # -- the editor ------------------------------------------------------------------------------

    def swap_editor(self, factory: Callable[..., Any] | None) -> None:
        self.app.run_worker(self._swap_editor(factory), group="ext-editor", exit_on_error=False)

    async def _swap_editor(self, factory: Callable[..., Any] | None) -> None:
        from pi_app.tui.editor.widget import PromptEditor, thinking_border_token

        app = self.app
        slot = app.editor_slot
        old = slot.editor
        assert isinstance(old, PromptEditor)
        try:
            new = (
                factory(app, app.themes.current, app.keybindings)
                if factory is not None
                else app.make_editor()
            )
            if not isinstance(new, PromptEditor):
                raise TypeError("set_editor_component needs a pi_app.tui.ext.CustomEditor")
        except Exception as exc:
            self.report_exception(factory, "set_editor_component", exc)
            return
        text = old.text
        new.shortcut_handler = self.handle_key
        new.autocomplete = app.autocomplete
        new.padding_x, new.max_visible_items = old.padding_x, old.max_visible_items
        new.keybindings = app.keybindings
        was_visible = old.display
        slot.editor = new  # app.editor is the new one from now on, even before it is mounted
        new.display = was_visible
        await old.remove()  # first: both carry the id "editor"
        await slot.mount(new, before=0 if slot.children else None)
        new.set_text(text)
        new.set_border_token(thinking_border_token(app.snapshot))
        if was_visible:
            new.focus()


def _item(raw: Any) -> AutocompleteItem:
    if isinstance(raw, dict):
        value = str(raw.get("value", ""))
        return AutocompleteItem(value, str(raw.get("label") or value), raw.get("description"))
    if isinstance(raw, str):
        return AutocompleteItem(raw, raw)
    value = str(getattr(raw, "value", ""))
    return AutocompleteItem(
        value, str(getattr(raw, "label", None) or value), getattr(raw, "description", None)
    )


def _first_line(text: str) -> str:
    lines = str(text).strip().splitlines()
    return lines[0] if lines else ""
