"""``SqliteSessionStorage``: the session storage protocol over one SQLite database (issue 25).

For people with thousands of sessions; JSONL stays the default and the format shared with pi. The
manager and the listing keep working with session *paths*: a session here is a row keyed by the
path its JSONL file would have (``<sessions>/<project>/<time>_<id>.jsonl``), holding the same text
record by record, so ``pi sessions export`` gives back the file byte for byte.

- Standard library ``sqlite3``; WAL journal, a busy timeout, and every write in a
  ``BEGIN IMMEDIATE`` transaction, so there is one writer at a time and an entry is either wholly
  in the database or not at all: a SIGKILL mid-write loses at most the entry being written.
- The schema is migrated on open (``sqlite_schema.MIGRATIONS``); a database from a newer pi, or a
  file that is not a database, raises ``SessionStoreError`` with a one-line message and the file
  is left exactly as it was (never recreated or overwritten).
- Listing reads the trigger-kept summaries (``session_infos``) instead of every line, and
  ``search`` runs an FTS5 query over user and assistant message text.

One connection per storage object, shared by threads under a lock (the agent writes from its
worker thread while the picker lists from another).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pi_app.coding.session.listing import SessionInfo
from pi_app.coding.session.sqlite_schema import MIGRATIONS, SCHEMA_VERSION
from pi_app.coding.session.storage import ENCODING, ERRORS, SessionStoreError, SessionWriteError

BUSY_TIMEOUT_MS = 5000
DATABASE_NAME = "sessions.sqlite"

Record = tuple[str | bytes, int]


def _records(text: str) -> list[Record]:
    """``text`` cut at newlines: (piece, 1) for each line ended by a newline, then (rest, 0) if any."""
    pieces = text.split("\n")
    out: list[Record] = [(_encode(p), 1) for p in pieces[:-1]]
    if pieces[-1]:
        out.append((_encode(pieces[-1]), 0))
    return out


def _encode(piece: str) -> str | bytes:
    """TEXT when SQLite can hold it as such, else the raw bytes (torn UTF-8, NUL)."""
    if "\x00" in piece:
        return piece.encode(ENCODING, ERRORS)
    try:
        piece.encode(ENCODING)
    except UnicodeEncodeError:
        return piece.encode(ENCODING, ERRORS)
    return piece


def _decode(body: str | bytes) -> str:
    return body if isinstance(body, str) else body.decode(ENCODING, ERRORS)


def _dt(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


class StoredSessionInfo(SessionInfo):
    """A ``SessionInfo`` from the summaries; its message text is read only when asked for."""

    _store: SqliteSessionStorage
    _text: str | None

    @property
    def all_messages_text(self) -> str:
        if self._text is None:
            self._text = self._store.message_text(self.path)
        return self._text

    @all_messages_text.setter
    def all_messages_text(self, value: str) -> None:
        self._text = value or None


@dataclass(frozen=True)
class SearchHit:
    """A session whose messages match a full-text query, best match first."""

    path: str
    rank: float
    snippet: str


def fts_query(text: str) -> str | None:
    """The FTS5 query for what the user typed: words as prefixes, ``"quoted phrases"`` as phrases,
    all required. None when nothing searchable is left."""
    parts: list[str] = []
    if text.count('"') % 2:
        text = text.replace('"', " ")
    for i, chunk in enumerate(text.split('"')):
        if i % 2:
            words = re.findall(r"\w+", chunk)
            if words:
                parts.append('"' + " ".join(words) + '"')
        else:
            parts.extend(f'"{word}"*' for word in re.findall(r"\w+", chunk))
    return " AND ".join(parts) or None


class SqliteSessionStorage:
    """Sessions in one SQLite file (created with its folder on first use)."""

    def __init__(self, database: str | Path) -> None:
        self.database = str(database)
        self._lock = threading.RLock()
        self._conn = self._connect()

    # -- connection -----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        existed = os.path.exists(self.database)
        if not existed:
            Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                self.database, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise SessionStoreError(f"Cannot open session database {self.database}: {exc}") from None
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise SessionStoreError(
                    f"Session database {self.database} has schema version {version}, newer than this "
                    f"pi knows ({SCHEMA_VERSION}); it was left untouched"
                )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            migrate(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SessionStoreError(
                f"Session database {self.database} is unreadable ({reason}); it was left untouched"
            ) from None
        except SessionStoreError:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes as one transaction (an import): each write inside is a savepoint, and
        the whole batch commits at the end, or none of it if an exception leaves the block."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write: its own ``BEGIN IMMEDIATE`` transaction, or a savepoint inside a batch."""
        nested = self._conn.in_transaction
        self._conn.execute("SAVEPOINT write" if nested else "BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK TO write" if nested else "ROLLBACK")
            if nested:
                self._conn.execute("RELEASE write")
            raise
        self._conn.execute("RELEASE write" if nested else "COMMIT")

    def _write(self, path: str, work: list[tuple[str, tuple[object, ...]]]) -> None:
        """Run the statements of ``work`` as one transaction, or none of them."""
        with self._lock:
            try:
                with self._transaction():
                    for sql, params in work:
                        self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise SessionWriteError(path, str(exc)) from exc

    def _session_id(self, path: str) -> int | None:
        row = self._conn.execute("SELECT id FROM sessions WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    # -- the SessionStorage protocol ------------------------------------------------------------

    def exists(self, path: str) -> bool:
        with self._lock:
            return self._session_id(path) is not None

    def load(self, path: str) -> str | None:
        with self._lock:
            sid = self._session_id(path)
            if sid is None:
                return None
            rows = self._conn.execute(
                "SELECT body, nl FROM records WHERE session = ? ORDER BY seq", (sid,)
            ).fetchall()
        return "".join(_decode(body) + ("\n" if nl else "") for body, nl in rows)

    def append(self, path: str, text: str) -> None:
        self._append_records(path, _records(text))

    def _append_records(self, path: str, records: list[Record], replace: bool = False) -> None:
        now = time.time()
        with self._lock:
            try:
                with self._transaction():
                    sid = self._session_id(path)
                    if sid is None:
                        cur = self._conn.execute(
                            "INSERT INTO sessions(path, dir, mtime) VALUES (?, ?, ?)",
                            (path, os.path.dirname(path), now),
                        )
                        sid = cur.lastrowid
                        start = 0
                    else:
                        if replace:
                            self._conn.execute("DELETE FROM records WHERE session = ?", (sid,))
                        self._conn.execute("UPDATE sessions SET mtime = ? WHERE id = ?", (now, sid))
                        row = self._conn.execute(
                            "SELECT coalesce(max(seq) + 1, 0) FROM records WHERE session = ?", (sid,)
                        ).fetchone()
                        start = row[0]
                    self._conn.executemany(
                        "INSERT INTO records(session, seq, body, nl) VALUES (?, ?, ?, ?)",
                        [(sid, start + i, body, nl) for i, (body, nl) in enumerate(records)],
                    )
            except sqlite3.Error as exc:
                raise SessionWriteError(path, str(exc)) from exc

    def rewrite(self, path: str, text: str) -> None:
        self._append_records(path, _records(text), replace=True)

    def rename(self, path: str, new_path: str) -> None:
        self._write(
            path,
            [
                ("DELETE FROM sessions WHERE path = ?", (new_path,)),
                (
                    "UPDATE sessions SET path = ?, dir = ? WHERE path = ?",
                    (new_path, os.path.dirname(new_path), path),
                ),
            ],
        )

    def copy(self, path: str, new_path: str) -> None:
        text = self.load(path)
        if text is None:
            raise FileNotFoundError(path)
        self.rewrite(new_path, text)

    def list_files(self, directory: str, suffix: str = ".jsonl") -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT path FROM sessions WHERE dir = ? ORDER BY path", (directory.rstrip("/") or "/",)
            ).fetchall()
        return [p for (p,) in rows if p.endswith(suffix)]

    def mtime(self, path: str) -> float:
        with self._lock:
            row = self._conn.execute("SELECT mtime FROM sessions WHERE path = ?", (path,)).fetchone()
        return float(row[0]) if row else 0.0

    def iter_lines(self, path: str) -> Iterator[str]:
        with self._lock:
            sid = self._session_id(path)
            rows = (
                []
                if sid is None
                else self._conn.execute(
                    "SELECT body, nl FROM records WHERE session = ? ORDER BY seq", (sid,)
                ).fetchall()
            )
        pending = ""
        for body, nl in rows:
            pending += _decode(body)
            if nl:
                yield pending
                pending = ""
        if pending:
            yield pending

    # -- beyond the protocol: deleting, listing from summaries, searching ----------------------

    def delete(self, path: str) -> None:
        self._write(path, [("DELETE FROM sessions WHERE path = ?", (path,))])

    def touch(self, path: str, when: float | None = None) -> None:
        """Set the modification time of ``path`` (now by default), as ``os.utime`` does for a file."""
        self._write(
            path,
            [("UPDATE sessions SET mtime = ? WHERE path = ?", (time.time() if when is None else when, path))],
        )

    def directories(self) -> list[str]:
        with self._lock:
            return [d for (d,) in self._conn.execute("SELECT DISTINCT dir FROM sessions ORDER BY dir")]

    def session_infos(self, directory: str | None = None) -> list[SessionInfo]:
        """The listing of ``directory`` (every folder when None), newest activity first."""
        sql = (
            "SELECT s.path, s.mtime, m.header_id, m.cwd, m.name, m.parent_session, m.created_ms,"
            " m.modified_ms, m.message_count, m.first_message FROM sessions s"
            " JOIN summaries m ON m.session = s.id WHERE m.header_id IS NOT NULL"
        )
        params: tuple[str, ...] = ()
        if directory is not None:
            sql += " AND s.dir = ?"
            params = (directory.rstrip("/") or "/",)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        infos: list[SessionInfo] = []
        make = object.__new__  # 10,000 rows: skip the dataclass __init__, fill the fields directly
        from_ms = _dt
        for path, mtime, sid, cwd, name, parent, created_ms, modified_ms, count, first in rows:
            if not path.endswith(".jsonl"):
                continue
            info = make(StoredSessionInfo)
            info.__dict__.update(
                path=path,
                id=sid,
                cwd=cwd or "",
                name=name,
                parent_session_path=parent,
                created=from_ms(created_ms or mtime * 1000),
                modified=from_ms(modified_ms or created_ms or int(mtime * 1000)),
                message_count=count,
                first_message=first or "(no messages)",
                _store=self,
                _text=None,
            )
            infos.append(info)
        infos.sort(key=lambda s: s.modified, reverse=True)
        return infos

    def message_text(self, path: str) -> str:
        """Every user/assistant message text of ``path``, space-joined in file order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT f.body FROM records r JOIN sessions s ON s.id = r.session"
                " JOIN message_fts f ON f.rowid = r.id WHERE s.path = ? ORDER BY r.seq",
                (path,),
            ).fetchall()
        return " ".join(body for (body,) in rows)

    def search(self, text: str, limit: int = 1000, snippets: bool = False) -> list[SearchHit]:
        """Sessions whose message text matches ``text`` (see ``fts_query``), best first; with
        ``snippets`` each hit carries the best-matching passage (the CLI; the picker needs none)."""
        query = fts_query(text)
        if query is None:
            return []
        sql = (
            "SELECT s.path, f.rank, f.rowid FROM message_fts f JOIN records r ON r.id = f.rowid"
            " JOIN sessions s ON s.id = r.session WHERE message_fts MATCH ? ORDER BY f.rank"
        )
        best: dict[str, tuple[float, int]] = {}
        with self._lock:
            try:
                for path, rank, rowid in self._conn.execute(sql, (query,)):
                    if path not in best:  # rows come best first: a session's first row is its best
                        best[path] = (rank, rowid)
                        if len(best) >= limit:
                            break
                hits = []
                for path, (rank, rowid) in best.items():
                    snippet = ""
                    if snippets:
                        row = self._conn.execute(
                            "SELECT snippet(message_fts, 0, '', '', '…', 10) FROM message_fts"
                            " WHERE message_fts MATCH ? AND rowid = ?",
                            (query, rowid),
                        ).fetchone()
                        snippet = row[0] if row else ""
                    hits.append(SearchHit(path, rank, snippet))
            except sqlite3.OperationalError:
                return []
        return hits

    def summary(self, path: str) -> dict[str, object] | None:
        """The stored summary of ``path`` (counts, tokens, cost, first/last message…), or None."""
        with self._lock:
            cur = self._conn.execute(
                "SELECT m.* FROM summaries m JOIN sessions s ON s.id = m.session WHERE s.path = ?", (path,)
            )
            row = cur.fetchone()
            names = [d[0] for d in cur.description]
        return dict(zip(names, row, strict=True)) if row else None


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply the migrations after the database's version, each in its own transaction."""
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    while version < target:
        script = MIGRATIONS[version]
        version += 1
        try:
            conn.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {version};\nCOMMIT;")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return version


def default_database_path() -> Path:
    from pi_app.coding import paths

    return paths.agent_dir() / DATABASE_NAME
