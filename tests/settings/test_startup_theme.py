"""The theme of the app's first frame is the one the settings manager gives (issue 21: one owner
for settings parsing; the start-up peek reads the files the manager reads, as the manager reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.coding.settings import SettingsManager
from pi_app.coding.settings_files import startup_theme

MISSING = object()
CASES = [
    (MISSING, MISSING),
    ('{"theme": "light"}', MISSING),
    (MISSING, '{"theme": "nord"}'),
    ('{"theme": "light"}', '{"theme": "nord"}'),
    ('{"theme": "light"}', '{"other": 1}'),
    ('{"theme": "light"}', '{"theme": null}'),
    ('{"theme": "light"}', '{"theme": 7}'),
    ('{"theme": "light"}', '{"theme": ""}'),
    ('{"theme": "light"}', "{not json"),
    ("[1, 2]", '{"theme": "nord"}'),
    ('{"theme": "light/dark"}', ""),
]


@pytest.mark.parametrize(("global_text", "project_text"), CASES)
def test_the_start_up_peek_agrees_with_the_settings_manager(
    tmp_path: Path, global_text: object, project_text: object
) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    for path, text in ((agent / "settings.json", global_text), (cwd / ".pi" / "settings.json", project_text)):
        if isinstance(text, str):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    assert startup_theme(cwd, agent) == (SettingsManager.create(cwd, agent).get_theme() or None)
