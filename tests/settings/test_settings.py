"""Layered settings (spec 30 R-SET, scenarios 15–18)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.coding.settings import SettingsManager, deep_merge, migrate_settings


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_global_and_project_merge(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(
        agent / "settings.json",
        {"theme": "dark", "compaction": {"enabled": True, "reserveTokens": 16384}, "skills": ["a"]},
    )
    _write(cwd / ".pi" / "settings.json", {"compaction": {"keepRecentTokens": 30000}, "skills": ["b"]})
    sm = SettingsManager.create(cwd, agent)
    c = sm.get_compaction_settings()
    assert (c.enabled, c.reserve_tokens, c.keep_recent_tokens) == (True, 16384, 30000)
    assert sm.get_skill_paths() == ["b"] and sm.get_theme() == "dark"
    sm.set_project_enabled(False)  # untrusted project: its file is ignored
    assert sm.get_skill_paths() == ["a"] and sm.get_compaction_settings().keep_recent_tokens == 20000


def test_defaults_come_from_getters_and_are_never_written(tmp_path: Path) -> None:
    sm = SettingsManager.create(tmp_path / "proj", tmp_path / "agent")
    assert sm.get_steering_mode() == "one-at-a-time" and sm.get_transport() == "auto"
    r = sm.get_retry_settings()
    assert (r.enabled, r.max_retries, r.base_delay_ms, r.provider.max_retry_delay_ms) == (
        True,
        3,
        2000,
        60000,
    )
    assert sm.get_tree_filter_mode() == "default" and sm.get_double_escape_action() == "tree"
    sm.set_theme("light")
    assert json.loads((tmp_path / "agent" / "settings.json").read_text()) == {"theme": "light"}


def test_save_rereads_the_file_and_writes_only_changed_keys(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "settings.json"
    _write(path, {"theme": "dark", "custom": {"kept": 1}, "compaction": {"reserveTokens": 1000}})
    a = SettingsManager.create(tmp_path / "proj", tmp_path / "agent")
    # another process adds a key meanwhile
    on_disk = json.loads(path.read_text())
    on_disk["quietStartup"] = True
    on_disk["compaction"]["keepRecentTokens"] = 5
    path.write_text(json.dumps(on_disk))
    a.set_theme("light")
    a.set_compaction_enabled(False)
    saved = json.loads(path.read_text())
    assert saved == {
        "theme": "light",
        "custom": {"kept": 1},
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 5, "enabled": False},
        "quietStartup": True,
    }
    assert path.read_text().startswith('{\n  "theme"')  # indent=2
    assert not (tmp_path / "agent" / "settings.json.lock").exists()


def test_broken_file_gives_a_warning_and_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "settings.json"
    _write(path, '{"theme": "dark",,}')
    sm = SettingsManager.create(tmp_path / "proj", tmp_path / "agent")
    assert len(sm.errors) == 1 and "settings.json" in sm.errors[0] and "using defaults" in sm.errors[0]
    assert sm.get_theme() is None
    sm.set_theme("light")
    assert sm.get_theme() == "light"  # applies for this session
    assert path.read_text() == '{"theme": "dark",,}'


def test_legacy_keys_are_migrated_in_memory() -> None:
    sm = SettingsManager.in_memory({"queueMode": "all", "websockets": True, "retry": {"maxDelayMs": 5000}})
    assert sm.get_steering_mode() == "all"
    assert sm.get_transport() == "websocket"
    assert sm.get_retry_settings().provider.max_retry_delay_ms == 5000
    migrated = migrate_settings({"skills": {"enableSkillCommands": False, "customDirectories": ["x"]}})
    assert migrated == {"enableSkillCommands": False, "skills": ["x"]}
    assert migrate_settings({"skills": {"customDirectories": []}}) == {}


def test_migrated_shape_reaches_disk_on_next_save(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "settings.json"
    _write(path, {"queueMode": "all"})
    sm = SettingsManager.create(tmp_path / "p", tmp_path / "agent")
    assert json.loads(path.read_text()) == {"queueMode": "all"}  # loading never writes
    sm.set_theme("x")
    assert json.loads(path.read_text()) == {"steeringMode": "all", "theme": "x"}


def test_overrides_apply_but_are_never_saved(tmp_path: Path) -> None:
    sm = SettingsManager.create(tmp_path / "p", tmp_path / "agent")
    sm.apply_overrides({"defaultModel": "cli-model", "compaction": {"enabled": False}})
    assert sm.get_default_model() == "cli-model" and not sm.get_compaction_settings().enabled
    sm.set_theme("y")
    assert json.loads((tmp_path / "agent" / "settings.json").read_text()) == {"theme": "y"}


def test_default_project_trust_only_from_global(tmp_path: Path) -> None:
    _write(tmp_path / "agent" / "settings.json", {"defaultProjectTrust": "never"})
    _write(tmp_path / "p" / ".pi" / "settings.json", {"defaultProjectTrust": "always"})
    assert SettingsManager.create(tmp_path / "p", tmp_path / "agent").get_default_project_trust() == "never"


def test_wrong_types_are_ignored_with_a_message() -> None:
    sm = SettingsManager.in_memory({"editorPaddingX": "wide", "treeFilterMode": "bogus", "theme": "t"})
    assert sm.get_editor_padding_x() == 0 and sm.get_tree_filter_mode() == "default" and sm.get_theme() == "t"
    assert any("editorPaddingX" in e for e in sm.errors)


def test_clamped_setters_and_reload(tmp_path: Path) -> None:
    sm = SettingsManager.create(tmp_path / "p", tmp_path / "agent")
    sm.set_editor_padding_x(9)
    sm.set_autocomplete_max_visible(1)
    assert sm.get_editor_padding_x() == 3 and sm.get_autocomplete_max_visible() == 3
    path = tmp_path / "agent" / "settings.json"
    path.write_text('{"theme": "reloaded"}')
    sm.reload()
    assert sm.get_theme() == "reloaded"
    path.write_text("{broken")
    sm.reload()
    assert sm.get_theme() == "reloaded" and sm.errors


def test_set_default_model_and_provider_persists_both(tmp_path: Path) -> None:
    sm = SettingsManager.create(tmp_path / "p", tmp_path / "agent")
    sm.set_default_model_and_provider("anthropic", "claude")
    sm.set_default_thinking_level("high")
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved == {"defaultProvider": "anthropic", "defaultModel": "claude", "defaultThinkingLevel": "high"}


def test_deep_merge_rules() -> None:
    assert deep_merge({"a": {"x": 1}, "l": [1]}, {"a": {"y": 2}, "l": [2], "n": None}) == {
        "a": {"x": 1, "y": 2},
        "l": [2],
    }
