"""ARCHITECTURE.md names modules and classes on a keystroke's way to the HTTP request and a delta's
way back (issue 21, acceptance 3): each name it writes as ``pi_app....`` must exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def resolve(name: str) -> object:
    """Import the longest module prefix of ``name`` and look the rest up as attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(name)


def test_every_name_in_architecture_md_exists() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    names = sorted(set(re.findall(r"`(pi_app(?:\.\w+)+)`", text)))
    assert len(names) > 40  # the walk names its way, not a handful of packages
    missing = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    assert missing == []


def test_the_readme_links_it_from_its_layers_section() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layers = readme.split("## Layers", 1)[1].split("\n## ", 1)[0]
    assert "(ARCHITECTURE.md)" in layers
