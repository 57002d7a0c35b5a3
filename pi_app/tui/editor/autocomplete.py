"""Autocomplete for the prompt editor (spec 60 §2.5, R-AC-01…10). No Textual import.

``PiAutocomplete`` is the one provider the interactive app uses. Three contexts, decided from the
text before the cursor:

* **slash** — the first line starts with ``/``: before the first space, the command names
  (built-ins, templates, extension and skill commands), fuzzy-matched; after it, the command's
  own argument completions (``/model`` lists models).
* **@ file** — the token before the cursor starts with ``@``: files and directories below the
  working directory (or below the directory part of the query), listed by ``rg --files`` or the
  pure-Python walker (decision D-28), scored by basename/path match.
* **path** — a token containing ``/`` or starting with ``.`` or ``~/`` (or any token when Tab
  forces it): the entries of that directory whose names start with the typed prefix.

``get_suggestions`` is async and does its file-system work in a thread; the caller (the editor
widget) tracks request ids and discards stale answers (R-AC-08). ``apply_completion`` is pure: it
returns the new lines and cursor.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_app.coding.fuzzy import fuzzy_filter

MAX_FILE_RESULTS = 100
MAX_FILE_SUGGESTIONS = 20
LISTING_TTL_S = 5.0
TOKEN_DELIMITERS = " \t\"'="


@dataclass(frozen=True)
class AutocompleteItem:
    """One suggestion: the text it inserts, how the list shows it, an optional description."""

    value: str
    label: str
    description: str | None = None


@dataclass
class Suggestions:
    """The suggestions for the text before the cursor, and which one is selected."""

    items: list[AutocompleteItem]
    prefix: str
    """The text before the cursor that accepting an item replaces."""
    kind: str = "file"
    """``command`` (slash command names), ``argument``, ``file`` (``@``) or ``path``."""
    selected: int = 0


@dataclass
class CommandInfo:
    """What autocomplete needs to know about one slash command."""

    name: str
    description: str | None = None
    argument_hint: str | None = None
    get_argument_completions: Callable[[str], list[AutocompleteItem] | None] | None = None


def _token_before(text: str) -> str:
    """The token that ends at the cursor (delimited by whitespace, quotes and ``=``).

    An open ``@"…`` token (a quoted path with spaces) counts as one token.
    """
    quote = text.rfind('@"')
    if quote >= 0 and '"' not in text[quote + 2 :]:
        return text[quote:]
    start = len(text)
    while start > 0 and text[start - 1] not in TOKEN_DELIMITERS:
        start -= 1
    return text[start:]


def preselect(items: Sequence[AutocompleteItem], typed: str) -> int:
    """R-AC-07: the item equal to the typed prefix, else the first starting with it, else 0."""
    for i, item in enumerate(items):
        if item.value == typed:
            return i
    for i, item in enumerate(items):
        if typed and item.value.startswith(typed):
            return i
    return 0


class FileLister:
    """Relative paths of files and directories below a base directory, cached for a few seconds."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[float, list[tuple[str, bool]]]] = {}

    def list(self, base: str) -> list[tuple[str, bool]]:
        cached = self._cache.get(base)
        now = time.monotonic()
        if cached is not None and now - cached[0] < LISTING_TTL_S:
            return cached[1]
        files = self._files(base)
        directories: set[str] = set()
        for path in files:
            parts = path.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                directories.add("/".join(parts[:depth]))
        entries = [(d, True) for d in sorted(directories)] + [(f, False) for f in files]
        self._cache[base] = (now, entries)
        return entries

    def _files(self, base: str) -> builtins.list[str]:
        from pi_app.coding.tools.search_backend import RG_COMMON_FLAGS, selected_backend, walk_files

        try:
            backend = selected_backend()
        except RuntimeError:
            backend = "python"
        if backend == "native":
            from pi_app.coding.tools.search_backend import find_rg

            rg = find_rg()
            if rg is not None:
                try:
                    done = subprocess.run(
                        [rg, "--files", *RG_COMMON_FLAGS],
                        cwd=base,
                        capture_output=True,
                        timeout=10,
                        check=False,
                    )
                    if done.returncode in (0, 1):
                        text = done.stdout.decode("utf-8", "replace")
                        return [line.replace(os.sep, "/") for line in text.splitlines() if line]
                except (OSError, subprocess.SubprocessError):
                    pass
        return [rel for rel, _ in walk_files(base)]


def score_path(path: str, is_dir: bool, query: str) -> int:
    """R-AC-05 score of one entry for ``query`` (0: no match)."""
    name = path.rsplit("/", 1)[-1].lower()
    q = query.lower()
    if not q:
        score = 1
    elif name == q:
        score = 100
    elif name.startswith(q):
        score = 80
    elif q in name:
        score = 50
    elif q in path.lower():
        score = 30
    else:
        return 0
    return score + (10 if is_dir else 0)


def _quote_path(path: str) -> str:
    return f'@"{path}"' if " " in path else f"@{path}"


