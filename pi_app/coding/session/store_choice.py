"""Which session storage a run uses when none is passed in (issue 25).

``PI_SESSION_STORE`` (``jsonl`` or ``sqlite``) wins over the global ``sessionStore`` setting;
``PI_SESSION_DATABASE`` / ``sessionDatabase`` say where the SQLite file is (default
``<agentDir>/sessions.sqlite``). JSONL stays the default. The SQLite module is imported only
when chosen.
"""

from __future__ import annotations

import os

from pi_app.coding.session.storage import JsonlSessionStorage, SessionStorage

ENV_STORE = "PI_SESSION_STORE"
ENV_DATABASE = "PI_SESSION_DATABASE"


def open_storage(kind: str, database: str | None = None) -> SessionStorage:
    """``jsonl`` or ``sqlite`` (at ``database`` or the default path); ``SessionStoreError`` (one
    line) when the database cannot be used, ``ValueError`` for an unknown kind."""
    if kind == "jsonl":
        return JsonlSessionStorage()
    if kind == "sqlite":
        from pi_app.coding.session.sqlite_store import SqliteSessionStorage, default_database_path

        return SqliteSessionStorage(database or default_database_path())
    raise ValueError(f"Unknown session store {kind!r} (use jsonl or sqlite)")


def configured_kind_and_database() -> tuple[str, str | None]:
    """The store kind and database path this run is configured for."""
    env = os.environ.get(ENV_STORE, "").strip().lower()
    database = os.environ.get(ENV_DATABASE, "").strip() or None
    if env in ("jsonl", "sqlite"):
        return env, database
    from pi_app.coding import paths
    from pi_app.coding.settings import SettingsManager

    settings = SettingsManager(paths.settings_path(), None)  # the setting is global only
    return settings.get_session_store(), database or settings.get_session_database()


def configured_storage() -> SessionStorage:
    kind, database = configured_kind_and_database()
    return open_storage(kind, database)
