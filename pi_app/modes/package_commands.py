"""``pi install|remove|uninstall|list|update|config`` (spec 40 R-PKG-05..08, D-47).

``run_package_command(argv)`` is called by ``pi_app.cli`` with the full argument list (``argv[0]`` is
the subcommand) and returns the exit status. Every error is one line on stderr and status 1. It is
L4 (it prints and reads the terminal); the package logic it drives is ``pi_app.coding.resources.packages``.

- ``pi install <source> [-l]``: fetch (git clone; npm for TypeScript pi Markdown packages) and
  append the source to the ``packages`` array of global settings (project with ``-l``); an entry
  with the same identity is never duplicated. Local sources are stored relative to the settings
  file's base directory when they are inside it.
- ``pi remove|uninstall <source> [-l]``: drop the entry with that identity and delete the installed
  copy (local sources are only removed from settings).
- ``pi list``: packages of both scopes with their install paths.
- ``pi update [source]``: fetch-and-reset every unpinned git package (reinstall npm ones); pinned
  sources are skipped; offline mode (``--offline`` / ``PI_OFFLINE``) makes it a no-op.
  ``pi update --models`` refreshes dynamic model catalogues (there are none to refresh yet).
- ``pi config [-l]``: list every resource with ``[x]``/``[ ]``; on a terminal, type a number to
  toggle it. ``pi config enable|disable <path> [-l]`` does the same non-interactively. Toggles are
  stored as ``+path`` / ``-path`` entries in the scope's settings arrays (R-PKG-08).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pi_app.coding import paths
from pi_app.coding.resources.packages import (
    PackageError,
    PackageSource,
    Scope,
    git_update,
    install_dir,
    install_package,
    is_offline,
    parse_package_entry,
    parse_source,
    remove_installed,
)

COMMANDS = ("install", "remove", "uninstall", "list", "update", "config")


class CommandError(Exception):
    """One line for stderr."""


def _settings(cwd: Path, agent_dir: Path) -> Any:
    from pi_app.coding.settings import SettingsManager

    return SettingsManager.create(cwd, agent_dir)


def _scope_data(settings: Any, scope: str) -> dict[str, Any]:
    return dict(settings.get_project_settings() if scope == "project" else settings.get_global_settings())


def _base_dir(scope: str, cwd: Path, agent_dir: Path) -> Path:
    return paths.project_config_dir(cwd) if scope == "project" else agent_dir


def _stored_form(source: PackageSource, raw: str, base: Path) -> str:
    """Local sources relative to the settings base dir when inside it; others as given."""
    if source.kind != "local" or source.path is None:
        return raw.strip()
    try:
        rel = os.path.relpath(source.path, base)
    except ValueError:
        return source.path
    if rel.startswith(".."):
        return source.path
    return "./" + rel.replace(os.sep, "/")


def _entry_identity(raw: Any, base: Path) -> str | None:
    entry = parse_package_entry(raw, base, "user")
    return entry.source.identity if entry is not None else None


def _progress(out: TextIO) -> Any:
    def report(event: dict[str, Any]) -> None:
        if event["type"] == "start":
            out.write(f"{event['action'].capitalize()}ing {event['source']}...\n")
        elif event["type"] == "error":
            out.write(f"Failed: {event.get('message', '')}\n")

    return report


def cmd_install(args: argparse.Namespace, cwd: Path, agent_dir: Path, out: TextIO) -> int:
    scope: Scope = "project" if args.local else "user"
    settings_scope = "project" if args.local else "global"
    cli_source = parse_source(args.source, cwd)
    if cli_source.kind == "local" and not Path(cli_source.path or "").exists():
        raise CommandError(f"Path does not exist: {args.source}")
    base = _base_dir(settings_scope, cwd, agent_dir)
    settings = _settings(cwd, agent_dir)
    packages = list(_scope_data(settings, settings_scope).get("packages") or [])
    if any(_entry_identity(p, base) == cli_source.identity for p in packages):
        out.write(f"{args.source} is already installed\n")
        return 0
    try:
        install_package(cli_source, scope, cwd, agent_dir, _progress(out))
    except PackageError as exc:
        raise CommandError(str(exc)) from exc
    packages.append(_stored_form(cli_source, args.source, base))
    settings.set("packages", packages, settings_scope)
    out.write(f"Installed {args.source} ({'project' if args.local else 'global'})\n")
    return 0


def cmd_remove(args: argparse.Namespace, cwd: Path, agent_dir: Path, out: TextIO) -> int:
    settings_scope = "project" if args.local else "global"
    scope: Scope = "project" if args.local else "user"
    base = _base_dir(settings_scope, cwd, agent_dir)
    target = parse_source(args.source, cwd)
    settings = _settings(cwd, agent_dir)
    packages = list(_scope_data(settings, settings_scope).get("packages") or [])
    kept = [p for p in packages if _entry_identity(p, base) != target.identity]
    if len(kept) == len(packages):
        raise CommandError(f"Not installed: {args.source}")
    removed = next(p for p in packages if _entry_identity(p, base) == target.identity)
    entry = parse_package_entry(removed, base, scope)
    settings.set("packages", kept, settings_scope)
    if entry is not None:
        try:
            remove_installed(entry.source, scope, cwd, agent_dir)
        except PackageError as exc:
            raise CommandError(str(exc)) from exc
    out.write(f"Removed {args.source}\n")
    return 0


def _all_entries(cwd: Path, agent_dir: Path) -> list[tuple[str, Any, Path]]:
    settings = _settings(cwd, agent_dir)
    out: list[tuple[str, Any, Path]] = []
    scopes: tuple[tuple[str, Scope], ...] = (("project", "project"), ("global", "user"))
    for settings_scope, scope in scopes:
        base = _base_dir(settings_scope, cwd, agent_dir)
        for raw in _scope_data(settings, settings_scope).get("packages") or []:
            entry = parse_package_entry(raw, base, scope)
            if entry is not None:
                out.append((settings_scope, entry, base))
    return out


def cmd_list(args: argparse.Namespace, cwd: Path, agent_dir: Path, out: TextIO) -> int:
    entries = _all_entries(cwd, agent_dir)
    if not entries:
        out.write("No packages installed.\n")
        return 0
    for settings_scope in ("project", "global"):
        mine = [e for s, e, _ in entries if s == settings_scope]
        if not mine:
            continue
        out.write(f"{settings_scope.capitalize()} packages:\n")
        for entry in mine:
            where = install_dir(entry.source, entry.scope, cwd, agent_dir)
            state = "" if where is not None and Path(where).exists() else " (not installed)"
            out.write(f"  {entry.source.raw}  ->  {where}{state}\n")
    return 0


def cmd_update(args: argparse.Namespace, cwd: Path, agent_dir: Path, out: TextIO) -> int:
    if args.models:
        out.write("No dynamic model catalogues to refresh.\n")
        return 0
    if is_offline(args.offline):
        out.write("Offline: nothing updated.\n")
        return 0
    wanted = parse_source(args.source, cwd).identity if args.source else None
    updated = 0
    for _scope, entry, _base in _all_entries(cwd, agent_dir):
        source = entry.source
        if wanted is not None and source.identity != wanted:
            continue
        if source.kind == "local":
            continue
        if source.pinned:
            out.write(f"Skipping pinned {source.raw}\n")
            continue
        where = install_dir(source, entry.scope, cwd, agent_dir)
        try:
            if source.kind == "git" and where is not None and where.exists():
                out.write(f"Updating {source.raw}...\n")
                git_update(where)
            else:
                install_package(source, entry.scope, cwd, agent_dir, _progress(out))
        except PackageError as exc:
            out.write(f"Failed to update {source.raw}: {exc}\n")
            continue
        updated += 1
    if wanted is not None and updated == 0:
        raise CommandError(f"Not installed (or pinned): {args.source}")
    out.write(f"Updated {updated} package(s).\n")
    return 0


# ---------------------------------------------------------------------------------------------
# pi config
# ---------------------------------------------------------------------------------------------

SETTINGS_KEYS = {"extensions": "extensions", "skills": "skills", "prompts": "prompts", "themes": "themes"}


def _toggle_entry(path: str, base: Path) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def set_resource_enabled(
    settings: Any, settings_scope: str, kind: str, path: str, enabled: bool, base: Path
) -> None:
    """Store ``+path`` or ``-path`` in the scope's array for the kind, replacing an older toggle."""
    key = SETTINGS_KEYS[kind]
    current = list(_scope_data(settings, settings_scope).get(key) or [])
    token = _toggle_entry(path, base)
    kept = [e for e in current if not (isinstance(e, str) and e[:1] in "+-" and e[1:] in (token, path))]
    kept.append(("+" if enabled else "-") + token)
    settings.set(key, kept, settings_scope)


