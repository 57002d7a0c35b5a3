"""The session-navigation commands of the interactive app: ``/tree``, ``/fork``, ``/clone``,
``/resume``, ``/import``, ``/new``, ``/name`` and ``/session`` (spec 60 R-CMD-07/08/11/12/14/16, R-SEL-01…03).

Each handler starts a flow in a worker and returns at once, so the app keeps dispatching keys to
the selector the flow is waiting on (``slot.ask``). Flows read and change the session only on the
agent loop (``request``); after every move the transcript is rebuilt from the session's new
context in one batch (no flicker) and the footer is refreshed.

``/tree``: the navigator (``tree.TreeNavigator``); Enter on the current leaf says "Already at
this point"; otherwise, unless ``branchSummary.skipPrompt`` is set, "Summarize branch?" offers
no summary / summarize / summarize with custom instructions. Escape on that question re-opens the
tree on the same entry; while a summary is generated the interrupt key aborts it and the tree
re-opens. Choosing a user message puts its text in the editor (when the editor is empty).
Label edits are written at once as ``label`` entries.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pi_app.tui.commands.registry import CommandRegistry, SlashCommand
from pi_app.tui.selectors.choice import BusyPanel, ChoiceSelector, TextPrompt
from pi_app.tui.selectors.file_restore import offer_file_restore
from pi_app.tui.selectors.fork import ForkCandidate, ForkSelector
from pi_app.tui.selectors.sessions import Renamer, SessionPicker
from pi_app.tui.selectors.slot import ask
from pi_app.tui.selectors.tree import TreeNavigator
from pi_app.tui.transcript.history import rebuild_transcript

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.checkpoints.restore import RestorePlan
    from pi_app.coding.session_stats import SessionStats
    from pi_app.coding.settings import SettingsManager
    from pi_app.tui.host import CommandHost, SessionHost

T = TypeVar("T")

SUMMARY_CHOICES = ("No summary", "Summarize", "Summarize with custom prompt")


# -- plumbing -------------------------------------------------------------------------------------


@overload
async def request(app: SessionHost, fn: Callable[[AgentSession], Awaitable[T]]) -> T: ...
@overload
async def request(app: SessionHost, fn: Callable[[AgentSession], T]) -> T: ...
async def request(app: SessionHost, fn: Callable[[AgentSession], Any]) -> Any:
    """Run ``fn(session)`` on the agent loop and return its result here; exceptions propagate."""
    return await app.bridge.request(fn)


def refresh_chrome(app: CommandHost) -> None:
    """Footer and window title after the session, its name or its leaf changed."""
    app.refresh_footer()
    app.update_title()


def rebuild_after_move(app: CommandHost) -> None:
    """Show the session's new context: transcript from the new leaf, footer, title."""
    with app.batch_update():
        rebuild_transcript(app)
        refresh_chrome(app)


def start(app: SessionHost, flow: Coroutine[Any, Any, None]) -> None:
    """Run a command flow as a worker (errors become ``Error:`` lines, the app keeps running)."""

    async def guarded() -> None:
        try:
            await flow
        except Exception as exc:
            app.restore_editor()
            app.show_error(str(exc) or type(exc).__name__)

    app.run_worker(guarded(), group="navigation", exit_on_error=False)


def _ready(app: SessionHost) -> bool:
    if app.session is None:
        app.show_status("Still starting up…")
        return False
    return True


def _set_editor_text(app: SessionHost, text: str | None, *, only_if_empty: bool = False) -> None:
    editor = app.editor
    if text is None or (only_if_empty and editor.text.strip()):
        return
    editor.set_text(text)


def _page_size(app: CommandHost) -> int:
    return max(5, app.size.height // 2)


# -- /tree ----------------------------------------------------------------------------------------


def tree_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, tree_flow(app))


