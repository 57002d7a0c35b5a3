"""Pi packages: sources, identity, install locations and what a package provides (spec 40 §2.13, D-47).

A package is a local directory (or single ``.py`` file), a git repository, or — for the Markdown
resources of TypeScript pi packages — an npm package when npm exists. A pip-installable Python
project with ``[tool.pi]`` in its ``pyproject.toml`` is the Python analogue of an npm package with a
``pi`` key. Nothing here runs pip: dependencies must already be importable (D-47, [D-13]).

Source strings: ``npm:<name>[@version]``; ``git:<host>/<path>[@ref]`` or ``git:git@<host>:<path>[@ref]``;
``https://``, ``http://``, ``ssh://``, ``git://`` URLs (optional ``@ref``); anything starting with
``.``, ``/``, ``~`` (or a Windows drive) is a local path; everything else is a local path too (only
the ``git:`` prefix enables shorthand forms, R-PKG-01).

Identity (dedupe, ``pi remove``): npm -> name; git -> ``host/path`` without ref or ``.git`` (the SSH
and HTTPS forms of one repository are the same package); local -> resolved absolute path.

The ``pi install|remove|list|update|config`` commands are in ``pi_app/modes/package_commands.py``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi_app.coding import paths
from pi_app.coding.extensions.discovery import discover_extensions_in_dir, is_js_path, read_manifest
from pi_app.coding.paths import is_offline
from pi_app.coding.resources.diagnostics import ResourceDiagnostic, error, warning
from pi_app.coding.resources.patterns import glob_match, is_enabled
from pi_app.coding.resources.prompt_templates import discover_template_files
from pi_app.coding.resources.skills import discover_skill_files
from pi_app.coding.resources.themes import discover_theme_files

KINDS = ("extensions", "skills", "prompts", "themes")
NETWORK_TIMEOUT_S = 10.0
Scope = Literal["user", "project", "temporary"]
ProgressCallback = Callable[[dict[str, Any]], None]


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackageSource:
    kind: Literal["local", "git", "npm"]
    raw: str
    identity: str
    path: str | None = None  # local: absolute path
    host: str | None = None  # git
    repo_path: str | None = None  # git: owner/repo
    url: str | None = None  # git clone URL / npm spec
    ref: str | None = None  # git ref or npm version

    @property
    def pinned(self) -> bool:
        return self.ref is not None


_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def _split_ref(text: str) -> tuple[str, str | None]:
    """``host/path@ref`` -> (``host/path``, ``ref``); an ``@`` before the first ``/`` is a user."""
    slash = text.find("/")
    at = text.rfind("@")
    if at > 0 and at > slash:
        return text[:at], text[at + 1 :] or None
    return text, None


def _git_parts(address: str) -> tuple[str, str]:
    path = address.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    host, _, repo = path.partition("/")
    return host.lower(), repo


def parse_source(raw: str, base_dir: str | Path) -> PackageSource:
    text = raw.strip()
    if text.startswith("npm:"):
        spec = text[4:]
        at = spec.rfind("@")
        name, version = (spec[:at], spec[at + 1 :]) if at > 0 else (spec, None)
        return PackageSource("npm", raw, f"npm:{name}", url=name, ref=version or None)
    if text.startswith("git:"):
        body = text[4:]
        if body.startswith("git@"):
            user_host, _, rest = body.partition(":")
            rest, ref = _split_ref(rest)
            host = user_host.split("@", 1)[1]
            host, repo = _git_parts(f"{host}/{rest}")
            return PackageSource(
                "git", raw, f"{host}/{repo}", host=host, repo_path=repo, url=f"{user_host}:{rest}", ref=ref
            )
        body, ref = _split_ref(body)
        host, repo = _git_parts(body)
        return PackageSource(
            "git", raw, f"{host}/{repo}", host=host, repo_path=repo, url=f"https://{host}/{repo}", ref=ref
        )
    match = re.match(r"^(https?|ssh|git)://(.+)$", text)
    if match:
        scheme, rest = match.groups()
        rest, ref = _split_ref(rest)
        address = rest.split("@", 1)[1] if "@" in rest.split("/", 1)[0] else rest
        host, repo = _git_parts(
            address.replace(":", "/", 1) if scheme == "ssh" and ":" in address.split("/")[0] else address
        )
        return PackageSource(
            "git", raw, f"{host}/{repo}", host=host, repo_path=repo, url=f"{scheme}://{rest}", ref=ref
        )
    expanded = paths.expand_user(text)
    target = (
        Path(expanded)
        if os.path.isabs(expanded) or _WINDOWS_PATH.match(expanded)
        else Path(base_dir) / expanded
    )
    resolved = os.path.normpath(str(target))
    return PackageSource("local", raw, resolved, path=resolved)


@dataclass
class PackageEntry:
    """One entry of a ``packages`` settings array (string or object form with per-kind filters)."""

    source: PackageSource
    scope: Scope
    filters: dict[str, list[str]] = field(default_factory=dict)
    raw: Any = None


def parse_package_entry(raw: Any, base_dir: str | Path, scope: Scope) -> PackageEntry | None:
    if isinstance(raw, str):
        return PackageEntry(parse_source(raw, base_dir), scope, {}, raw)
    if isinstance(raw, Mapping) and isinstance(raw.get("source"), str):
        filters = {k: [str(v) for v in raw[k]] for k in KINDS if isinstance(raw.get(k), list)}
        return PackageEntry(parse_source(raw["source"], base_dir), scope, filters, raw)
    return None


# ---------------------------------------------------------------------------------------------
# Install locations
# ---------------------------------------------------------------------------------------------


def install_root(kind: str, scope: Scope, cwd: str | Path, agent_dir: str | Path) -> Path:
    if scope == "project":
        base = paths.project_config_dir(cwd)
        return base / ("git" if kind == "git" else "npm")
    if scope == "temporary":
        import tempfile

        return Path(tempfile.gettempdir()) / "pi-extensions" / kind
    return Path(agent_dir) / ("git" if kind == "git" else "npm")


def install_dir(source: PackageSource, scope: Scope, cwd: str | Path, agent_dir: str | Path) -> Path | None:
    """Where the package lives on disk (None for npm without a known root)."""
    if source.kind == "local":
        return Path(source.path or "")
    if source.kind == "git":
        git_root = install_root("git", scope, cwd, agent_dir)
        if scope == "temporary":
            import hashlib

            digest = hashlib.sha1(source.identity.encode()).hexdigest()[:8]
            return git_root / digest / (source.repo_path or "")
        return git_root / (source.host or "") / (source.repo_path or "")
    if scope == "project":
        return install_root("npm", scope, cwd, agent_dir) / "node_modules" / (source.url or "")
    root = _npm_global_root(agent_dir)
    return root / (source.url or "") if root is not None else None


@functools.cache
def _npm_global_root(agent_dir: str | Path) -> Path | None:
    """``npm root -g`` (a local query), asked once per process: each call starts a node process."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    try:
        out = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=NETWORK_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    root = out.stdout.strip()
    return Path(root) if out.returncode == 0 and root else None


