"""Snapshots of the session-navigation selectors in the running app (issue 10, acceptance 2).

The session behind them has three branches off "hi there", a label and a branch summary; see
``tests.tui_nav.helpers.showcase_session``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pi_app.coding.session import SessionManager
from pi_app.tui.selectors.fork import ForkSelector
from pi_app.tui.selectors.navigation import session_picker
from pi_app.tui.selectors.slot import SlotHost
from pi_app.tui.selectors.tree import TreeNavigator
from tests.session.helpers import assistant, user
from tests.tui_nav.app_helpers import CWD, make_app, selector, submit, wait_for
from tests.tui_nav.helpers import showcase_session

BASE_MS = 1_700_000_000_000


async def _ready(app, pilot) -> None:
    await wait_for(pilot, lambda: app.session is not None)
    await pilot.pause(0.1)


async def _open(app, pilot, command: str, kind: type) -> None:
    """Start the app's session, run ``command`` and wait for the selector ``kind``."""
    await _ready(app, pilot)
    await submit(app, pilot, command)
    await wait_for(pilot, lambda: selector(app, kind) is not None)


def test_nav_tree_navigator(snap_compare) -> None:
    """/tree at 100x36: the active branch ("plan the refactor", with its bash call, the branch
    summary and the follow-up) listed first with • markers, the leaf marked "← active" and
    selected, the two other branches below with ⊟ connectors, and the "[start]" label on the
    first message. Header: title, key help, empty search line; "(8/12)" under the rows."""
    app, _ = make_app(None, manager=showcase_session().sm)

    async def run_before(pilot) -> None:
        await _open(app, pilot, "/tree", TreeNavigator)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 36), run_before=run_before)


def test_nav_tree_filtered_to_user_messages_with_search(snap_compare) -> None:
    """/tree, then ctrl+u (user messages only) and the search "the": the two user messages that
    contain it, "[user]" in the position line and the query after "Type to search:"."""
    app, _ = make_app(None, manager=showcase_session().sm)

    async def run_before(pilot) -> None:
        await _open(app, pilot, "/tree", TreeNavigator)
        await pilot.press("ctrl+u", "t", "h", "e")
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_nav_fork_selector(snap_compare) -> None:
    """/fork at 80x24: "Fork from Message" over the five user messages of every branch in file
    order, numbered #1…#5 at the right, the newest ("explain it simply") selected."""
    app, _ = make_app(None, manager=showcase_session().sm)

    async def run_before(pilot) -> None:
        await _open(app, pilot, "/fork", ForkSelector)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def _session(directory: Path, first: str, minutes: int, *, name: str | None = None) -> SessionManager:
    """A small saved session whose newest message is ``minutes`` after the base time."""
    sm = SessionManager.create(CWD, directory)
    ts = BASE_MS + minutes * 60_000
    sm.append_message(user(first, ts=ts))
    sm.append_message(assistant(f"about {first}", ts=ts + 1))
    if name:
        sm.append_session_info(name)
    return sm


def test_nav_session_picker(snap_compare, tmp_path: Path) -> None:
    """The /resume picker at 100x30 over four sessions of this folder, threaded: the named one
    ("Refactor work", warning colour) first, with its clone below it on a └─ connector because the
    clone holds the newest activity; then the two plain ones, newest first. Message counts and
    ages ("2h", "1d", …) at the right; scope, name filter and sort in the header."""
    sessions = tmp_path / "sessions"
    named = _session(sessions, "refactor the parser", 60, name="Refactor work")
    named.create_branched_session(named.get_leaf_id())  # a clone: threaded below its parent
    named.append_message(user("and the lexer", ts=BASE_MS + 120 * 60_000))
    named.append_message(assistant("lexer done", ts=BASE_MS + 120 * 60_000 + 1))
    _session(sessions, "fix the flaky test", 30)
    _session(sessions, "write the release notes", -24 * 60)
    app, _ = make_app(None, manager=showcase_session().sm)
    now = datetime.fromtimestamp(BASE_MS / 1000 + 4 * 3600, tz=UTC)

    async def run_before(pilot) -> None:
        await _ready(app, pilot)
        picker = session_picker(CWD, str(sessions), None, None, page_size=10, clock=lambda: now)
        app.show_in_editor_slot(SlotHost(picker))
        await wait_for(pilot, lambda: len(picker.model.rows) == 4)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_nav_tree_navigator_under_a_custom_theme(snap_compare) -> None:
    """/tree at 100x30 under the user theme "sunset" (issue 17, defect 5): orange accent (bullets,
    "user:" labels, the "← active" marker), yellow-green "assistant:" labels, a plum background
    on the selected row, magenta rules and pinkish-grey help lines; none of the built-in dark
    palette's teal or blue."""
    import json
    import os

    theme = json.loads((Path(__file__).parents[1] / "themes" / "dark.json").read_text())
    theme["name"] = "sunset"
    theme["vars"]["accent"] = "#ff8700"
    theme["colors"].update(
        {"border": "#d75fd7", "borderAccent": "#ff5f87", "borderMuted": "#875f87", "selectedBg": "#5f005f"}
    )
    theme["colors"].update({"muted": "#af8787", "dim": "#875f5f", "success": "#afd700", "warning": "#ffd75f"})
    themes = Path(os.environ["PI_CODING_AGENT_DIR"]) / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "sunset.json").write_text(json.dumps(theme))
    app, _ = make_app(None, manager=showcase_session().sm)

    async def run_before(pilot) -> None:
        await _ready(app, pilot)
        assert app.theme_controller.switch("sunset", persist=False) is None
        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