async def tree_flow(app: CommandHost, selected_id: str | None = None) -> None:
    """The whole ``/tree`` interaction, from the navigator to the rebuilt transcript."""
    while True:
        tree, leaf = await request(
            app, lambda s: (s.session_manager.get_tree(), s.session_manager.get_leaf_id())
        )
        if not tree:
            app.restore_editor()
            app.show_status("No entries in session")
            return
        settings = app.settings
        navigator = TreeNavigator(
            tree,
            leaf,
            page_size=_page_size(app),
            filter_mode=settings.get_tree_filter_mode() if settings is not None else "default",
            selected_id=selected_id,
            keys=app.keybindings,
        )
        answer = await ask(
            app, navigator, side_messages=(TreeNavigator.LabelChanged,), on_side=lambda m: _save_label(app, m)
        )
        if not isinstance(answer, TreeNavigator.Selected):
            app.restore_editor()
            return
        target = answer.entry_id
        if target == leaf:
            app.restore_editor()
            app.show_status("Already at this point")
            return
        choice = await _ask_summary(app, settings)
        if choice is None:
            selected_id = target  # Escape on the question: back to the tree, same entry
            continue
        summarize, instructions = choice
        if await _navigate(app, target, summarize, instructions):
            return
        selected_id = target  # the summary was aborted: back to the tree


def _save_label(app: SessionHost, message: TreeNavigator.LabelChanged) -> None:
    entry_id, label = message.entry_id, message.label
    app.bridge.call(lambda s: s.session_manager.append_label_change(entry_id, label))


async def _ask_summary(app: SessionHost, settings: SettingsManager | None) -> tuple[bool, str | None] | None:
    """(summarize, instructions), or None when the user backed out to the tree."""
    if settings is not None and settings.get_branch_summary_settings().skip_prompt:
        return False, None
    while True:
        answer = await ask(app, ChoiceSelector("Summarize branch?", SUMMARY_CHOICES, keys=app.keybindings))
        if not isinstance(answer, ChoiceSelector.Chosen) or answer.index is None:
            return None
        if answer.index < 2:
            return answer.index == 1, None
        prompt = await ask(app, TextPrompt("Custom summarization instructions"))
        if isinstance(prompt, TextPrompt.Submitted) and prompt.text is not None:
            return True, prompt.text.strip() or None
        # cancelled the instructions: ask again


async def _navigate(app: CommandHost, target: str, summarize: bool, instructions: str | None) -> bool:
    """Move the leaf; False when a running summary was aborted (the caller re-opens the tree)."""
    if summarize:
        hint = app.keybindings.hint("app.interrupt") or "escape"
        busy = BusyPanel(
            f"Summarizing branch... ({hint} to cancel)",
            lambda: app.bridge.call(lambda s: s.abort_branch_summary()),
            animate=app.animations,
        )
        app.show_in_editor_slot(busy)
    try:
        result = await request(
            app, lambda s: s.navigate_tree(target, summarize=summarize, custom_instructions=instructions)
        )
    except Exception as exc:
        app.restore_editor()
        app.show_error(str(exc) or type(exc).__name__)
        return True
    if result.aborted:
        app.show_status("Branch summarization cancelled")
        return False
    app.restore_editor()
    if result.cancelled:
        app.show_status("Navigation cancelled")
        return True
    rebuild_after_move(app)
    _set_editor_text(app, result.editor_text, only_if_empty=True)
    app.show_status("Navigated to selected point")
    summary = result.summary_entry
    if summary is not None:
        app.feed.show_summary_cost("Branch summary", summary.raw.get("usage"))
    await offer_file_restore(app, result.old_leaf_id, result.new_leaf_id)
    return True


# -- /fork and /clone -----------------------------------------------------------------------------


def fork_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, fork_flow(app))