@dataclass
class PiAutocomplete:
    """Slash commands, their arguments, ``@`` files and paths for the editor's cursor position."""

    cwd: str
    commands: Callable[[], Sequence[CommandInfo]] = field(default=lambda: [])
    lister: FileLister = field(default_factory=FileLister)
    trigger_characters: tuple[str, ...] = ("/", "@")

    # -- contexts -------------------------------------------------------------------------------

    @staticmethod
    def in_slash_context(lines: Sequence[str], cursor_line: int) -> bool:
        return cursor_line == 0 and lines[0].lstrip().startswith("/")

    @staticmethod
    def at_token(text_before: str) -> str | None:
        """The ``@`` token being typed (without the ``@``), or None."""
        token = _token_before(text_before)
        if token.startswith('@"'):
            return token[2:]
        if token.startswith("@"):
            return token[1:]
        return None

    def should_trigger_file_completion(self, lines: Sequence[str], cursor_line: int, cursor_col: int) -> bool:
        """Tab outside the slash-name context: only after some non-space text (not at line start)."""
        before = lines[cursor_line][:cursor_col]
        if self.in_slash_context(lines, cursor_line) and " " not in before.lstrip():
            return False
        return bool(_token_before(before)) or before.endswith(" ") and bool(before.strip())

    # -- suggestions ----------------------------------------------------------------------------

    async def get_suggestions(
        self,
        lines: Sequence[str],
        cursor_line: int,
        cursor_col: int,
        *,
        force: bool = False,
        cancel: asyncio.Event | None = None,
    ) -> Suggestions | None:
        before = lines[cursor_line][:cursor_col]
        if self.in_slash_context(lines, cursor_line):
            stripped = before.lstrip()
            if " " not in stripped:
                return self._command_names(stripped)
            result = self._command_arguments(stripped)
            if result is not None:
                return result
        query = self.at_token(before)
        if query is not None:
            items = await asyncio.to_thread(self._file_items, query)
            if cancel is not None and cancel.is_set():
                return None
            token = _token_before(before)
            return Suggestions(items, token, "file") if items else None
        token = _token_before(before)
        if force or "/" in token or token.startswith(".") or token.startswith("~/"):
            if not force and not token:
                return None
            items = await asyncio.to_thread(self._path_items, token)
            if cancel is not None and cancel.is_set():
                return None
            return Suggestions(items, token, "path") if items else None
        return None

    def _command_names(self, typed: str) -> Suggestions:
        query = typed[1:]
        commands = fuzzy_filter(self.commands(), query, lambda c: c.name)
        items = [
            AutocompleteItem(
                c.name, f"{c.name} {c.argument_hint}" if c.argument_hint else c.name, c.description
            )
            for c in commands
        ]
        return Suggestions(items, typed, "command", preselect(items, query))

    def _command_arguments(self, typed: str) -> Suggestions | None:
        name, _, argument = typed[1:].partition(" ")
        for command in self.commands():
            if command.name == name and command.get_argument_completions is not None:
                items = command.get_argument_completions(argument) or []
                if not items:
                    return None
                return Suggestions(list(items), argument, "argument", preselect(items, argument))
        return None

    def _file_items(self, query: str) -> list[AutocompleteItem]:
        base = self.cwd
        prefix = ""
        if "/" in query:
            directory, _, rest = query.rpartition("/")
            candidate = Path(os.path.expanduser(directory))
            if not candidate.is_absolute():
                candidate = Path(self.cwd) / candidate
            if candidate.is_dir():
                base = str(candidate)
                prefix = directory + "/"
                query = rest
        scored = []
        for path, is_dir in self.lister.list(base)[:50_000]:
            score = score_path(path, is_dir, query)
            if score > 0:
                scored.append((-score, path, is_dir))
                if len(scored) >= MAX_FILE_RESULTS * 20:
                    break
        scored.sort()
        items = []
        for _, path, is_dir in scored[:MAX_FILE_SUGGESTIONS]:
            full = prefix + path + ("/" if is_dir else "")
            label = path.rsplit("/", 1)[-1] + ("/" if is_dir else "")
            items.append(AutocompleteItem(full, label, prefix + path))
        return items

    def _path_items(self, token: str) -> list[AutocompleteItem]:
        directory, _, name_prefix = token.rpartition("/")
        shown_dir = directory + "/" if token.count("/") else ""
        if token.startswith("/") and directory == "":
            shown_dir = "/"
        target = os.path.expanduser(directory if directory else ("/" if token.startswith("/") else "."))
        if not os.path.isabs(target):
            target = os.path.join(self.cwd, target)
        try:
            entries = list(os.scandir(target))
        except OSError:
            return []
        found = []
        for entry in entries:
            if not entry.name.lower().startswith(name_prefix.lower()):
                continue
            try:
                is_dir = entry.is_dir()  # follows symlinks: a link to a directory counts as one
            except OSError:
                is_dir = False
            found.append((not is_dir, entry.name.lower(), entry.name, is_dir))
        found.sort()
        return [
            AutocompleteItem(shown_dir + name + ("/" if is_dir else ""), name + ("/" if is_dir else ""))
            for _, _, name, is_dir in found
        ]

    # -- applying -------------------------------------------------------------------------------

    def apply_completion(
        self,
        lines: Sequence[str],
        cursor_line: int,
        cursor_col: int,
        item: AutocompleteItem,
        prefix: str,
        kind: str = "file",
    ) -> tuple[list[str], int, int]:
        line = lines[cursor_line]
        before, after = line[:cursor_col], line[cursor_col:]
        start = len(before) - len(prefix) if before.endswith(prefix) else len(before)
        if kind == "command":
            replacement = f"/{item.value} "
            start = len(before) - len(before.lstrip())
        elif kind == "file":
            is_dir = item.value.endswith("/")
            replacement = _quote_path(item.value) + ("" if is_dir else " ")
            if replacement.startswith('@"') and is_dir:
                replacement = replacement[:-1]  # keep the quote open so completion can continue
            if after.startswith(" ") and replacement.endswith(" "):
                replacement = replacement[:-1]
        else:
            replacement = item.value
        new_line = before[:start] + replacement + after
        new_lines = list(lines)
        new_lines[cursor_line] = new_line
        return new_lines, cursor_line, start + len(replacement)
