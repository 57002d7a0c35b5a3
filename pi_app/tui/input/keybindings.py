"""Keybindings: pi's action ids, their default keys, and the user's ``keybindings.json`` (R-KEY-03/04).

* The defaults ship as ``pi_app/data/keybindings/defaults.json`` (the top-level
  ``keybindings/defaults.json`` is a link to it) in the format of pi 0.73.1's
  ``keybindings.json``: ``{"<action id>": "<key>" | ["<key>", …]}``, namespaced ids
  (``app.interrupt``, ``tui.input.newLine``; decision D-41). Python-only actions use the same scheme
  (``app.debug``); the transcript's scrolling and search use 1.6.0's ``tui.altScreen.*`` ids (this
  app's earlier ``app.transcript.*`` ids are accepted as aliases).
* ``ACTIONS`` describes every action: id, pi's older flat name (accepted as an alias, so old
  files keep working), the description ``/hotkeys`` shows, and its ``/hotkeys`` group.
* ``<agentDir>/keybindings.json`` overrides: a present action *replaces* that action's keys (an
  empty list unbinds it); the id wins over its alias. Invalid JSON, a non-object, an unknown
  action or a key that does not parse is ignored with one warning line naming the file (pi ignores
  these silently; reporting them is deliberate).

Every key is stored as a canonical pi ``KeyId`` (``pi_app.tui.input.keys.parse_key_id``), and matching
compares ``KeyPress.key_id`` with those, so a remapped key works in every place that asks
``bindings.matches(press, action)``. Hints are rendered from the effective keys, never hard-coded:
``hint(action)`` gives pi's inline spelling (``ctrl+o``), ``display(action)`` the ``/hotkeys``
spelling (``Ctrl+O``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_app.tui.input.keys import KeyPress, parse_key_id

PACKAGE_DATA = Path(__file__).resolve().parents[2] / "data"
"""``pi_app/data`` (a plain folder of the package; ``importlib.resources`` costs a start-up import)."""


@dataclass(frozen=True)
class Action:
    """One bindable action: its id, flat alias, ``/hotkeys`` description and group."""

    id: str
    alias: str | None
    description: str
    group: str
    """``/hotkeys`` section: Navigation, Transcript, Editing, Other, Selectors, Tree, Sessions, Models."""


def _a(action_id: str, alias: str | None, description: str, group: str) -> Action:
    return Action(action_id, alias, description, group)


ACTIONS: tuple[Action, ...] = (
    # editor navigation
    _a("tui.editor.cursorUp", "cursorUp", "Move cursor up", "Navigation"),
    _a("tui.editor.cursorDown", "cursorDown", "Move cursor down", "Navigation"),
    _a("tui.editor.historyPrevious", None, "Previous prompt from history", "Navigation"),
    _a("tui.editor.historyNext", None, "Next prompt from history", "Navigation"),
    _a("tui.editor.cursorLeft", "cursorLeft", "Move cursor left", "Navigation"),
    _a("tui.editor.cursorRight", "cursorRight", "Move cursor right", "Navigation"),
    _a("tui.editor.cursorWordLeft", "cursorWordLeft", "Move cursor word left", "Navigation"),
    _a("tui.editor.cursorWordRight", "cursorWordRight", "Move cursor word right", "Navigation"),
    _a("tui.editor.cursorLineStart", "cursorLineStart", "Move to line start", "Navigation"),
    _a("tui.editor.cursorLineEnd", "cursorLineEnd", "Move to line end", "Navigation"),
    _a("tui.editor.jumpForward", "jumpForward", "Jump forward to character", "Navigation"),
    _a("tui.editor.jumpBackward", "jumpBackward", "Jump backward to character", "Navigation"),
    _a("tui.editor.pageUp", "pageUp", "Scroll editor up by page", "Navigation"),
    _a("tui.editor.pageDown", "pageDown", "Scroll editor down by page", "Navigation"),
    # the transcript (1.6.0's fullscreen ``tui.altScreen.*`` actions)
    _a("tui.altScreen.pageUp", "transcriptPageUp", "Scroll transcript up by page", "Transcript"),
    _a("tui.altScreen.pageDown", "transcriptPageDown", "Scroll transcript down by page", "Transcript"),
    _a("tui.altScreen.halfPageUp", None, "Scroll transcript up by half a page", "Transcript"),
    _a("tui.altScreen.halfPageDown", None, "Scroll transcript down by half a page", "Transcript"),
    _a("tui.altScreen.lineUp", None, "Scroll transcript up by one line", "Transcript"),
    _a("tui.altScreen.lineDown", None, "Scroll transcript down by one line", "Transcript"),
    _a("tui.altScreen.previousPrompt", None, "Jump to the previous prompt", "Transcript"),
    _a("tui.altScreen.nextPrompt", None, "Jump to the next prompt", "Transcript"),
    _a("tui.altScreen.search", None, "Search the transcript", "Transcript"),
    _a("tui.altScreen.searchNext", None, "Next search match", "Transcript"),
    _a("tui.altScreen.searchPrevious", None, "Previous search match", "Transcript"),
    _a("tui.altScreen.searchClose", None, "Close transcript search", "Transcript"),
    _a("tui.altScreen.top", "transcriptTop", "Scroll transcript to the top", "Transcript"),
    _a("tui.altScreen.bottom", "transcriptBottom", "Scroll transcript to the end and follow", "Transcript"),
    # editing
    _a("tui.input.submit", "submit", "Submit input", "Editing"),
    _a("tui.input.newLine", "newLine", "New line", "Editing"),
    _a("tui.input.tab", "tab", "Tab / autocomplete", "Editing"),
    _a("tui.editor.deleteCharBackward", "deleteCharBackward", "Delete character backward", "Editing"),
    _a("tui.editor.deleteCharForward", "deleteCharForward", "Delete character forward", "Editing"),
    _a("tui.editor.deleteWordBackward", "deleteWordBackward", "Delete word backward", "Editing"),
    _a("tui.editor.deleteWordForward", "deleteWordForward", "Delete word forward", "Editing"),
    _a("tui.editor.deleteToLineStart", "deleteToLineStart", "Delete to line start", "Editing"),
    _a("tui.editor.deleteToLineEnd", "deleteToLineEnd", "Delete to line end", "Editing"),
    _a("tui.editor.yank", "yank", "Paste most recently deleted text", "Editing"),
    _a("tui.editor.yankPop", "yankPop", "Cycle through deleted text after yank", "Editing"),
    _a("tui.editor.undo", "undo", "Undo last edit", "Editing"),
    _a("tui.input.copy", "copy", "Copy selection", "Editing"),
    _a("app.clipboard.pasteImage", "pasteImage", "Paste image from clipboard", "Editing"),
    _a("app.editor.external", "externalEditor", "Open in external editor", "Editing"),
    # application
    _a("app.interrupt", "interrupt", "Cancel / abort", "Other"),
    _a("app.clear", "clear", "Clear editor (twice to exit)", "Other"),
    _a("app.exit", "exit", "Exit (when editor empty)", "Other"),
    _a("app.suspend", "suspend", "Suspend to background", "Other"),
    _a("app.thinking.cycle", "cycleThinkingLevel", "Cycle thinking level", "Other"),
    _a("app.model.cycleForward", "cycleModelForward", "Cycle to next model", "Other"),
    _a("app.model.cycleBackward", "cycleModelBackward", "Cycle to previous model", "Other"),
    _a("app.model.select", "selectModel", "Open model selector", "Other"),
    _a("app.tools.expand", "expandTools", "Collapse or expand tool output", "Other"),
    _a("app.thinking.toggle", "toggleThinking", "Hide or show thinking blocks", "Other"),
    _a("app.message.copy", None, "Copy the selection or the last answer", "Other"),
    _a("app.message.followUp", "followUp", "Queue follow-up message", "Other"),
    _a("app.message.dequeue", "dequeue", "Restore queued messages to editor", "Other"),
    _a("app.session.new", "newSession", "Start a new session", "Other"),
    _a("app.session.tree", "tree", "Open session tree navigator", "Other"),
    _a("app.session.fork", "fork", "Fork current session", "Other"),
    _a("app.session.resume", "resume", "Open session resume picker", "Other"),
    _a("app.debug", "debug", "Write the debug log", "Other"),
    # lists and selectors
    _a("tui.select.up", "selectUp", "Move selection up", "Selectors"),
    _a("tui.select.down", "selectDown", "Move selection down", "Selectors"),
    _a("tui.select.pageUp", "selectPageUp", "Page up in list", "Selectors"),
    _a("tui.select.pageDown", "selectPageDown", "Page down in list", "Selectors"),
    _a("tui.select.confirm", "selectConfirm", "Confirm selection", "Selectors"),
    _a("tui.select.cancel", "selectCancel", "Cancel selection", "Selectors"),
    # session picker
    _a("app.session.togglePath", "toggleSessionPath", "Toggle path display", "Sessions"),
    _a("app.session.toggleSort", "toggleSessionSort", "Toggle sort mode", "Sessions"),
    _a("app.session.toggleNamedFilter", "toggleSessionNamedFilter", "Toggle named-only filter", "Sessions"),
    _a("app.session.rename", "renameSession", "Rename session", "Sessions"),
    _a("app.session.delete", "deleteSession", "Delete session", "Sessions"),
    _a(
        "app.session.deleteNoninvasive",
        "deleteSessionNoninvasive",
        "Delete session (empty query)",
        "Sessions",
    ),
    # tree navigator
    _a("app.tree.foldOrUp", "treeFoldOrUp", "Fold branch or jump to previous segment", "Tree"),
    _a("app.tree.unfoldOrDown", "treeUnfoldOrDown", "Unfold branch or jump to next segment", "Tree"),
    _a("app.tree.editLabel", None, "Edit the label of the selected entry", "Tree"),
    _a("app.tree.toggleLabelTimestamp", None, "Toggle label timestamps", "Tree"),
    _a("app.tree.filter.default", None, "Filter: default view", "Tree"),
    _a("app.tree.filter.noTools", None, "Filter: hide tool results", "Tree"),
    _a("app.tree.filter.userOnly", None, "Filter: user messages only", "Tree"),
    _a("app.tree.filter.labeledOnly", None, "Filter: labeled entries only", "Tree"),
    _a("app.tree.filter.all", None, "Filter: all entries", "Tree"),
    _a("app.tree.filter.cycleForward", None, "Cycle filter forward", "Tree"),
    _a("app.tree.filter.cycleBackward", None, "Cycle filter backward", "Tree"),
    # scoped models selector
    _a("app.models.save", None, "Save the model selection", "Models"),
    _a("app.thinking.save", None, "Save the thinking level as the default (/thinking)", "Models"),
    _a("app.models.enableAll", None, "Enable all models", "Models"),
    _a("app.models.clearAll", None, "Clear all models", "Models"),
    _a("app.models.toggleProvider", None, "Toggle the current provider", "Models"),
    _a("app.models.reorderUp", None, "Move model up", "Models"),
    _a("app.models.reorderDown", None, "Move model down", "Models"),
)
ACTIONS_BY_ID: dict[str, Action] = {a.id: a for a in ACTIONS}

TRANSCRIPT_SCROLL_ACTIONS: tuple[str, ...] = (
    "tui.altScreen.pageUp",
    "tui.altScreen.pageDown",
    "tui.altScreen.halfPageUp",
    "tui.altScreen.halfPageDown",
    "tui.altScreen.lineUp",
    "tui.altScreen.lineDown",
    "tui.altScreen.previousPrompt",
    "tui.altScreen.nextPrompt",
    "tui.altScreen.top",
    "tui.altScreen.bottom",
)
"""The transcript's scrolling and prompt jumps: the editor and the search bar both pass them on."""
_ALIASES: dict[str, str] = {a.alias: a.id for a in ACTIONS if a.alias}
_ALIASES.update(
    {  # this app's ids before it took 1.6.0's (files written for it keep working)
        "app.transcript.pageUp": "tui.altScreen.pageUp",
        "app.transcript.pageDown": "tui.altScreen.pageDown",
        "app.transcript.top": "tui.altScreen.top",
        "app.transcript.bottom": "tui.altScreen.bottom",
    }
)


