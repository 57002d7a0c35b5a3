"""Built-in slash commands of the app shell (spec 60 §3.9).

Navigation commands (``/tree``, ``/fork``, ``/clone``, ``/resume``, ``/new``, ``/name``,
``/session``) register from their own selector modules; see ``pi_app.tui.commands.registry`` for the
registry and what a handler may use on ``app``. ``/share`` lives in ``pi_app.tui.commands.share``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pi_app.tui.chrome.changelog import changelog_text
from pi_app.tui.commands.registry import CommandRegistry, SlashCommand
from pi_app.tui.input.keybindings import ACTIONS
from pi_app.tui.transcript.blocks.info import InfoBlock
from pi_app.tui.transcript.history import context_messages, rebuild_transcript

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.tui.host import CommandHost


def _quit(app: CommandHost, args: str) -> None:
    app.shutdown()


async def _model(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.models import model_command

    await model_command(app, args)


async def _thinking(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.thinking import thinking_command

    await thinking_command(app, args)


async def _scoped_models(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.scoped_models import open_scoped_models

    await open_scoped_models(app)


def _settings(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.settings import open_settings

    open_settings(app)


async def _login(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.login import open_login

    await open_login(app)


async def _logout(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.login import open_logout

    await open_logout(app)


# -- /compact (R-CMD-15) --------------------------------------------------------------------------


async def _compact(app: CommandHost, args: str) -> None:
    """Start a manual compaction; progress, the result and cancellation arrive as session events."""
    session = app.session
    if session is None:
        app.show_status("Still starting up…")
        return
    messages = [m for m in context_messages(session) if m.role in ("user", "assistant")]
    if len(messages) < 2:
        app.show_warning("Nothing to compact (no messages yet)")
        return
    instructions = args.strip() or None
    reported = app.run_status.compactions_ended
    try:
        await app.bridge.request(lambda s: s.compact(instructions))
    except Exception as exc:
        if app.run_status.compactions_ended == reported:  # the compaction_end event did not report it already
            app.show_error(str(exc) or type(exc).__name__)


# -- /copy, /export (R-CMD-04, R-CMD-06) ----------------------------------------------------------


async def _copy(app: CommandHost, args: str) -> None:
    from pi_app.tui.commands.actions import copy_last_assistant_message

    await copy_last_assistant_message(app)


async def _share(app: CommandHost, args: str) -> None:
    from pi_app.tui.commands.share import share_command

    await share_command(app, args)


async def export_page(app: CommandHost, target: str | None) -> str | None:
    """The session exported to ``target`` (or the default HTML name); None after an error line.

    A ``.jsonl`` target gets the session file itself (issue 17, defect 9), anything else the HTML
    page, as pi 1.6.0's ``/export`` does.
    """
    from pi_app.coding.export_html import export_session_to_html

    def export(session: AgentSession) -> str:
        if target and target.lower().endswith(".jsonl"):
            path = Path(os.path.expanduser(target))
            return str(
                session.session_manager.export_jsonl(path if path.is_absolute() else Path(session.cwd) / path)
            )
        return str(export_session_to_html(session.session_manager, target, cwd=session.cwd))

    try:
        return str(await app.bridge.request(export))
    except Exception as exc:
        app.show_error(f"Failed to export session: {exc}")
        return None


async def _export(app: CommandHost, args: str) -> None:
    if app.session is None:
        app.show_status("Still starting up…")
        return
    path = await export_page(app, args.strip() or None)
    if path is not None:
        app.show_status(f"Session exported to: {path}")


# -- /hotkeys, /changelog (R-CMD-09, R-CMD-10) ----------------------------------------------------

_HOTKEY_GROUPS = ("Navigation", "Transcript", "Editing", "Other")


def hotkeys_markdown(app: CommandHost) -> str:
    bindings = app.keybindings
    parts: list[str] = []
    for group in _HOTKEY_GROUPS:
        rows = [
            (a.description, bindings.display(a.id))
            for a in ACTIONS
            if a.group == group and bindings.keys(a.id)
        ]
        if group == "Editing":
            rows += [("Run a shell command", "!cmd"), ("Run a shell command (no context)", "!!cmd")]
        parts.append(
            f"**{group}**\n\n| Action | Keys |\n|---|---|\n" + "\n".join(f"| {d} | {k} |" for d, k in rows)
        )
    shortcuts = app.ext.shortcuts_table()
    if shortcuts:
        parts.append(
            "**Extensions**\n\n| Shortcut | Keys |\n|---|---|\n"
            + "\n".join(f"| {d} | {k} |" for d, k in shortcuts)
        )
    return "\n\n".join(parts)


def _hotkeys(app: CommandHost, args: str) -> None:
    app.transcript.append_block(InfoBlock(hotkeys_markdown(app)))


def _changelog(app: CommandHost, args: str) -> None:
    app.transcript.append_block(InfoBlock(changelog_text()))


# -- /reload (R-CMD-17) ---------------------------------------------------------------------------


async def _reload(app: CommandHost, args: str) -> None:
    if await reload_resources(app):
        app.show_status("Reloaded keybindings, extensions, skills, prompts, themes")


async def reload_resources(app: CommandHost) -> bool:
    """Reload keybindings, extensions, settings, skills, prompts and themes (``/reload``,
    ``/trust``); False, with one line shown, when it cannot be done now or failed."""
    from pi_app.tui.input.keybindings import Keybindings

    if app.is_working or app.snapshot.streaming:
        app.show_warning("Wait for the current response to finish before reloading.")
        return False
    if app.run_status.is_compacting:
        app.show_warning("Wait for compaction to finish before reloading.")
        return False
    session = app.session
    try:
        if session is not None and session.extension_runner is not None:
            await app.ext.reload()  # re-imports extensions and reloads settings and resources
        elif session is not None and session.resource_loader is not None:
            await app.bridge.request(lambda s: s.resource_loader.reload() if s.resource_loader else None)
        if session is not None:  # mcp.json may have changed too (pi mcp add, an editor)
            from pi_app.coding.mcp import reload_mcp

            await app.bridge.request(reload_mcp)
    except Exception as exc:
        app.show_error(f"Reload failed: {exc}")
        return False
    app.keybindings = Keybindings.load(app.agent_dir / "keybindings.json")
    for warning in app.keybindings.warnings:
        app.show_warning(warning)
    app.theme_controller.reload()
    _apply_keybindings(app)
    rebuild_transcript(app)
    app.ext.show_load_problems()  # after the rebuild, so the lines stay (a broken extension file)
    return True


def _apply_keybindings(app: CommandHost) -> None:
    """Hand the reloaded keybindings to every widget that shows or matches keys."""
    from pi_app.tui.editor.widget import PromptEditor

    for editor in app.main_screen.query(PromptEditor) if app.main_screen else []:
        editor.keybindings = app.keybindings
    app.pending.dequeue_hint = app.hint("app.message.dequeue")
    app.transcript.set_key_hints(app.keybindings)
    app.header.show()


async def _trust(app: CommandHost, args: str) -> None:
    from pi_app.tui.selectors.trust import trust_command

    await trust_command(app, args)


async def _mcp(app: CommandHost, args: str) -> None:
    from pi_app.tui.commands.mcp import mcp_command

    await mcp_command(app, args)


async def _debug(app: CommandHost, args: str) -> None:
    from pi_app.tui.commands.debug import write_debug_log

    path = await write_debug_log(app)
    app.show_status(f"Debug log written to {path}")


def register(registry: CommandRegistry) -> None:
    registry.add(SlashCommand("settings", "Open settings menu", _settings))
    registry.add(SlashCommand("model", "Select model (opens selector UI)", _model, argument_hint="[search]"))
    registry.add(
        SlashCommand(
            "thinking", "Set the thinking level (opens selector UI)", _thinking, argument_hint="[level]"
        )
    )
    registry.add(SlashCommand("scoped-models", "Enable/disable models for Ctrl+P cycling", _scoped_models))
    registry.add(
        SlashCommand(
            "export", "Export session (HTML, or JSONL for a .jsonl file)", _export, argument_hint="[file]"
        )
    )
    registry.add(SlashCommand("share", "Share session as a secret GitHub gist", _share))
    registry.add(SlashCommand("copy", "Copy last agent message to clipboard", _copy))
    registry.add(SlashCommand("changelog", "Show changelog entries", _changelog))
    registry.add(SlashCommand("hotkeys", "Show all keyboard shortcuts", _hotkeys))
    registry.add(SlashCommand("login", "Login with OAuth provider", _login))
    registry.add(SlashCommand("logout", "Logout from OAuth provider", _logout))
    registry.add(
        SlashCommand(
            "compact", "Manually compact the session context", _compact, argument_hint="[instructions]"
        )
    )
    registry.add(
        SlashCommand("reload", "Reload keybindings, extensions, skills, prompts, and themes", _reload)
    )
    registry.add(SlashCommand("trust", "Decide whether this project's .pi resources load", _trust))
    registry.add(
        SlashCommand(
            "mcp",
            "MCP servers: status, tools, reconnect, sign in, enable/disable",
            _mcp,
            argument_hint="[login|logout|reconnect|enable|disable <server>]",
        )
    )
    registry.add(SlashCommand("quit", "Quit pi", _quit, aliases=("exit",)))
    registry.add(SlashCommand("debug", "Write the debug log", _debug, hidden=True))
