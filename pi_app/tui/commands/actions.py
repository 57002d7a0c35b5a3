"""What each app action does (spec 60 R-KEY-03, §3.8): ``ACTION_HANDLERS[action_id](app)``.

The editor maps keys to action ids through the effective keybindings and posts them to the app;
the app hands them to ``run_action``, which looks the handler up here. A handler may be ``async``
(it runs as a worker and its exception is shown as an ``Error:`` line). Handlers talk to the
session only through ``app.bridge`` (the session lives on the agent thread's loop). Ctrl+C twice
quits and Escape twice on an empty editor opens the tree when the second press comes within
``DOUBLE_PRESS_S`` (the times are the app's ``last_press``).
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.ai.types import Model
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.models.resolver import ScopedModel
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.host import CommandHost, SessionHost

ActionHandler = Callable[["CommandHost"], "Awaitable[None] | None"]

DOUBLE_PRESS_S = 0.5


def run_action(app: CommandHost, action: str) -> None:
    """Run the handler of ``action`` (an async one as a worker whose failure is an error line)."""
    handler = ACTION_HANDLERS.get(action)
    if handler is None:
        return
    result = handler(app)
    if inspect.isawaitable(result):
        app.run_worker(_reported(app, result), group="action", exit_on_error=False)


async def _reported(app: CommandHost, result: Awaitable[None]) -> None:
    try:
        await result
    except Exception as exc:
        app.show_error(str(exc) or type(exc).__name__)


# -- Escape (R-INT-07) ----------------------------------------------------------------------------


async def interrupt(app: CommandHost) -> None:
    """The Escape chain, first match wins (an open autocomplete list was closed by the editor)."""
    for handler in reversed(app.interrupt_handlers):
        if handler():
            return
    session = app.session
    if session is not None and app.run_status.is_compacting:
        app.bridge.call_soon(lambda s: s.abort_compaction())
        return
    if session is not None and app.run_status.retrying:
        app.bridge.call_soon(lambda s: s.abort_retry())
        return
    if session is not None and (app.is_working or app.snapshot.streaming):
        restored: list[str] = await app.bridge.request(_clear_queue_and_abort)
        local = [text for text, _ in app.router.waiting]
        texts = restored + local
        app.router.clear()
        if texts:
            app.router.restore_to_editor(texts)
        return
    if app.user_bash is not None and app.user_bash.running:
        app.user_bash.abort()
        return
    editor = app.editor
    if editor.text.lstrip().startswith("!"):
        editor.clear()
        return
    if editor.text == "" and _second_escape(app):
        action = app.settings.get_double_escape_action() if app.settings is not None else "tree"
        if action in ("tree", "fork") and action in app.router.commands:
            await app.router.commands.run(app, f"/{action}")


def _second_escape(app: CommandHost) -> bool:
    """Record an Escape on an empty editor; True when it is the second within ``DOUBLE_PRESS_S``."""
    now = time.monotonic()
    double = now - app.last_press.get("app.interrupt", 0.0) < DOUBLE_PRESS_S
    app.last_press["app.interrupt"] = 0.0 if double else now
    return double


def _clear_queue_and_abort(session: AgentSession) -> list[str]:
    texts = session.clear_queue()
    session.abort()
    return list(texts)


async def dequeue(app: CommandHost) -> None:
    """Alt+Up: every queued message back into the editor (R-INT-06)."""
    texts = await app.router.take_all()
    if not texts:
        app.show_status("No queued messages to restore")
        return
    app.router.restore_to_editor(texts)
    app.show_status(f"Restored {len(texts)} queued message(s) to editor")


# -- simple ones ----------------------------------------------------------------------------------


def clear(app: CommandHost) -> None:
    """Ctrl+C: copy the transcript selection if there is one (R-TR-11, OSC 52); else clear the
    editor, or quit when it is the second press within ``DOUBLE_PRESS_S``."""
    selected = app.screen.get_selected_text()
    if selected:
        app.copy_to_clipboard(selected)
        app.screen.clear_selection()
        return
    now = time.monotonic()
    if now - app.last_press.get("app.clear", 0.0) < DOUBLE_PRESS_S:
        app.shutdown()
        return
    app.last_press["app.clear"] = now
    app.editor.clear()


def exit_app(app: CommandHost) -> None:
    app.shutdown()


def suspend(app: CommandHost) -> None:
    if sys.platform == "win32":
        app.show_warning("Suspend is not supported on Windows")
        return
    try:
        app.action_suspend_process()
    except Exception as exc:  # headless drivers (tests) cannot suspend
        app.show_warning(f"Cannot suspend: {exc}")


def toggle_tools(app: CommandHost) -> None:
    app.tools_expanded = not app.tools_expanded
    app.transcript.set_expand_all(app.tools_expanded)


def toggle_thinking(app: CommandHost) -> None:
    """Ctrl+T: flip ``hideThinkingBlock`` (persisted) and rebuild the transcript (R-TR-06)."""
    hide = not app.transcript.hide_thinking
    if app.settings is not None:
        try:
            app.settings.set_hide_thinking_block(hide)
        except Exception as exc:
            app.show_warning(f"Could not save the setting: {exc}")
    app.transcript.set_hide_thinking(hide)
    app.show_status(f"Thinking blocks: {'hidden' if hide else 'visible'}")


def _jump(direction: int) -> ActionHandler:
    def handler(app: CommandHost) -> None:
        app.transcript.jump_prompt(direction)

    return handler


def _command(name: str) -> ActionHandler:
    async def handler(app: CommandHost) -> None:
        if name in app.router.commands:
            await app.router.commands.run(app, f"/{name}")
        else:
            app.show_status(f"/{name} is not available")

    return handler


# -- thinking and models (R-INT-08) ---------------------------------------------------------------


async def cycle_thinking(app: CommandHost) -> None:
    if app.session is None:
        return
    if not app.snapshot.has_model or not app.snapshot.reasoning:
        app.show_status("Current model does not support thinking")
        return
    level = await app.bridge.request(lambda s: s.cycle_thinking_level())
    app.refresh_footer()
    app.show_status(f"Thinking level: {level}")


async def scoped_models(app: SessionHost) -> list[ScopedModel]:
    """The model scope as the session owns it (``AgentSession.model_scope``: ``--models``,
    ``/scoped-models`` changes, else ``enabledModels``), asked on the agent loop."""
    scope: list[ScopedModel] = list(await app.bridge.request(lambda s: s.model_scope()))
    return scope


async def available_models(app: SessionHost) -> list[Model]:
    session = app.session
    if session is None:
        return []
    if session.model_registry is None:
        current: Model | None = await app.bridge.request(lambda s: s.model)
        return [current] if current is not None else []
    models: list[Model] = list(
        await app.bridge.request(lambda s: s.model_registry.get_available() if s.model_registry else [])
    )
    app.known_models = models
    return models


def _cycle(direction: int) -> ActionHandler:
    async def handler(app: CommandHost) -> None:
        session = app.session
        if session is None:
            return
        result = await app.bridge.request(lambda s: s.cycle_model(direction))
        if result is None:
            scope = await scoped_models(app)
            app.show_status("Only one model in scope" if scope else "Only one model available")
            return
        model: Model = result.model
        label = model.name or model.id
        level = result.thinking_level
        suffix = f" (thinking: {level})" if model.reasoning and level != "off" else ""
        app.refresh_footer()
        app.show_status(f"Switched to {label}{suffix}")

    return handler


async def select_model(app: CommandHost) -> None:
    from pi_app.tui.selectors.models import open_model_selector

    await open_model_selector(app, "")


# -- external editor (R-TUI-10) -------------------------------------------------------------------


def editor_command(settings: SettingsManager | None) -> str | None:
    """The external editor (pi 1.6.0): the ``externalEditor`` setting, ``$VISUAL``, ``$EDITOR``,
    then ``nano`` when it is installed."""
    value = settings.get_external_editor() if settings is not None else None
    if isinstance(value, str) and value.strip():
        return value
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if command:
        return command
    return platform_editor()


def platform_editor() -> str | None:
    """The editor of last resort: ``nano`` when it is on ``PATH``."""
    import shutil

    return "nano" if shutil.which("nano") else None


def external_editor(app: CommandHost) -> None:
    import shlex
    import subprocess
    import tempfile
    import time

    command = editor_command(app.settings)
    if not command:
        app.show_warning(
            "No editor configured. Set externalEditor in settings, or $VISUAL or $EDITOR environment variable."
        )
        return
    editor = app.editor
    fd, path = tempfile.mkstemp(prefix=f"pi-editor-{int(time.time() * 1000)}", suffix=".pi.md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(editor.expanded_text())
        try:
            with app.suspend():
                status = subprocess.call([*shlex.split(command), path])
        except Exception:  # no terminal to hand over (tests): run it without suspending
            status = subprocess.call([*shlex.split(command), path])
        if status == 0:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            editor.set_text(text[:-1] if text.endswith("\n") else text)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        app.refresh(layout=True)


# -- clipboard image (R-IMG-05) -------------------------------------------------------------------


async def paste_image(app: CommandHost) -> None:
    import asyncio

    from pi_app.tui.terminal.images import save_clipboard_image

    path = await asyncio.to_thread(save_clipboard_image)
    if path:
        app.editor.insert(path)


# -- copying (R-CMD-04; 1.6.0's app.message.copy) --------------------------------------------------


async def copy_last_assistant_message(app: CommandHost) -> None:
    """``/copy``: the last assistant message's text to the clipboard (OSC 52 and the platform tool)."""
    import asyncio

    from pi_app.tui.terminal.clipboard import copy_text_with_tool

    text: str | None = None
    if app.session is not None:
        text = await app.bridge.request(lambda s: s.get_last_assistant_text())
    if not text:
        app.show_error("No agent messages to copy yet.")
        return
    app.copy_to_clipboard(text)
    await asyncio.to_thread(copy_text_with_tool, text)
    app.show_status("Copied last agent message to clipboard")