def resolve_action(name: str) -> str | None:
    """The action id for an id or a flat alias (``newLine`` -> ``tui.input.newLine``)."""
    if name in ACTIONS_BY_ID:
        return name
    return _ALIASES.get(name)


def defaults_path() -> Path:
    return PACKAGE_DATA / "keybindings" / "defaults.json"


def _as_list(value: Any) -> list[Any] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    return None


def _parse_keys(values: list[Any]) -> list[str] | None:
    parsed: list[str] = []
    for value in values:
        key = parse_key_id(value) if isinstance(value, str) else None
        if key is None:
            return None
        if key not in parsed:
            parsed.append(key)
    return parsed


def _platform_defaults(table: dict[str, list[str]]) -> dict[str, list[str]]:
    if sys.platform == "win32":  # no job control; alt+v pastes images (Windows owns ctrl+v)
        table["app.suspend"] = []
        table["app.clipboard.pasteImage"] = ["alt+v"]
        table["tui.altScreen.search"] = ["ctrl+f"]  # as 1.6.0 on Windows
        table["tui.altScreen.previousPrompt"] = ["ctrl+shift+up", "ctrl+up"]
        table["tui.altScreen.nextPrompt"] = ["ctrl+shift+down", "ctrl+down"]
    return table


def load_defaults() -> dict[str, list[str]]:
    data = json.loads(defaults_path().read_text(encoding="utf-8"))
    table: dict[str, list[str]] = {}
    for action_id, value in data.items():
        keys = _parse_keys(_as_list(value) or [])
        if action_id not in ACTIONS_BY_ID or keys is None:
            raise ValueError(f"defaults.json: bad entry {action_id!r}")
        table[action_id] = keys
    return _platform_defaults(table)


