"""Every session test runs twice: on JSONL files and on the SQLite store (issue 25's conformance
suite). ``session_store`` is the default storage of the test (and of any ``pi`` it starts); a test
reaches session files through ``helpers.stored`` / ``stored_files`` / ``copy_in``, never ``open``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pi_app.coding.session.storage import SessionStorage, set_default_session_storage
from pi_app.coding.session.store_choice import open_storage


@pytest.fixture(params=["jsonl", "sqlite"], autouse=True)
def session_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SessionStorage]:
    database = tmp_path_factory.mktemp("db") / "sessions.sqlite"
    monkeypatch.setenv("PI_SESSION_STORE", request.param)  # for the pi subprocesses a test starts
    monkeypatch.setenv("PI_SESSION_DATABASE", str(database))
    storage = open_storage(request.param, str(database))
    set_default_session_storage(storage)
    yield storage
    set_default_session_storage(None)
    close = getattr(storage, "close", None)
    if close is not None:
        close()