async def copy_message(app: CommandHost) -> None:
    """Ctrl+X: the transcript selection when there is one, else the last assistant message."""
    selected = app.screen.get_selected_text()
    if selected:
        app.copy_to_clipboard(selected)
        app.screen.clear_selection()
        app.show_status("Copied selection to clipboard")
        return
    await copy_last_assistant_message(app)


def open_search(app: CommandHost) -> None:
    from pi_app.tui.transcript import search_bar

    search_bar.open_search(app)


async def debug_dump(app: CommandHost) -> None:
    from pi_app.tui.commands.debug import write_debug_log

    path = await write_debug_log(app)
    app.show_status(f"Debug log written to {path}")


ACTION_HANDLERS: dict[str, ActionHandler] = {
    "app.interrupt": interrupt,
    "app.clear": clear,
    "app.exit": exit_app,
    "app.suspend": suspend,
    "app.thinking.cycle": cycle_thinking,
    "app.model.cycleForward": _cycle(1),
    "app.model.cycleBackward": _cycle(-1),
    "app.model.select": select_model,
    "app.tools.expand": toggle_tools,
    "app.thinking.toggle": toggle_thinking,
    "app.editor.external": external_editor,
    "app.message.dequeue": dequeue,
    "app.clipboard.pasteImage": paste_image,
    "app.message.copy": copy_message,
    "app.session.new": _command("new"),
    "app.session.tree": _command("tree"),
    "app.session.fork": _command("fork"),
    "app.session.resume": _command("resume"),
    "tui.altScreen.pageUp": lambda app: app.transcript.scroll_page_up_lines(),
    "tui.altScreen.pageDown": lambda app: app.transcript.scroll_page_down_lines(),
    "tui.altScreen.halfPageUp": lambda app: app.transcript.scroll_half_page_up(),
    "tui.altScreen.halfPageDown": lambda app: app.transcript.scroll_half_page_down(),
    "tui.altScreen.lineUp": lambda app: app.transcript.scroll_line_up(),
    "tui.altScreen.lineDown": lambda app: app.transcript.scroll_line_down(),
    "tui.altScreen.previousPrompt": _jump(-1),
    "tui.altScreen.nextPrompt": _jump(1),
    "tui.altScreen.top": lambda app: app.transcript.scroll_top(),
    "tui.altScreen.bottom": lambda app: app.transcript.scroll_bottom(),
    "tui.altScreen.search": open_search,
    "app.debug": debug_dump,
}
