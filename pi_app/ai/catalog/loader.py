"""Loading the built-in model catalogue shipped inside the package (R-AI-05, 00-index.md D-8).

The data is ``<provider>.json`` files listed in ``manifest.json``, written at development time by
``scripts/generate_catalog.py``. Files are read on first access (never at import, never from the
network) and cached; every call returns fresh ``Model`` objects, so a caller may change them freely.

The files are read next to this module; only a package that is not on disk as files (a zip) goes
through ``importlib.resources``, whose import (``zipfile`` and more) is a noticeable share of
``pi -p``'s start-up.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pi_app.ai.codec import model_from_dict
from pi_app.ai.types import Model


@functools.cache
def _read(name: str) -> Any:
    path = Path(__file__).with_name(name)
    if path.is_file():
        return json.loads(path.read_text("utf-8"))
    from importlib import resources

    return json.loads(resources.files("pi_app.ai.catalog").joinpath(name).read_text("utf-8"))


def catalog_provider_ids() -> list[str]:
    return list(_read("manifest.json")["providers"])


def catalog_source() -> str:
    """Where the catalogue came from, e.g. ``@earendil-works/pi-ai 1.6.0``."""
    return str(_read("manifest.json").get("source", ""))


def catalog_provider_entry(provider: str) -> dict[str, Any] | None:
    """The manifest entry of ``provider``: ``file``, ``models``, ``name``, ``env``, ``requiredEnv``."""
    entry = _read("manifest.json")["providers"].get(provider)
    return dict(entry) if entry is not None else None


def load_catalog(provider: str) -> list[Model]:
    """The built-in models of ``provider`` (empty for a provider without a catalogue file)."""
    entry = _read("manifest.json")["providers"].get(provider)
    if entry is None:
        return []
    return [model_from_dict(raw) for raw in _read(entry["file"])["models"]]


def get_builtin_model(provider: str, model_id: str) -> Model | None:
    for model in load_catalog(provider):
        if model.id == model_id:
            return model
    return None