async def fork_flow(app: CommandHost) -> None:
    found = await request(app, lambda s: s.get_user_messages_for_forking())
    if not found:
        app.show_status("No messages to fork from")
        return
    candidates = [ForkCandidate(entry_id, text) for entry_id, text in found]
    answer = await ask(app, ForkSelector(candidates, page_size=_page_size(app), keys=app.keybindings))
    app.restore_editor()
    if not isinstance(answer, ForkSelector.Selected):
        return

    def plan_for_fork(
        session: AgentSession,
    ) -> RestorePlan | None:  # the files at the fork point, known to this session
        entry = session.session_manager.get_entry(answer.entry_id)
        parent = entry.parent_id if entry is not None else None
        return session.plan_file_restore(session.session_manager.get_leaf_id(), parent)

    plan = await request(app, plan_for_fork)
    result = await request(app, lambda s: s.fork(answer.entry_id))
    if result.cancelled:
        return
    rebuild_after_move(app)
    _set_editor_text(app, result.selected_text or "")
    app.show_status("Branched to new session")
    if plan:
        await offer_file_restore(app, None, None, plan=plan)


def clone_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, clone_flow(app))


async def clone_flow(app: CommandHost) -> None:
    leaf = await request(app, lambda s: s.session_manager.get_leaf_id())
    if leaf is None:
        app.show_status("Nothing to clone")
        return
    result = await request(app, lambda s: s.clone())
    if result.cancelled:
        return
    rebuild_after_move(app)
    app.show_status("Cloned to new session")


# -- /resume --------------------------------------------------------------------------------------


def resume_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, resume_flow(app))


def session_picker(
    cwd: str,
    session_dir: str | None,
    current_path: str | None,
    rename: Renamer | None,
    **kwargs: Any,
) -> SessionPicker:
    """The picker over ``cwd``'s sessions (Tab: every project's); message text is searched through
    the session store's full-text index when it has one (SQLite)."""
    from pi_app.coding.session import SessionManager
    from pi_app.coding.session.listing import content_search

    kwargs.setdefault("content_search", content_search())
    return SessionPicker(
        lambda progress: SessionManager.list(
            cwd, session_dir or None, progress, on_info=getattr(progress, "row", None)
        ),
        lambda progress: SessionManager.list_all(progress, on_info=getattr(progress, "row", None)),
        current_path=current_path,
        rename=rename,
        **kwargs,
    )


def rename_in_file(path: str, name: str) -> None:
    """Name a session that is not open: append a ``session_info`` entry to its file."""
    from pi_app.coding.session import SessionManager

    SessionManager.open(path).append_session_info(name)


async def resume_flow(app: CommandHost) -> None:
    # from the snapshot, not a round trip to the agent loop: the picker is then mounted (and its
    # sessions read) in the frame that clears the editor (issue 20)
    shown = app.snapshot
    cwd, session_dir, current = shown.cwd, shown.session_dir, shown.session_file

    async def rename(path: str, name: str) -> None:
        if current is not None and os.path.abspath(path) == os.path.abspath(current):
            await request(app, lambda s: s.set_session_name(name))
            refresh_chrome(app)  # the footer shows the open session's name
        else:
            await asyncio.to_thread(rename_in_file, path, name)

    picker = session_picker(
        cwd, session_dir, current, rename, page_size=_page_size(app), keys=app.keybindings
    )
    answer = await ask(app, picker)
    app.restore_editor()
    if not isinstance(answer, SessionPicker.Selected):
        return
    path = answer.path
    result = await request(app, lambda s: s.switch_session(path))
    if not result.switched:
        return
    rebuild_after_move(app)
    for warning in result.warnings:
        app.show_warning(warning)
    app.show_status("Resumed session")


# -- /import --------------------------------------------------------------------------------------


def import_command(app: CommandHost, args: str) -> None:
    source = args.strip()
    if len(source) >= 2 and source[0] == source[-1] and source[0] in "\"'":
        source = source[1:-1]
    if not source:
        app.show_error("Usage: /import <path.jsonl>")
        return
    if _ready(app):
        start(app, import_flow(app, source))