def parse_overrides(data: Any, label: str) -> tuple[dict[str, list[str]], list[str]]:
    """Validate a decoded ``keybindings.json``: (overrides by action id, warning lines)."""
    if not isinstance(data, dict):
        return {}, [f"Ignoring {label}: it must contain a JSON object"]
    overrides: dict[str, list[str]] = {}
    from_id: set[str] = set()
    warnings: list[str] = []
    for name, value in data.items():
        if name == "$schema":  # pi 1.6.0's docs recommend it for editor completion
            continue
        action_id = resolve_action(name)
        if action_id is None:
            warnings.append(f"{label}: unknown action {json.dumps(name)} ignored")
            continue
        values = _as_list(value)
        keys = _parse_keys(values) if values is not None else None
        if keys is None:
            warnings.append(f"{label}: invalid key for {json.dumps(name)} ignored: {json.dumps(value)}")
            continue
        is_id = name == action_id
        if action_id in overrides and not is_id and action_id in from_id:
            continue  # the namespaced id wins over its old flat name
        overrides[action_id] = keys
        if is_id:
            from_id.add(action_id)
    return overrides, warnings


class Keybindings:
    """The effective keys of every action (defaults overlaid by the user's file)."""

    def __init__(self, table: Mapping[str, Iterable[str]] | None = None) -> None:
        base = load_defaults()
        if table:
            base.update({k: list(v) for k, v in table.items()})
        self._keys: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in base.items()}
        self.warnings: list[str] = []
        self.source: Path | None = None

    @classmethod
    def load(cls, path: str | Path | None) -> Keybindings:
        """Defaults plus ``path`` (when it exists); problems end up in ``.warnings``."""
        if path is None or not Path(path).is_file():
            return cls()
        target = Path(path)
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: also 5000-digit numbers
            bindings = cls()
            bindings.warnings.append(f"Ignoring {target}: {exc}")
            return bindings
        overrides, warnings = parse_overrides(data, str(target))
        bindings = cls(overrides)
        bindings.warnings = warnings
        bindings.source = target
        return bindings

    def keys(self, action: str) -> tuple[str, ...]:
        action_id = resolve_action(action) or action
        return self._keys.get(action_id, ())

    def matches(self, press: KeyPress | str, action: str) -> bool:
        key_id = press.key_id if isinstance(press, KeyPress) else parse_key_id(press)
        return key_id is not None and key_id in self.keys(action)

    def first_match(self, press: KeyPress, actions: Iterable[str]) -> str | None:
        """The first of ``actions`` bound to ``press`` (callers list them in priority order)."""
        for action in actions:
            if press.key_id in self.keys(action):
                return resolve_action(action) or action
        return None

    def actions_for(self, press: KeyPress | str) -> list[str]:
        key_id = press.key_id if isinstance(press, KeyPress) else parse_key_id(press)
        return [action for action, keys in self._keys.items() if key_id in keys]

    def hint(self, action: str, default: str = "") -> str:
        """The first key in pi's inline spelling (``ctrl+o``); ``default`` when unbound."""
        keys = self.keys(action)
        return keys[0] if keys else default

    def display(self, action: str) -> str:
        """Every key of ``action`` for ``/hotkeys`` (``Ctrl+O``, ``Shift+Enter / Ctrl+J``)."""
        return " / ".join(display_key(k) for k in self.keys(action))

    def as_json(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self._keys.items()}


_DISPLAY_NAMES = {"pageUp": "PageUp", "pageDown": "PageDown", "escape": "Esc"}


def display_key(key_id: str) -> str:
    """``shift+ctrl+p`` -> ``Ctrl+Shift+P`` (canonical order, each part capitalised)."""
    if key_id.endswith("++"):
        parts = [*key_id[:-2].split("+"), "+"]
    else:
        parts = key_id.split("+")
    return "+".join(_DISPLAY_NAMES.get(p, p[:1].upper() + p[1:]) for p in parts if p)
