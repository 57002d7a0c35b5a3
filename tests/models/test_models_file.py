"""``set_models_provider``: the public way for a host (``pi pods``) to edit one provider of models.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.ext import ModelsFileError, get_models_provider, set_models_provider

ENTRY = {
    "baseUrl": "http://10.0.0.5:8001/v1",
    "api": "openai-completions",
    "apiKey": "k",
    "models": [{"id": "m"}],
}


def test_adds_replaces_and_removes_one_provider_keeping_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text(
        '{\n  // mine\n  "providers": {"ollama": {"baseUrl": "http://x/v1", "api": "openai-completions", '
        '"apiKey": "o", "models": [{"id": "q"}]}}\n}\n'
    )
    assert set_models_provider(path, "gpu1", ENTRY)
    assert not set_models_provider(path, "gpu1", ENTRY)  # unchanged: no rewrite
    data = json.loads(path.read_text())
    assert set(data["providers"]) == {"ollama", "gpu1"}
    assert get_models_provider(path, "gpu1") == ENTRY
    assert set_models_provider(path, "gpu1", None)
    assert set(json.loads(path.read_text())["providers"]) == {"ollama"}


def test_a_broken_file_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text('{"providers": {')
    with pytest.raises(ModelsFileError, match="left unchanged"):
        set_models_provider(path, "gpu1", ENTRY)
    assert path.read_text() == '{"providers": {'


def test_an_invalid_entry_is_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    with pytest.raises(ModelsFileError, match="apiKey"):
        set_models_provider(
            path, "gpu1", {"baseUrl": "http://h/v1", "api": "openai-completions", "models": [{"id": "m"}]}
        )
    assert not path.exists()