async def import_flow(app: CommandHost, source: str) -> None:
    """Ask first (the open session is replaced), then copy the file in and resume it (1.6.0)."""
    path = os.path.join(app.cwd, os.path.expanduser(source))
    question = ChoiceSelector(
        "Import session", ("Yes", "No"), message=f"Replace current session with {path}?", keys=app.keybindings
    )
    answer = await ask(app, question)
    app.restore_editor()
    if not isinstance(answer, ChoiceSelector.Chosen) or answer.index != 0:
        return
    try:
        result = await request(app, lambda s: s.import_session(path))
    except Exception as exc:
        app.show_error(f"Failed to import session: {exc}")
        return
    if not result.switched:
        return
    rebuild_after_move(app)
    for warning in result.warnings:
        app.show_warning(warning)
    app.show_status(f"Session imported from: {path}")


# -- /new, /name, /session ------------------------------------------------------------------------


def new_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, new_flow(app))


async def new_flow(app: CommandHost) -> None:
    if not await request(app, lambda s: s.new_session()):
        return
    app.router.clear()
    rebuild_after_move(app)
    app.show_status("✓ New session started")


def name_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, name_flow(app, args.strip()))


async def name_flow(app: CommandHost, name: str) -> None:
    if not name:
        current = await request(app, lambda s: s.session_name)
        if current:
            app.show_status(f"Session name: {current}")
        else:
            app.show_warning("Usage: /name <name>")
        return
    await request(app, lambda s: s.set_session_name(name))
    refresh_chrome(app)
    app.show_status(f"Session name set: {name}")


def session_command(app: CommandHost, args: str) -> None:
    if _ready(app):
        start(app, session_info_flow(app))


def session_info_text(stats: SessionStats, name: str | None) -> str:
    """The ``/session`` report (R-CMD-08) as Markdown."""
    lines = ["**Session Info**", ""]
    if name:
        lines.append(f"Name: {name}  ")
    lines += [f"File: {stats.session_file or 'In-memory'}  ", f"ID: {stats.session_id}", ""]
    lines += [
        "**Messages**",
        "",
        f"User: {stats.user_messages}  ",
        f"Assistant: {stats.assistant_messages}  ",
        f"Tool Calls: {stats.tool_calls}  ",
        f"Tool Results: {stats.tool_results}  ",
        f"Total: {stats.total_messages}",
        "",
        "**Tokens**",
        "",
        f"Input: {stats.tokens.input:,}  ",
        f"Output: {stats.tokens.output:,}  ",
    ]
    if stats.tokens.cache_read > 0:
        lines.append(f"Cache Read: {stats.tokens.cache_read:,}  ")
    if stats.tokens.cache_write > 0:
        lines.append(f"Cache Write: {stats.tokens.cache_write:,}  ")
    lines.append(f"Total: {stats.tokens.total:,}")
    if stats.cost > 0:
        lines += ["", "**Cost**", "", f"Total: {stats.cost:.4f}"]
    return "\n".join(lines)


async def session_info_flow(app: CommandHost) -> None:
    from pi_app.coding.session_stats import compute_session_stats
    from pi_app.tui.transcript.blocks.info import InfoBlock

    stats, name = await request(app, lambda s: (compute_session_stats(s), s.session_name))
    app.transcript.append_block(InfoBlock(session_info_text(stats, name)))


# -- registration ---------------------------------------------------------------------------------


def register(registry: CommandRegistry) -> None:
    registry.add(SlashCommand("name", "Set session display name", name_command, argument_hint="<name>"))
    registry.add(SlashCommand("session", "Show session info and stats", session_command))
    registry.add(SlashCommand("fork", "Create a new fork from a previous message", fork_command))
    registry.add(
        SlashCommand("clone", "Duplicate the current session at the current position", clone_command)
    )
    registry.add(SlashCommand("tree", "Navigate session tree (switch branches)", tree_command))
    registry.add(SlashCommand("new", "Start a new session", new_command))
    registry.add(SlashCommand("resume", "Resume a different session", resume_command))
    registry.add(
        SlashCommand(
            "import",
            "Import a JSONL session, keeping its id and recorded working directory",
            import_command,
            argument_hint="<path.jsonl>",
        )
    )
