"""Resource discovery's ignore files go through the one gitignore evaluator (issue 21) and list
what git lists: directory patterns, negations, anchoring, ``**`` and a deeper file re-including."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pi_app.coding.resources.ignore_rules import IgnoreRules, list_entries

FILES = [
    "keep.md",
    "build/out.md",
    "docs/a.md",
    "docs/b.tmp",
    "docs/keep.tmp",
    "docs/deep/c.md",
    "logs/x.log",
    "src/build/gen.md",
    "src/lib/d.md",
    "src/lib/e.md",
    "only/root.md",
    "nested/only/root.md",
    "a/b/c/skip.md",
]
ROOT_IGNORE = "build/\n*.tmp\n!docs/keep.tmp\nlogs\n/only\n**/c/skip.md\n# a comment\n"
NESTED_IGNORE = {"src/.gitignore": "lib/e.md\n", "docs/.gitignore": "!b.tmp\ndeep/\n"}


def _tree(root: Path) -> None:
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x", encoding="utf-8")
    (root / ".gitignore").write_text(ROOT_IGNORE, encoding="utf-8")
    for name, text in NESTED_IGNORE.items():
        (root / name).write_text(text, encoding="utf-8")


def _walk(root: Path) -> set[str]:
    found: set[str] = set()

    def walk(directory: Path, rules: IgnoreRules) -> None:
        rules = rules.for_directory(directory)
        for path, is_dir in list_entries(directory, rules):
            if is_dir:
                walk(path, rules)
            else:
                found.add(path.relative_to(root).as_posix())

    walk(root, IgnoreRules())
    return found


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_discovery_lists_the_files_git_does_not_ignore(tmp_path: Path) -> None:
    _tree(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    expected = {name for name in listed if not name.rsplit("/", 1)[-1].startswith(".")}
    assert _walk(tmp_path) == expected
    assert expected == {
        "keep.md",
        "docs/a.md",
        "docs/b.tmp",
        "docs/keep.tmp",
        "src/lib/d.md",
        "nested/only/root.md",
    }
