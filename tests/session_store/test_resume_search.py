"""``/resume`` over the SQLite store: the picker lists from the summaries and finds sessions by
message text through the FTS5 index, without reading any session's messages (issue 25)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_app.coding.session import SessionManager
from pi_app.coding.session.sqlite_store import SqliteSessionStorage, StoredSessionInfo
from pi_app.coding.session.storage import set_default_session_storage
from pi_app.tui.selectors.navigation import session_picker
from pi_app.tui.selectors.session_model import SessionPickerModel
from tests.session.helpers import assistant, user
from tests.tui_nav.app_helpers import wait_for
from tests.tui_nav.test_selector_widgets import Host

PROJECT = "/home/user/project"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteSessionStorage]:
    storage = SqliteSessionStorage(tmp_path / "s.sqlite")
    set_default_session_storage(storage)
    yield storage
    set_default_session_storage(None)
    storage.close()


def _session(session_dir: Path, first: str, reply: str, name: str | None = None) -> str:
    sm = SessionManager.create(PROJECT, session_dir)
    sm.append_message(user(first))
    sm.append_message(assistant(reply))
    if name:
        sm.append_session_info(name)
    return str(sm.get_session_file())


def test_search_finds_words_in_replies_and_never_loads_message_text(
    store: SqliteSessionStorage, tmp_path: Path
) -> None:
    flux = _session(tmp_path, "plan the trip", "the flux capacitor must be charged")
    other = _session(tmp_path, "write tests", "done", name="capacity planning")
    infos = SessionManager.list(PROJECT, tmp_path)
    assert all(isinstance(i, StoredSessionInfo) for i in infos)
    from pi_app.coding.session.listing import content_search

    model = SessionPickerModel(infos, content_search=content_search())
    model.set_query("capac")
    assert [r.info.path for r in model.rows] == [other, flux]  # the name match first, then the index
    model.set_query('"flux capacitor"')
    assert [r.info.path for r in model.rows] == [flux]
    model.set_query("nowhere-to-be-found")
    assert model.rows == []
    assert all(i._text is None for i in infos)  # message text never read for the search


async def test_resume_picker_searches_the_index(store: SqliteSessionStorage, tmp_path: Path) -> None:
    first = _session(tmp_path, "alpha question", "we talk about penguins")
    second = _session(tmp_path, "beta question", "and about giraffes")
    picker = session_picker(PROJECT, str(tmp_path), first, None)
    host = Host(picker)
    async with host.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: len(picker.model.rows) == 2)
        await pilot.press(*"giraf")
        assert [r.info.path for r in picker.model.rows] == [second]
        assert "beta question" in " ".join(picker.view.lines())
        await pilot.press("enter")
        await pilot.pause()
        assert host.posted[-1].path == second  # type: ignore[attr-defined]
