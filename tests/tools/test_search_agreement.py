"""Both search back ends list exactly the same files for random trees with ignore files (D-28)."""

from __future__ import annotations

import os
import random

import pytest

from pi_app.coding.tools import create_find_tool, create_grep_tool
from pi_app.coding.tools.search_backend import find_rg
from tests.tools.conftest import git_init, make_tree, run_tool, text_of

pytestmark = pytest.mark.skipif(find_rg() is None, reason="rg not installed")

NAMES = ["a", "b.txt", "c.log", ".hid", "build", "d.md", "e.txt", "x y.txt", "Ünï.txt"]
RULES = ["*.log", "!keep.log", "build/", "/a", "d.*", "**/e.txt", "!*.md", ".hid", "sub*/", "*.txt\n!b.txt"]


def random_tree(seed: int) -> tuple[dict[str, str], bool]:
    rng = random.Random(seed)
    files: dict[str, str] = {}
    dirs = [""]
    for _ in range(rng.randint(3, 6)):
        parent = rng.choice(dirs)
        dirs.append(f"{parent}{rng.choice(['sub', 'build', 'pkg', '.cfg', 'keep.log'])}{rng.randint(0, 2)}/")
    for _ in range(rng.randint(10, 30)):
        files[rng.choice(dirs) + rng.choice(NAMES)] = "needle\n"
    for directory in rng.sample(dirs, k=min(3, len(dirs))):
        kind = rng.choice([".gitignore", ".gitignore", ".ignore"])
        files[directory + kind] = "\n".join(rng.sample(RULES, k=rng.randint(1, 3))) + "\n"
    # a file and a directory path must not collide
    clean = {p: t for p, t in files.items() if not any(q.startswith(p + "/") for q in files)}
    return clean, rng.random() < 0.5


@pytest.mark.parametrize("seed", range(12))
async def test_backends_agree(tmp_path, monkeypatch, seed):
    files, as_repo = random_tree(seed)
    root = str(tmp_path / "t")
    os.mkdir(root)
    if as_repo:
        git_init(root)
    make_tree(root, files)
    subdirs = sorted({os.path.dirname(p) for p in files if os.path.dirname(p)})
    start = random.Random(seed).choice(subdirs) if subdirs else "."  # may lie inside an ignored dir
    outputs = {}
    for backend in ("native", "python"):
        monkeypatch.setenv("PI_SEARCH_BACKEND", backend)
        found = text_of(await run_tool(create_find_tool(root), {"pattern": "**"}))
        grepped = text_of(await run_tool(create_grep_tool(root), {"pattern": "needle", "limit": 1000}))
        inside = text_of(await run_tool(create_find_tool(root), {"pattern": "*", "path": start}))
        outputs[backend] = (found, grepped, inside)
    assert outputs["native"] == outputs["python"]