def write_project_gitignore(root: Path) -> None:
    """Project install roots ignore everything but their own ``.gitignore``."""
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n!.gitignore\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# git / npm operations (explicit network use only; D-32)
# ---------------------------------------------------------------------------------------------


class PackageError(RuntimeError):
    """An install/update/remove failure; ``str(error)`` is one line for the user."""


def _run(argv: Sequence[str], cwd: Path | None = None, timeout: float | None = None) -> str:
    try:
        completed = subprocess.run(
            list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError as exc:
        raise PackageError(f"{argv[0]} is not available") from exc
    except subprocess.TimeoutExpired as exc:
        raise PackageError(f"{' '.join(argv[:2])} timed out") from exc
    if completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip().splitlines()
        raise PackageError(f"{' '.join(argv[:2])} failed: {detail[-1] if detail else completed.returncode}")
    return completed.stdout


def git_clone(source: PackageSource, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    _run(["git", "clone", "--quiet", source.url or "", str(target)], timeout=None)
    if source.ref:
        _run(["git", "checkout", "--quiet", source.ref], cwd=target)


def git_update(target: Path) -> None:
    _run(["git", "fetch", "--quiet", "origin"], cwd=target)
    head = _run(["git", "rev-parse", "--abbrev-ref", "origin/HEAD"], cwd=target).strip() or "origin/HEAD"
    _run(["git", "reset", "--quiet", "--hard", head], cwd=target)


def npm_command(settings_value: Sequence[str] | None = None) -> list[str] | None:
    argv = list(settings_value or ["npm"])
    return argv if shutil.which(argv[0]) else None


# ---------------------------------------------------------------------------------------------
# What a package provides (spec 40 §2.13.1)
# ---------------------------------------------------------------------------------------------


@dataclass
class PackageResource:
    path: Path
    enabled: bool


def _units_for_dir(kind: str, directory: Path, recursive: bool = True) -> list[Path]:
    if kind == "extensions":
        return discover_extensions_in_dir(directory, report_js=True)[0]
    if kind == "skills":
        return discover_skill_files(directory)
    if kind == "prompts":
        return discover_template_files(directory, recursive=recursive)
    return discover_theme_files(directory, recursive=recursive)


def _units_for_path(kind: str, path: Path) -> list[Path]:
    if path.is_dir():
        if kind == "extensions":
            return discover_extensions_in_dir(path, report_js=True)[0]
        return _units_for_dir(kind, path)
    suffix = {"extensions": ".py", "skills": ".md", "prompts": ".md", "themes": ".json"}[kind]
    return [path] if path.suffix == suffix else []


def _all_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d not in ("node_modules", "__pycache__")
        )
        out.extend(Path(dirpath) / f for f in sorted(filenames))
    return out


def manifest_units(
    root: Path, entries: Sequence[str], kind: str
) -> tuple[list[Path], list[ResourceDiagnostic]]:
    """Expand manifest entries (paths, globs, ``!`` exclusions) relative to the package root."""
    diagnostics: list[ResourceDiagnostic] = []
    units: list[Path] = []
    excludes = [e[1:] for e in entries if e.startswith("!")]
    for entry in entries:
        if entry.startswith("!"):
            continue
        if any(ch in entry for ch in "*?["):
            matched = [
                p
                for p in _all_files(root)
                if glob_match(entry, os.path.relpath(p, root).replace(os.sep, "/"))
            ]
            for path in matched:
                units.extend(_units_for_path(kind, path))
            continue
        target = (root / entry).resolve()
        if not target.exists():
            diagnostics.append(warning(f"package entry does not exist: {entry}", str(root)))
            continue
        if kind == "extensions" and is_js_path(target):
            diagnostics.append(
                warning(
                    "TypeScript/JavaScript extensions are not supported by this version of pi", str(target)
                )
            )
            continue
        units.extend([target] if kind == "extensions" and target.is_file() else _units_for_path(kind, target))
    kept = [
        u
        for u in dict.fromkeys(units)
        if not any(
            glob_match(x, t)
            for x in excludes
            for t in (os.path.relpath(u, root).replace(os.sep, "/"), u.name)
        )
    ]
    return kept, diagnostics


def package_resources(
    root: Path, kind: str, filters: Mapping[str, Sequence[str]] | None = None
) -> tuple[list[PackageResource], list[ResourceDiagnostic]]:
    """Resources of one kind a package provides, with their enabled state (R-PKG-09, R-PKG-10)."""
    diagnostics: list[ResourceDiagnostic] = []
    if root.is_file():
        units = [root] if kind == "extensions" and root.suffix == ".py" else []
        base = root.parent
    else:
        base = root
        entries, problem = read_manifest(root, kind)
        if problem:
            diagnostics.append(warning(f"{problem} (treated as no manifest)", str(root)))
        if entries is not None:
            units, problems = manifest_units(root, entries, kind)
            diagnostics.extend(problems)
        else:
            convention = root / kind
            units = _units_for_dir(kind, convention) if convention.is_dir() else []
            if kind == "extensions" and convention.is_dir():
                diagnostics.extend(discover_extensions_in_dir(convention, report_js=True)[1])
    patterns = (filters or {}).get(kind)
    return [PackageResource(u, is_enabled(u, base, patterns)) for u in units], diagnostics


@dataclass
class ResolvedPackage:
    entry: PackageEntry
    root: Path | None
    installed: bool
    diagnostics: list[ResourceDiagnostic] = field(default_factory=list)


def resolve_packages(
    project_entries: Sequence[Any],
    global_entries: Sequence[Any],
    *,
    cwd: str | Path,
    agent_dir: str | Path,
    install_missing: bool = True,
    offline: bool = False,
    on_missing: Callable[[str], str] | None = None,
    progress: ProgressCallback | None = None,
    cli_entries: Sequence[str] = (),
) -> list[ResolvedPackage]:
    """Project packages then global ones (one per identity, project scope wins; R-PKG-02).

    Missing git packages are cloned unless offline (R-PKG-03); ``on_missing(source)`` may answer
    ``install``, ``skip`` or ``error`` (the latter raises ``PackageError("Missing source: …")``).
    """
    project_base = paths.project_config_dir(cwd)
    out: list[ResolvedPackage] = []
    seen: set[str] = set()
    ordered: list[PackageEntry] = []
    for raw in cli_entries:
        entry = parse_package_entry(raw, cwd, "temporary")
        if entry is not None:
            ordered.append(entry)
    for raw in project_entries:
        entry = parse_package_entry(raw, project_base, "project")
        if entry is not None:
            ordered.append(entry)
    for raw in global_entries:
        entry = parse_package_entry(raw, agent_dir, "user")
        if entry is not None:
            ordered.append(entry)
    for entry in ordered:
        if entry.source.identity in seen:
            continue
        seen.add(entry.source.identity)
        out.append(_resolve_one(entry, cwd, agent_dir, install_missing, offline, on_missing, progress))
    return out


def _resolve_one(
    entry: PackageEntry,
    cwd: str | Path,
    agent_dir: str | Path,
    install_missing: bool,
    offline: bool,
    on_missing: Callable[[str], str] | None,
    progress: ProgressCallback | None,
) -> ResolvedPackage:
    source = entry.source
    if source.kind == "local":
        root = Path(source.path or "")
        if not root.exists():
            return ResolvedPackage(
                entry, None, False, [error(f"Package path does not exist: {source.raw}", str(root))]
            )
        return ResolvedPackage(entry, root, True)
    if source.kind == "npm" and npm_command() is None:
        name = source.url or source.raw
        return ResolvedPackage(
            entry, None, False, [error(f"npm is not available; cannot resolve npm:{name}", source.raw)]
        )
    target = install_dir(source, entry.scope, cwd, agent_dir)
    if target is not None and target.exists():
        if (
            source.kind == "git"
            and entry.scope == "temporary"
            and not source.pinned
            and not is_offline(offline)
        ):
            try:
                git_update(target)
            except PackageError as exc:
                return ResolvedPackage(entry, target, True, [warning(str(exc), source.raw)])
        return ResolvedPackage(entry, target, True)
    if is_offline(offline):
        return ResolvedPackage(
            entry, None, False, [warning(f"Package not installed (offline): {source.raw}", source.raw)]
        )
    if not install_missing and entry.scope != "temporary":
        hint = f'run "pi install {source.raw}"' + (" -l" if entry.scope == "project" else "")
        return ResolvedPackage(
            entry, None, False, [warning(f"Package not installed: {source.raw} ({hint})", source.raw)]
        )
    decision = on_missing(source.raw) if on_missing is not None else "install"
    if decision == "error":
        raise PackageError(f"Missing source: {source.raw}")
    if decision == "skip" or target is None:
        return ResolvedPackage(
            entry, None, False, [warning(f"Package not installed: {source.raw}", source.raw)]
        )
    try:
        install_package(source, entry.scope, cwd, agent_dir, progress)
    except PackageError as exc:
        return ResolvedPackage(entry, None, False, [error(str(exc), source.raw)])
    return ResolvedPackage(entry, target, True)


def _emit(
    progress: ProgressCallback | None, type_: str, action: str, source: str, message: str | None = None
) -> None:
    if progress is not None:
        event: dict[str, Any] = {"type": type_, "action": action, "source": source}
        if message is not None:
            event["message"] = message
        progress(event)


def install_package(
    source: PackageSource,
    scope: Scope,
    cwd: str | Path,
    agent_dir: str | Path,
    progress: ProgressCallback | None = None,
) -> Path | None:
    """Fetch a git/npm package into its scope's location; local packages only need to exist."""
    _emit(progress, "start", "install", source.raw)
    try:
        if source.kind == "local":
            if not Path(source.path or "").exists():
                raise PackageError(f"Path does not exist: {source.raw}")
            target: Path | None = Path(source.path or "")
        elif source.kind == "git":
            target = install_dir(source, scope, cwd, agent_dir)
            assert target is not None
            if scope == "project":
                write_project_gitignore(install_root("git", scope, cwd, agent_dir))
            if not target.exists():
                git_clone(source, target)
        else:
            npm = npm_command()
            if npm is None:
                raise PackageError(f"npm is not available; cannot resolve npm:{source.url}")
            spec = f"{source.url}@{source.ref}" if source.ref else str(source.url)
            if scope == "project":
                root = install_root("npm", scope, cwd, agent_dir)
                write_project_gitignore(root)
                _run([*npm, "install", "--prefix", str(root), spec], timeout=NETWORK_TIMEOUT_S * 6)
            else:
                _run([*npm, "install", "-g", spec], timeout=NETWORK_TIMEOUT_S * 6)
            target = install_dir(source, scope, cwd, agent_dir)
    except PackageError as exc:
        _emit(progress, "error", "install", source.raw, str(exc))
        raise
    _emit(progress, "complete", "install", source.raw)
    return target


def remove_installed(source: PackageSource, scope: Scope, cwd: str | Path, agent_dir: str | Path) -> None:
    """Delete the installed copy (git: prune empty parents up to the install root; npm: uninstall)."""
    if source.kind == "git":
        target = install_dir(source, scope, cwd, agent_dir)
        root = install_root("git", scope, cwd, agent_dir)
        if target is not None and target.exists():
            shutil.rmtree(target, ignore_errors=True)
            parent = target.parent
            while parent != root and root in parent.parents and parent.exists() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
    elif source.kind == "npm":
        npm = npm_command()
        if npm is not None:
            if scope == "project":
                _run(
                    [
                        *npm,
                        "uninstall",
                        "--prefix",
                        str(install_root("npm", scope, cwd, agent_dir)),
                        str(source.url),
                    ]
                )
            else:
                _run([*npm, "uninstall", "-g", str(source.url)])
