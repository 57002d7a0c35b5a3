"""``pi sessions import|export|search``: JSONL files ⇄ the SQLite session store (issue 25).

- ``pi sessions import [PATH…] [--database DB] [--replace]``: every ``*.jsonl`` below the given
  files/folders (default: the sessions folder, ``<agentDir>/sessions``) into the database.
- ``pi sessions export [--to DIR] [--database DB] [--replace]``: every stored session back to its
  JSONL path, or below ``DIR`` keeping the path relative to the sessions folder.
- ``pi sessions search QUERY…``: sessions whose messages match (FTS5), best first.

The database is ``--database``, else ``PI_SESSION_DATABASE`` / the ``sessionDatabase`` setting,
else ``<agentDir>/sessions.sqlite``. Importing does not switch pi to the store: set
``"sessionStore": "sqlite"`` in the global settings for that. Errors are one line, status 1;
sessions with other content at the target are left alone (status 1) unless ``--replace``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

USAGE = """Usage:
  pi sessions import [PATH...] [--database DB] [--replace]
  pi sessions export [--to DIR] [--database DB] [--replace]
  pi sessions search QUERY... [--database DB]
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pi sessions", add_help=False)
    parser.add_argument("action", choices=("import", "export", "search"))
    parser.add_argument("rest", nargs="*")
    parser.add_argument("--database")
    parser.add_argument("--to")
    parser.add_argument("--replace", action="store_true")
    return parser


def _database(explicit: str | None) -> str:
    if explicit:
        return explicit
    from pi_app.coding.session.sqlite_store import default_database_path
    from pi_app.coding.session.store_choice import configured_kind_and_database

    _, configured = configured_kind_and_database()
    return configured or str(default_database_path())


def run_session_command(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``argv[0]`` is ``sessions``; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    args_list = list(argv[1:])
    if not args_list or args_list[0] in ("-h", "--help", "help"):
        out.write(USAGE)
        return 0 if args_list else 2
    try:
        args = _parser().parse_args(args_list)
    except ValueError as exc:
        err.write(f"pi sessions: {exc}\n{USAGE}")
        return 2
    from pi_app.coding import paths
    from pi_app.coding.session.sqlite_store import SqliteSessionStorage
    from pi_app.coding.session.storage import SessionStoreError
    from pi_app.coding.session.transfer import export_jsonl, import_jsonl

    try:
        store = SqliteSessionStorage(_database(args.database))
    except SessionStoreError as exc:
        err.write(f"{exc}\n")
        return 1
    try:
        if args.action == "search":
            query = " ".join(args.rest)
            if not query.strip():
                err.write("pi sessions search: nothing to search for\n")
                return 2
            for hit in store.search(query, limit=50, snippets=True):
                out.write(f"{hit.path}\t{hit.snippet}\n")
            return 0
        if args.action == "import":
            sources = args.rest or [str(paths.sessions_root())]
            report = import_jsonl(store, sources, replace=args.replace)
            out.write(report.summary("Imported") + f" into {store.database}\n")
        else:
            if args.rest:
                err.write(f"pi sessions export: unexpected argument {args.rest[0]!r} (use --to DIR)\n")
                return 2
            report = export_jsonl(store, args.to, paths.sessions_root(), replace=args.replace)
            out.write(report.summary("Exported") + "\n")
        for path in report.conflicts:
            err.write(f"left alone (different content): {path}\n")
        for path, reason in report.failed:
            err.write(f"failed: {path}: {reason}\n")
        return 1 if report.conflicts or report.failed else 0
    finally:
        store.close()