def _resource_rows(cwd: Path, agent_dir: Path) -> list[Any]:
    from pi_app.coding.resources.loader import ResourceLoader

    loader = ResourceLoader(cwd, agent_dir=agent_dir, settings=_settings(cwd, agent_dir))
    return [entry for entries in loader.discover_entries().values() for entry in entries]


def _print_rows(rows: Sequence[Any], out: TextIO) -> None:
    current = None
    for index, row in enumerate(rows, start=1):
        if row.kind != current:
            current = row.kind
            out.write(f"{row.kind.capitalize()}:\n")
        mark = "x" if row.enabled else " "
        out.write(f"  {index:3}. [{mark}] {row.path}  ({row.metadata.scope}, {row.metadata.source})\n")


def cmd_config(args: argparse.Namespace, cwd: Path, agent_dir: Path, out: TextIO, inp: TextIO) -> int:
    settings_scope = "project" if args.local else "global"
    base = _base_dir(settings_scope, cwd, agent_dir)
    if args.action in ("enable", "disable"):
        if not args.path:
            raise CommandError(f"pi config {args.action} needs a resource path")
        target = os.path.normpath(os.path.abspath(args.path))
        rows = _resource_rows(cwd, agent_dir)
        row = next((r for r in rows if os.path.normpath(r.path) == target), None)
        if row is None:
            raise CommandError(f"No such resource: {args.path}")
        set_resource_enabled(
            _settings(cwd, agent_dir), settings_scope, row.kind, row.path, args.action == "enable", base
        )
        out.write(f"{'Enabled' if args.action == 'enable' else 'Disabled'} {row.path}\n")
        return 0
    rows = _resource_rows(cwd, agent_dir)
    if not rows:
        out.write("No resources found.\n")
        return 0
    _print_rows(rows, out)
    if not (hasattr(inp, "isatty") and inp.isatty()):
        return 0
    while True:
        out.write("Toggle which number (Enter to finish)? ")
        out.flush()
        answer = inp.readline().strip()
        if not answer:
            return 0
        if not answer.isdigit() or not 1 <= int(answer) <= len(rows):
            out.write("Please type a number from the list.\n")
            continue
        row = rows[int(answer) - 1]
        set_resource_enabled(
            _settings(cwd, agent_dir), settings_scope, row.kind, row.path, not row.enabled, base
        )
        rows = _resource_rows(cwd, agent_dir)
        _print_rows(rows, out)


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi", add_help=True)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("install", "remove", "uninstall"):
        p = sub.add_parser(name)
        p.add_argument("source")
        p.add_argument("-l", "--local", action="store_true", help="project scope (.pi/settings.json)")
    sub.add_parser("list")
    p = sub.add_parser("update")
    p.add_argument("source", nargs="?")
    p.add_argument("--models", action="store_true")
    p.add_argument("--offline", action="store_true")
    p = sub.add_parser("config")
    p.add_argument("action", nargs="?", choices=("enable", "disable", "list"), default="list")
    p.add_argument("path", nargs="?")
    p.add_argument("-l", "--local", action="store_true")
    return parser


def run_package_command(
    argv: Sequence[str],
    *,
    cwd: str | Path | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    here = Path(os.path.abspath(cwd or os.getcwd()))
    agent_dir = paths.agent_dir()
    try:
        if args.command == "install":
            return cmd_install(args, here, agent_dir, out)
        if args.command in ("remove", "uninstall"):
            return cmd_remove(args, here, agent_dir, out)
        if args.command == "list":
            return cmd_list(args, here, agent_dir, out)
        if args.command == "update":
            return cmd_update(args, here, agent_dir, out)
        return cmd_config(args, here, agent_dir, out, stdin or sys.stdin)
    except CommandError as exc:
        err.write(f"pi: {exc}\n")
        return 1
    except (PackageError, OSError) as exc:
        err.write(f"pi: {exc}\n")
        return 1
