"""Ignore-file evaluation for the pure-Python search back end (spec 50 R-SRCH-04, R-SRCH-07, D-28).

It mirrors what ``rg --hidden --no-require-git`` does, so both back ends list the same files:

* ``.gitignore`` files of the searched directories *and of every ancestor directory* apply, each
  pattern relative to its own directory; ``.git/info/exclude`` of any such directory; the global
  git excludes file (``core.excludesFile`` from the user's git config, else
  ``$XDG_CONFIG_HOME/git/ignore``); ``.ignore`` and ``.rgignore`` files.
* Precedence is ripgrep's: ``.rgignore`` over ``.ignore`` over ``.gitignore`` over
  ``.git/info/exclude`` over the global file; within one kind the deepest directory that has an
  opinion (match or ``!`` negation) wins.
* Hidden files are included; ``.git`` entries are always skipped.

Deliberate agreement with rg over spec 50 R-SRCH-04: with ``--no-require-git`` ripgrep does not
treat a nested ``.git`` as a boundary for parent ``.gitignore`` rules, so neither does this module.
Each file is a ``pi_app.coding.gitignore.IgnoreLayer`` (the one evaluator of ignore rules, which
matches each entry on its own as rg does: a pattern for a directory prunes the walk there but does
not hide the files of a search that starts inside that directory); this module picks the files and
ranks them.
"""

from __future__ import annotations

import configparser
import os

from pi_app.coding.gitignore import IgnoreLayer, Rule, read_lines, rules_from_lines

CUSTOM_IGNORE = ".rgignore"
IGNORE = ".ignore"
GITIGNORE = ".gitignore"
_KINDS = (CUSTOM_IGNORE, IGNORE, GITIGNORE, "exclude")


def _read_rules(path: str) -> tuple[Rule, ...]:
    lines = read_lines(path)
    return rules_from_lines(lines) if lines else ()


def layers_for_directory(directory: str) -> list[IgnoreLayer]:
    """The ignore files found directly in ``directory`` (any kind)."""
    found: list[IgnoreLayer] = []
    for kind, name in (
        (CUSTOM_IGNORE, CUSTOM_IGNORE),
        (IGNORE, IGNORE),
        (GITIGNORE, GITIGNORE),
        ("exclude", os.path.join(".git", "info", "exclude")),
    ):
        rules = _read_rules(os.path.join(directory, name))
        if rules:
            found.append(IgnoreLayer(directory, kind, rules))
    return found


def _git_config_excludes_file(home: str) -> str | None:
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    value = None
    for config_path in (os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")):
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read(config_path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in parser.sections():
            if section.strip().lower() == "core":
                for key, raw in parser.items(section):
                    if key.lower() == "excludesfile" and raw.strip():
                        value = raw.strip().strip('"')
    if value:
        return os.path.expanduser(value)
    return os.path.join(xdg, "git", "ignore")


def global_layer(root: str) -> IgnoreLayer | None:
    path = _git_config_excludes_file(os.path.expanduser("~"))
    rules = _read_rules(path) if path else ()
    return IgnoreLayer(root, "global", rules) if rules else None


def ancestor_layers(root: str) -> list[IgnoreLayer]:
    """Ignore layers of every directory above ``root``, outermost first."""
    chain: list[str] = []
    current = os.path.dirname(root)
    while True:
        chain.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    layers: list[IgnoreLayer] = []
    for directory in reversed(chain):
        layers.extend(layers_for_directory(directory))
    return layers


class IgnoreMatcher:
    """Answers "is this path ignored?" for a stack of layers (outermost first)."""

    def __init__(self, layers: list[IgnoreLayer], global_rules: IgnoreLayer | None) -> None:
        self.layers = layers
        self.global_rules = global_rules

    def child(self, directory: str) -> IgnoreMatcher:
        """The matcher for entries below ``directory`` (adds its own ignore files)."""
        own = layers_for_directory(directory)
        if not own:
            return self
        return IgnoreMatcher([*self.layers, *own], self.global_rules)

    def is_ignored(self, absolute: str, is_dir: bool) -> bool:
        verdicts: dict[str, bool] = {}
        for layer in reversed(self.layers):  # deepest first
            if layer.kind in verdicts:
                continue
            verdict = layer.verdict(absolute, is_dir)
            if verdict is not None:
                verdicts[layer.kind] = verdict
        for kind in _KINDS:
            if kind in verdicts:
                return verdicts[kind]
        if self.global_rules is not None:
            return bool(self.global_rules.verdict(absolute, is_dir))
        return False


def matcher_for_root(root: str) -> IgnoreMatcher:
    """Rules in force for the entries of directory ``root`` (ancestors' files plus its own)."""
    return IgnoreMatcher(ancestor_layers(root), global_layer(root)).child(root)
